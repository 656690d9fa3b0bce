"""One websocket connection: frames in, a session in the middle, frames out.

The task reading the connection takes each message from
:meth:`~server.net.inbox.TextReading.receive` (whole text frames read without the
library's frame machinery), spends a token of the budget, parses it, and hands it to the
:class:`~server.play.session.session.Session`. Handlers answer with typed replies (:data:`Reply`),
encoded here, at the socket, and sent in order by the reading task, so a client that reads
slowly slows only its own answers; a review alone is answered by a task of its own (it
waits seconds on the solver), the connection reading on meanwhile. Pushed events (races, a
new day) and replies alike are written at once while the client keeps up. Otherwise a
reply waits for the client (the reading task with it), and pushed events wait in a small
bounded queue with a sender task of their own; when it is full they are dropped for that
client (and counted), so one slow client never holds up anyone else.
"""

from __future__ import annotations

import asyncio
import json
import logging
import struct
import time
from collections.abc import Iterable
from typing import Any, Final

from pydantic import ValidationError
from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request
from websockets.protocol import State

from server.i18n import N_, gettext, speaking
from server.play.hub import Hub
from server.play.session.session import SIGN_IN_MESSAGES, Replies, Session, SignInMessage
from server.protocol import (
    ClientMessage,
    Error,
    ErrorCode,
    MessageId,
    Register,
    Reply,
    encode_reply,
    has_control,
    parse_client_message,
)
from server.web import languages
from server.web.responses import request_target

from .gated import GatedConnection
from .limits import CLOSE_POLICY, REPLAY_COST, Gate
from .metrics import Metrics

log = logging.getLogger(__name__)

#: Pushed frames waiting for one client; more are dropped.
PUSH_QUEUE: int = 64
#: Reads that cost the database, and what each costs of the address's budget of HTTP
#: requests (which they share).
_READS: Final = {
    "leaderboard": 1,
    "rank": 1,
    "history": 1,
    "unfinished": 1,
    "replay": REPLAY_COST,
    "review": 1,
    "daily_result": 1,
    # accounts: each writes, and a terminal's code or a lookup is something to guess at
    "device_code": REPLAY_COST,
    "device_lookup": REPLAY_COST,
    "device_approve": REPLAY_COST,
    "recovery_codes": REPLAY_COST,
    "passkey_options": 1,
    "devices": 1,
    # friends and leagues: each writes
    "follow": 1,
    "league_new": REPLAY_COST,
    "league_join": REPLAY_COST,
}
#: Requests about an account's sign-ins, and what each costs of the account's own budget
#: (:meth:`Gate.account_request`) besides its address's.
_ACCOUNT_REQUESTS: Final = {
    "device_lookup": REPLAY_COST,
    "device_approve": REPLAY_COST,
    "recovery_codes": REPLAY_COST,
    "rotate_token": REPLAY_COST,
    "passkey_options": 1,
    "passkey_add": 1,
    "passkey_remove": 1,
    "revoke": 1,
    "devices": 1,
    "delete_account": 1,
    "follow": 1,
    "league_new": REPLAY_COST,
    "league_join": REPLAY_COST,
}
#: Answered beside the reading task: a review waits seconds on the solver, and the
#: connection reads (and plays) on meanwhile; a client matches replies by id. One review
#: of an account at a time (``busy``) bounds them.
_ANSWERED_ASIDE = frozenset({"review"})


