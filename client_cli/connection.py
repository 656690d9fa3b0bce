"""The websocket client: request ids, replies matched to requests, reconnects with backoff.

A :class:`Connection` sends protocol messages and reads the server's. A message
carrying the id of a pending :meth:`Connection.request` answers it; everything
else (replies to :meth:`Connection.send`, race events, a new daily) goes to the
``on_message`` callback. With ``reconnect=True`` a dropped connection is opened
again with growing delays, authenticated again, and ``on_reconnect`` runs so the
game can be resumed.

Signed in, it agrees with the account on the language (docs/client.md, "Language"): a
``--lang`` choice is kept on the account (``set_language``), else the account's language,
if it has one, is spoken from then on, by the server on this connection and by ``simon``.

Its failures are :class:`~client_cli.errors.NetworkError` and
:class:`~client_cli.errors.ServerError` (the tree is in :mod:`client_cli.errors`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import ssl
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidURI

from server.protocol import (
    Auth,
    Authenticated,
    Error,
    Hello,
    LanguageSet,
    PlayerInfo,
    ServerMessage,
    SetLanguage,
    Welcome,
    encode,
    parse_server_message,
)

from .errors import ClientError, NetworkError, ServerError
from .words import _, explicit, follow, language, tenths

log = logging.getLogger(__name__)

REQUEST_TIMEOUT = 15.0
BACKOFF_FIRST = 0.5
BACKOFF_MAX = 10.0
CLIENT_NAME = "simon-cli"

Reply = TypeVar("Reply", bound=BaseModel)
MessageHandler = Callable[[ServerMessage], None]
ReconnectHandler = Callable[[], Awaitable[None]]
StatusHandler = Callable[[str], None]


def describe_failure(url: str, error: BaseException) -> str:
    """One line saying why ``url`` cannot be reached."""
    if url.startswith("wss://") and _no_tls(error):
        plain = "ws://" + url.removeprefix("wss://")
        reason = _("no TLS there: the server seems to speak plain websocket, try %(plain)s") % {
            "plain": plain
        }
    elif isinstance(error, ConnectionRefusedError):
        reason = _("connection refused")
    elif isinstance(error, TimeoutError):
        reason = _("timed out")
    elif isinstance(error, InvalidURI):
        reason = _("not a websocket address")
    elif isinstance(error, InvalidHandshake):
        reason = _("not a Simple Simon server (%(error)s)") % {"error": error}
    elif isinstance(error, OSError):
        reason = error.strerror or str(error) or type(error).__name__
    else:
        reason = str(error) or type(error).__name__
    return _("cannot reach the server at %(url)s: %(reason)s") % {"url": url, "reason": reason}


def _lost(url: str) -> str:
    return _("lost the connection to the server at %(url)s") % {"url": url}


def _no_tls(error: BaseException) -> bool:
    """Whether a failed ``wss://`` handshake looks like a server speaking plain HTTP: it
    drops the TLS greeting (reset) or answers it with bytes that are no TLS (a bad
    certificate is another matter)."""
    if isinstance(error, ssl.SSLCertVerificationError):
        return False
    return isinstance(error, ConnectionResetError | ssl.SSLError)


def _frame_id(frame: str | bytes) -> int | str | None:
    """The ``id`` of a frame that is a JSON object, if it has a usable one."""
    try:
        found = json.loads(frame)
    except ValueError:
        return None
    key = found.get("id") if isinstance(found, dict) else None
    return key if isinstance(key, int | str) and not isinstance(key, bool) else None


def timestamp(text: str) -> float | None:
    """A time the server sent (ISO 8601, UTC unless it says) as a POSIX timestamp."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _clock_offset(server_time: str) -> float:
    """How far the server's clock is ahead of this machine's, from a time it sent."""
    moment = timestamp(server_time)
    return 0.0 if moment is None else moment - time.time()