class Outbox:
    """The frames for one connection: written at once while the connection keeps up, else
    pushed ones queued (boundedly) behind those it has not taken yet, and replies sent with
    the connection's flow control."""

    __slots__ = ("_queue", "_sender", "_waiting", "_websocket", "dropped")

    def __init__(self, websocket: ServerConnection) -> None:
        self._websocket = websocket
        self._queue: asyncio.Queue[str] | None = None
        self._sender: asyncio.Task[None] | None = None
        self._waiting = 0  # frames queued or being sent by the sender task
        self.dropped = 0

    def write_now(self, frame: str) -> bool:
        """Write ``frame`` if nothing waits ahead of it and the socket takes what it is
        given; False if it must wait its turn.

        Written without waiting: no task to wake for a push (a digest round pushes to
        thousands of connections at once), and for a reply, nothing for ``send``'s flow
        control to wait for while the client keeps up. On an open connection with no
        extension the frame is made here (:func:`text_frame`), else by the library's
        broadcast(), which skips a connection that is closing.
        """
        websocket = self._websocket
        transport = websocket.transport
        if self._waiting or transport.get_write_buffer_size():
            return False
        protocol = websocket.protocol
        if protocol.state is State.OPEN and not protocol.extensions:
            if not transport.is_closing():  # else dropped: the peer is gone or going
                transport.write(text_frame(frame.encode()))
        else:
            broadcast((websocket,), frame)
        return True

    async def reply(self, reply: Reply) -> None:
        """Send the answer to a message: at once, or once the client has caught up."""
        frame = encode_reply(reply)
        if not self.write_now(frame):
            await self._websocket.send(frame)  # waits while the client is behind

    def push(self, frame: str) -> None:
        if self.write_now(frame):
            return
        if self._queue is None:  # made on first use: most connections never queue
            self._queue = asyncio.Queue(PUSH_QUEUE)
            self._sender = asyncio.create_task(self._send())
        try:
            self._queue.put_nowait(frame)
        except asyncio.QueueFull:
            self.dropped += 1
        else:
            self._waiting += 1

    async def _send(self) -> None:
        assert self._queue is not None
        try:
            while True:
                frame = await self._queue.get()
                await self._websocket.send(frame)  # waits while the client is behind
                self._waiting -= 1
        except ConnectionClosed:
            pass

    def close(self) -> None:
        if self._sender is not None:
            self._sender.cancel()
        if self.dropped:
            log.info("dropped %d pushed frames for a slow client", self.dropped)


def text_frame(payload: bytes) -> bytes:
    """A whole text message as one unmasked frame (RFC 6455, 5.2), as a server sends it:
    what the library's ``send_text`` writes when no extension is in use, for a fraction of
    its CPU (no frame object, no buffer, one write)."""
    length = len(payload)
    if length < 126:
        return bytes((0x81, length)) + payload
    if length < 65536:
        return _MEDIUM.pack(0x81, 126, length) + payload
    return _LONG.pack(0x81, 127, length) + payload


_MEDIUM = struct.Struct("!BBH")
_LONG = struct.Struct("!BBQ")


def _json_object(frame: str | bytes) -> dict[str, Any] | None:
    try:
        raw = json.loads(frame)
    except ValueError:
        return None
    return raw if isinstance(raw, dict) else None


def message_id_of(frame: str | bytes, raw: dict[str, Any] | None = None) -> MessageId | None:
    """The ``id`` of a frame that is not a valid message, when it is a valid id, to echo."""
    if raw is None:
        raw = _json_object(frame)
    candidate = raw.get("id") if raw is not None else None
    if (isinstance(candidate, str) and len(candidate) <= 64 and not has_control(candidate)) or (
        isinstance(candidate, int) and not isinstance(candidate, bool) and 0 <= candidate < 2**53
    ):
        return candidate
    return None


def refusal(frame: str | bytes, error: ValidationError) -> Error:
    """The error for a frame that is not a valid client message, said in the language
    being spoken (a field's rule by pydantic's error type, never pydantic's English)."""
    kinds = {e["type"] for e in error.errors()}
    if "json_invalid" in kinds or "json_type" in kinds:
        return Error(code=ErrorCode.BAD_JSON, message=gettext("a message is one JSON object"))
    raw = _json_object(frame)
    message_id = message_id_of(frame, raw)
    if raw is None:
        return Error(code=ErrorCode.BAD_JSON, message=gettext("a message is one JSON object"))
    if "union_tag_invalid" in kinds:
        return Error(
            id=message_id,
            code=ErrorCode.UNKNOWN_TYPE,
            message=gettext("unknown message type %(type)r") % {"type": str(raw.get("type"))[:32]},
        )
    if "union_tag_not_found" in kinds:
        return Error(
            id=message_id, code=ErrorCode.INVALID_MESSAGE, message=gettext("a message needs a type")
        )
    first = error.errors()[0]
    # Messages are flat: the field is the second part of the location (after the type);
    # what follows names pydantic's inner schemas, which mean nothing to a client. An object
    # of named keys (``set_settings``'s ``settings``) names its key too: ``settings.sound``.
    loc = first["loc"]
    field = str(loc[1]) if len(loc) > 1 else "message"
    nested = field in _OBJECT_FIELDS and len(loc) > 2
    if nested:
        field = f"{field}.{loc[2]}"
    if first["type"] == "string_pattern_mismatch":  # the only pattern: no control characters
        rule = gettext("control characters are not allowed")
    elif nested and first["type"] == "extra_forbidden":
        rule = gettext("there is no such setting")
    elif field == "id":
        rule = gettext("a string of up to 64 characters or a whole number from 0")
    else:
        rule = gettext(_FIELD_RULES.get(first["type"], _ANY_FIELD_RULE))
    return Error(
        id=message_id,
        code=ErrorCode.INVALID_MESSAGE,
        message=f"{field}: {rule}",
        detail={"field": field},
    )


#: The fields whose value is an object of named keys, each checked as a field of its own.
_OBJECT_FIELDS = frozenset({"settings"})

#: What a field's value must be, by pydantic's error type (its own sentences are English).
_FIELD_RULES: dict[str, str] = {
    "missing": N_("this field is required"),
    "extra_forbidden": N_("this message has no such field"),
    "string_type": N_("this field is a string"),
    "int_type": N_("this field is a whole number"),
    "int_from_float": N_("this field is a whole number"),
    "bool_type": N_("this field is true or false"),
    "date_from_datetime_parsing": N_("this field is a date like 2026-01-31"),
    "date_parsing": N_("this field is a date like 2026-01-31"),
    "date_type": N_("this field is a date like 2026-01-31"),
    "literal_error": N_("this field is not one of the values it takes"),
    "enum": N_("this field is not one of the values it takes"),
    "string_too_long": N_("this text is too long"),
    "string_too_short": N_("this text is too short"),
    "too_long": N_("this list is too long"),
    "too_short": N_("this list is too short"),
    "greater_than_equal": N_("this number is too small"),
    "greater_than": N_("this number is too small"),
    "less_than_equal": N_("this number is too large"),
    "less_than": N_("this number is too large"),
    "list_type": N_("this field is a list"),
    "model_type": N_("this field is an object"),
    "dict_type": N_("this field is an object"),
}
_ANY_FIELD_RULE = N_("this value is not one this field takes")


_FAILURES = {
    ErrorCode.UNAVAILABLE: N_("the server could not do that just now; try again"),
    ErrorCode.INTERNAL: N_("the server failed to do that; the failure is logged"),
}


def failure(message_id: MessageId | None, code: ErrorCode) -> Error:
    """The reply to a message whose handling failed on the server's side."""
    return Error(id=message_id, code=code, message=gettext(_FAILURES[code]))


async def close_draining(websocket: GatedConnection, code: int, reason: str) -> None:
    """Close, reading and dropping what the client still sends: unread frames would stop
    the reading before the client's closing frame, and the close would wait its timeout."""
    closing = asyncio.create_task(websocket.close(code, reason))
    try:
        while True:
            await websocket.receive()
    except ConnectionClosed:
        pass
    await closing


def _site(request: Request | None) -> str:
    """Where the client reached this server: its page's origin, else ``http://`` and the
    ``Host`` it connected to (the links a terminal is given, where no public URL is set)."""
    if request is None:
        return ""
    origin = request.headers.get("Origin")
    if origin and origin != "null":
        return origin
    host = request.headers.get("Host", "")
    return f"http://{host}" if host else ""


async def _signing_in(
    gate: Gate,
    address: str,
    websocket: ServerConnection,
    session: Session,
    message: SignInMessage,
) -> Replies:
    """Messages that sign in (``register``, ``auth``, ``recover``, ``passkey_sign_in``,
    ``device_token``) under the per-address limits: so many new accounts per window (a
    register that makes none does not count; attempts count in the message budget), and a
    growing back-off after failed sign-ins (a wrong token, code or passkey: the secret is
    not even checked while the address is locked out)."""
    registering = type(message) is Register
    refused = gate.registration(address) if registering else gate.sign_in(address)
    if refused is not None:
        with speaking(session.language):
            return [refused.error(message.id)]
    signed_out = session.player is None
    signed = await session.sign_in(message)
    if registering and not (signed_out and signed.signed_in):  # a new account is signed in
        gate.registration_failed(address)
    if signed.signed_in:
        gate.authenticated(websocket)
    elif signed.bad_token:
        gate.sign_in_failed(address)
    return signed.replies