class Connection:
    """One websocket to the server, with ids, timeouts and (optionally) reconnects."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        reconnect: bool = False,
        on_message: MessageHandler | None = None,
        on_reconnect: ReconnectHandler | None = None,
        on_status: StatusHandler | None = None,
        timeout: float = REQUEST_TIMEOUT,
    ) -> None:
        self.url = url
        self.token = token
        self.reconnect = reconnect
        self.on_message = on_message
        self.on_reconnect = on_reconnect
        self.on_status = on_status
        self.timeout = timeout
        self.player: PlayerInfo | None = None
        #: The server's clock minus this machine's (seconds), from its welcome.
        self.clock_offset = 0.0
        #: How long a fair-play review of a held result usually takes on this server (hours;
        #: None: an older server that does not say).
        self.review_hours: int | None = None
        self._ids = itertools.count(1)
        self._waiters: dict[int | str, asyncio.Future[ServerMessage]] = {}
        self._socket: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._connected = asyncio.Event()
        self._closing = False

    # -- opening and closing ------------------------------------------------------

    async def open(self) -> Connection:
        """Connect, say hello and authenticate; raise :class:`ClientError` if that fails."""
        await self._connect()
        return self

    async def _connect(self) -> None:
        try:
            socket = await connect(
                self.url, compression=None, open_timeout=self.timeout, max_size=2**20
            )
        except (OSError, TimeoutError, InvalidHandshake, InvalidURI) as error:
            raise NetworkError(describe_failure(self.url, error)) from None
        self._socket = socket
        self._reader = asyncio.create_task(self._read(socket))
        self._connected.set()
        try:
            welcome = await self.request(
                Hello(type="hello", client=CLIENT_NAME, lang=language()), Welcome
            )
            self.clock_offset = _clock_offset(welcome.server_time)
            self.review_hours = welcome.review_hours
            if welcome.player is not None:
                self.player = await self._agree_on_language(welcome.player)
            if self.token is not None:
                # without lang, the server speaks the account's language, if it has one
                lang = language() if explicit() else None
                reply = await self.request(
                    Auth(type="auth", token=self.token, lang=lang), Authenticated
                )
                self.player = await self._agree_on_language(reply.player)
        except BaseException:
            self._socket = None  # so its reader does not start a reconnect of its own
            await self._drop(socket)
            raise

    async def _agree_on_language(self, player: PlayerInfo) -> PlayerInfo:
        """The account's language and this run's agree: ``--lang``'s choice is kept on the
        account if it has another, so every device follows; else ``simon`` speaks the
        account's from now on (the server already does, on this connection)."""
        if not explicit():
            follow(player.language)
            return player
        if player.language == language():
            return player
        try:
            await self.keep_language()
        except ServerError as error:  # a server that keeps none: this run speaks it anyway
            log.warning("the account's language was not kept: %s", error)
            return player
        return player.model_copy(update={"language": language()})

    async def keep_language(self) -> None:
        """Keep the language ``simon`` speaks on the account signed in (``set_language``)."""
        await self.request(SetLanguage(type="set_language", lang=language()), LanguageSet)
        if self.player is not None:
            self.player = self.player.model_copy(update={"language": language()})

    async def close(self) -> None:
        self._closing = True
        socket = self._socket
        if socket is not None:
            await self._drop(socket)
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader

    async def __aenter__(self) -> Connection:
        return await self.open()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def _drop(self, socket: ClientConnection) -> None:
        self._connected.clear()
        with contextlib.suppress(Exception):
            await socket.close()

    def server_day(self) -> date:
        """Today's date (UTC) by the server's clock."""
        return datetime.fromtimestamp(time.time() + self.clock_offset, UTC).date()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    # -- sending ------------------------------------------------------------------

    def next_id(self) -> int:
        return next(self._ids)

    async def send(self, message: BaseModel) -> Any:
        """Send a message (with an id of its own if it has none); return the id.

        Its reply goes to ``on_message``. While reconnecting the message waits
        until the connection is back (or ``timeout`` passes).
        """
        if getattr(message, "id", None) is None and "id" in type(message).model_fields:
            message = message.model_copy(update={"id": self.next_id()})
        await self._send_now(message)
        return getattr(message, "id", None)

    async def _send_now(self, message: BaseModel) -> None:
        if not self._connected.is_set():
            if not self.reconnect or self._closing:
                raise NetworkError(_("not connected to the server at %(url)s") % {"url": self.url})
            try:
                await asyncio.wait_for(self._connected.wait(), self.timeout)
            except TimeoutError:
                raise NetworkError(_lost(self.url)) from None
        assert self._socket is not None
        try:
            await self._socket.send(encode(message))
        except ConnectionClosed:
            raise NetworkError(_lost(self.url)) from None

    async def request(self, message: BaseModel, expect: type[Reply]) -> Reply:
        """Send a message and wait for its reply, which must be an ``expect``.

        An ``error`` reply raises :class:`ServerError`; silence, :class:`NetworkError`.
        """
        if getattr(message, "id", None) is None:
            message = message.model_copy(update={"id": self.next_id()})
        key: int | str = message.id  # type: ignore[attr-defined]
        waiter: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()
        self._waiters[key] = waiter
        try:
            await self._send_now(message)
            reply = await asyncio.wait_for(waiter, self.timeout)
        except TimeoutError:
            raise NetworkError(
                _("the server at %(url)s did not answer in time") % {"url": self.url}
            ) from None
        finally:
            self._waiters.pop(key, None)
        if isinstance(reply, Error):
            raise ServerError(reply)
        if not isinstance(reply, expect):
            raise NetworkError(
                _("the server sent %(sent)r where %(due)s was due")
                % {"sent": reply.type, "due": expect.__name__}
            )
        return reply

    # -- receiving ----------------------------------------------------------------

    async def _read(self, socket: ClientConnection) -> None:
        try:
            async for frame in socket:
                self._dispatch(frame)
        except ConnectionClosed:
            pass
        finally:
            self._connected.clear()
        if self._socket is not socket:
            return
        lost = NetworkError(_lost(self.url))
        for waiter in list(self._waiters.values()):
            if not waiter.done():
                waiter.set_exception(lost)
        if self._closing:
            return
        if not self.reconnect:
            self._status(_("disconnected"))
            return
        asyncio.get_running_loop().create_task(self._reconnect())

    def _dispatch(self, frame: str | bytes) -> None:
        try:
            message = parse_server_message(frame)
        except ValidationError as error:
            key = _frame_id(frame)
            waiter = self._waiters.get(key) if key is not None else None
            if waiter is not None and not waiter.done():
                # the answer to a request that cannot be read: fail it now, not at the timeout
                problem = error.errors()[0]
                where = ".".join(str(part) for part in problem["loc"]) or _("the frame")
                waiter.set_exception(
                    NetworkError(
                        _(
                            "the server's reply is not protocol v1 as this client reads it "
                            "(%(where)s: %(problem)s)"
                        )
                        % {"where": where, "problem": problem["msg"]}
                    )
                )
                return
            log.warning("ignored a frame that is not protocol v1: %.200r", frame)
            return
        key = getattr(message, "id", None)
        waiter = self._waiters.get(key) if key is not None else None
        if waiter is not None and not waiter.done():
            waiter.set_result(message)
        elif self.on_message is not None:
            self.on_message(message)

    async def _reconnect(self) -> None:
        """Open the connection again with growing delays, then let the game resume."""
        delay = BACKOFF_FIRST
        while not self._closing:
            self._status(_("reconnecting in %(seconds)s s") % {"seconds": tenths(delay)})
            await asyncio.sleep(delay)
            try:
                await self._connect()
            except ServerError as error:
                self._status(
                    _("disconnected: %(error)s") % {"error": error}
                )  # a bad token will not get better
                return
            except ClientError:
                delay = min(delay * 2, BACKOFF_MAX)
                continue
            self._status("connected")
            if self.on_reconnect is not None:
                try:
                    await self.on_reconnect()
                except ClientError as error:
                    self._status(_("resume failed: %(error)s") % {"error": error})
            return

    def _status(self, text: str) -> None:
        if self.on_status is not None:
            self.on_status(text)