async def serve_connection(
    hub: Hub, websocket: GatedConnection, gate: Gate, metrics: Metrics | None = None
) -> None:
    """Run one connection until it closes."""
    outbox = Outbox(websocket)
    budget = websocket.budget
    assert budget is not None  # admitted before its handshake was answered
    address = budget.address
    request = websocket.request
    headers = request.headers if request is not None else None
    session = Session(
        hub,
        outbox.push,
        address,
        origin=headers.get("Origin") if headers is not None else None,
        user_agent=headers.get("User-Agent", "") if headers is not None else "",
        site=_site(request),
    )
    if request is not None:  # until hello's lang: the language its handshake asked for
        session.language = languages.choose(request, request_target(request).query)
    gate.unauthenticated(websocket)
    aside: set[asyncio.Task[None]] = set()

    async def handled(message: ClientMessage) -> Replies:
        try:
            if isinstance(message, SIGN_IN_MESSAGES):
                return await _signing_in(gate, address, websocket, session, message)
            cost = _READS.get(message.type)
            if cost is not None and (limited := gate.http_request(address, cost)) is not None:
                with speaking(session.language):
                    return [limited.error(message.id)]
            cost = _ACCOUNT_REQUESTS.get(message.type)
            player = session.player
            if cost is not None and player is not None:
                limited = gate.account_request(player.id, cost)
                if limited is not None:
                    with speaking(session.language):
                        return [limited.error(message.id)]
            return await session.handle(message)
        except Exception:  # what no table knows: a bug
            log.exception("handling %s failed", message.type)
            with speaking(session.language):
                return [failure(message.id, ErrorCode.INTERNAL)]

    async def answer(message: ClientMessage, started: float) -> None:
        """A message answered beside the reading task (:data:`_ANSWERED_ASIDE`)."""
        try:
            replies = await handled(message)
            for reply in replies:
                await outbox.reply(reply)
        except ConnectionClosed:
            return
        finally:
            websocket.ended()
        if metrics is not None:
            metrics.handled(message.type, time.perf_counter() - started, replies)

    try:
        while True:
            frame = await websocket.receive()  # ConnectionClosed ends it
            if websocket.stopping:  # not played: a client resends it to the next node
                await websocket.wait_closed()
                break
            over = budget.take()  # the connection's and its address's, before any work
            if over is not None:
                # Over budget: refused unread, with the id so a client can slow down and
                # resend; a client that keeps on regardless is closed.
                closing = budget.overdrawn
                with speaking(session.language):
                    error = over.error(None if closing else message_id_of(frame))
                    then = gettext("closing") if closing else gettext("slow down and send it again")
                await outbox.reply(error.model_copy(update={"message": f"{error.message}; {then}"}))
                if closing:
                    gate.overdrawn(address, "messages")
                    await close_draining(websocket, CLOSE_POLICY, "too many messages")
                    break
                continue
            started = time.perf_counter()
            try:
                message = parse_client_message(frame)
            except ValidationError as error:
                with speaking(session.language):
                    refused = refusal(frame, error)
                if metrics is not None:
                    metrics.error(refused)
                await outbox.reply(refused)
                continue
            websocket.began()
            if message.type in _ANSWERED_ASIDE:
                answering = asyncio.create_task(answer(message, started))
                aside.add(answering)
                answering.add_done_callback(aside.discard)
                continue
            replies = await handled(message)
            for reply in replies:
                await outbox.reply(reply)
            websocket.ended()
            if metrics is not None:
                metrics.handled(message.type, time.perf_counter() - started, replies)
    except ConnectionClosed:
        pass
    finally:
        for answering in aside:  # its asker is gone (a solver's search goes on, unawaited)
            answering.cancel()
        await asyncio.gather(*aside, return_exceptions=True)
        websocket.all_ended()
        gate.forget(websocket)
        outbox.close()
        try:
            await session.close()
        except Exception:
            log.exception("closing a session failed")


async def finish_in_flight(connections: Iterable[ServerConnection], seconds: float) -> None:
    """At a stop, before the close (1001): no frame is played from now on, and the messages
    being handled are answered (at most ``seconds``): a move committed at the stop is one
    its client hears of, not one it must resend to learn of."""
    busy = []
    for connection in connections:
        if isinstance(connection, GatedConnection):
            connection.stopping = True
            if not connection.idle.is_set():
                busy.append(asyncio.ensure_future(connection.idle.wait()))
    if busy:
        _, late = await asyncio.wait(busy, timeout=seconds)
        for waiting in late:
            waiting.cancel()
