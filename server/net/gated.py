"""A websocket connection under the :class:`~server.net.limits.Gate`, from accept to close.

Below the message loop, where the websockets library works on its own:

- at accept, the connection is counted by its TCP peer and dropped at once past the caps
  (no request read, no descriptor held); one that sends no byte within
  ``SIMON_FIRST_BYTES_TIMEOUT_SECONDS`` is closed;
- ping and pong frames, which the library answers itself (``async for`` never sees them),
  take from the connection's budget like messages, counted as the frame is parsed: over
  the budget they are dropped unanswered, and a client that goes on regardless is failed
  with 1008, the rest of what it sent discarded unparsed;
- so do the fragments of a fragmented message, each as it is parsed (the message's last
  frame is counted as the message, by the reading task): a fragment over the budget fails
  the connection with 1008 at once (a message cannot be read with a fragment dropped), and
  a message in more than ``SIMON_MAX_MESSAGE_FRAGMENTS`` frames with 1009 (no browser
  fragments a message; the library would take 4,096 fragments, each through its parser);
- nothing is written to a transport that is closing: after a reset, asyncio logs a
  warning for every write (a flood of pongs once wrote tens of thousands of lines);
- every HTTP answer leaves through :func:`server.net.http.finished`;
- a plain HTTP request is answered whatever follows it: a request with a body (which the
  library's parser refuses unanswered) gets a 405 or a 400, and bytes after a request
  (a pipelined request, the client's EOF) wait unread for its answer, which ends the
  connection.

Its messages are read with :meth:`~server.net.inbox.TextReading.receive`: whole text frames
are read off the socket without the library's frame machinery (:mod:`server.net.inbox`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Generator
from typing import Any

from websockets.datastructures import Headers
from websockets.exceptions import (
    HeaderLineTooLong,
    InvalidMessage,
    RequestLineTooLong,
    TooManyHeaders,
)
from websockets.frames import Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import Protocol, State
from websockets.server import ServerProtocol
from websockets.streams import StreamReader

from . import http
from .inbox import TextReading
from .limits import CLOSE_POLICY, FrameBudget, Gate

_CONTROL = (Opcode.PING, Opcode.PONG)
#: The close code of a message in too many fragments (RFC 6455: too big to process).
CLOSE_TOO_BIG = 1009
#: After failing a flooder, its close frame has this long to leave before the socket goes.
CLOSE_GRACE = 1.0


class _Head:
    """A request's head as the library's parser reads it, line by line: so a request it
    refuses for its body, whole otherwise, can still be answered by its method."""

    def __init__(self, reader: StreamReader) -> None:
        self._reader = reader
        self._request_line: bytes | None = None
        self._complete = False  # its blank line read: only the body was left to judge

    def read_line(
        self, limit: int, too_long: type[Exception]
    ) -> Generator[None, None, bytes | bytearray]:
        line = yield from self._reader.read_line(limit, too_long)
        if self._request_line is None:
            self._request_line = bytes(line)
        elif line == b"\r\n":
            self._complete = True
        return line

    def request(self) -> Request | None:
        """The request, if its head was whole (then its request line was valid)."""
        if not self._complete or self._request_line is None:
            return None
        method, path, _ = self._request_line.decode("ascii").split(" ", 2)
        return Request(path, Headers(), method)


class GatedProtocol(ServerProtocol):
    """websockets' server protocol, with control frames counted before they are answered,
    every plain HTTP request answered (its body, or what follows it, notwithstanding), and
    every HTTP answer finished by :func:`~server.net.http.finished`."""

    connection: GatedConnection
    #: A plain HTTP request was read and its answer is not sent yet.
    awaiting_answer = False

    def parse(self) -> Generator[None]:
        """The library's request parsing (its 414 and 431 too), then frames after an
        upgrade; but a request refused for its body is answered, and after a plain HTTP
        request nothing is parsed (see :meth:`_until_answered`)."""
        head = _Head(self.reader)
        try:
            request = yield from Request.parse(head.read_line)
        except Exception as error:
            self._refuse_head(error, head.request())
            yield
            raise AssertionError("parse() stepped after its request was refused") from None
        self.events.append(request)
        if not http.wants_upgrade(request):
            yield from self._until_answered()
        yield from Protocol.parse(self)

    def _refuse_head(self, error: Exception, whole: Request | None) -> None:
        self.handshake_exc = error
        if isinstance(error, RequestLineTooLong | HeaderLineTooLong | TooManyHeaders):
            status = 414 if isinstance(error, RequestLineTooLong) else 431
            self.send_response(
                self.reject(status, f"Failed to open a WebSocket connection: {error}.\n")
            )
        elif whole is not None:  # Content-Length or Transfer-Encoding: the library reads no body
            ServerProtocol.send_response(self, http.finished(whole, http.body_refused(whole)))
        else:  # not HTTP: closed without a word, as the library does
            self.handshake_exc = InvalidMessage("did not receive a valid HTTP request")
            self.handshake_exc.__cause__ = error
            self.send_eof()
            self.parser = self.discard()
            next(self.parser)

    def _until_answered(self) -> Generator[None]:
        """Drop what follows a plain HTTP request until its answer, which ends the
        connection (:meth:`send_response` moves on to discard()): a pipelined request
        would fail the frame parser, which would end the connection unanswered. The
        client's EOF waits too (:meth:`GatedConnection.eof_received`); only the connection
        lost before the answer ends it here."""
        self.awaiting_answer = True
        while not (yield from self.reader.at_eof()):
            self.reader.discard()
        self.awaiting_answer = False
        self.state = State.CLOSED
        yield
        raise AssertionError("parse() stepped after the connection was lost")

    def recv_frame(self, frame: Frame) -> None:
        if self.state is State.OPEN:
            if frame.opcode in _CONTROL:
                if not self.connection.control_frame():
                    return  # over budget: not answered, not even seen
            elif not self.connection.data_frame(frame):
                return  # the connection is failed
        super().recv_frame(frame)

    def send_response(self, response: Response) -> None:
        if self.eof_sent:
            # the frame parser failed on what followed an upgrade request (not a
            # websocket client): the connection is ending, with nothing more to say
            return
        self.awaiting_answer = False
        super().send_response(http.finished(self.connection.request, response))


class GatedConnection(TextReading):
    """A connection counted by the :class:`Gate` from accept to close: by its TCP peer
    from accept, and by its client address once its request is read and admitted."""

    gate: Gate  # set on the subclass made for each server (:func:`connection_class`)

    # slots: the library's connection already has about 30 attributes, the most an instance
    # dict shares its keys with the others' at; past them each connection's dict is a table
    # of its own (1.5 KiB more a connection)
    __slots__ = (
        "_eof_before_answer",
        "_failed",
        "_fragments",
        "_handling",
        "_peer_key",
        "_silence",
        "budget",
        "client_address",
        "idle",
        "stopping",
    )

    def __init__(self, protocol: ServerProtocol, *args: Any, **kwargs: Any) -> None:
        protocol.__class__ = GatedProtocol  # serve() makes a plain one; no state is added
        assert isinstance(protocol, GatedProtocol)
        protocol.connection = self
        protocol.parser = protocol.parse()  # its own: the plain one's has read nothing yet
        next(protocol.parser)
        super().__init__(protocol, *args, **kwargs)
        #: The address it was admitted as (None until its request was read and admitted).
        self.client_address: str | None = None
        #: Its frames' budget (from admission on).
        self.budget: FrameBudget | None = None
        self._peer_key: str | None = None
        self._silence: asyncio.TimerHandle | None = None
        self._failed = False
        #: Frames of the message being received so far (0 between messages).
        self._fragments = 0
        #: The client's EOF came before the answer to its HTTP request.
        self._eof_before_answer = False
        #: The node is stopping: a frame read from now on is not played (its 1001 is coming).
        self.stopping = False
        #: Set while no message is being handled: a stop waits for it, so that what a client
        #: sent before the stop is answered before the close (:func:`.connection.finish_in_flight`).
        self.idle = asyncio.Event()
        self.idle.set()
        self._handling = 0

    def began(self) -> None:
        """A message of this connection is being handled (until :meth:`ended`)."""
        self._handling += 1
        self.idle.clear()

    def ended(self) -> None:
        self._handling -= 1
        if not self._handling:
            self.idle.set()

    def all_ended(self) -> None:
        """The connection is done: nothing of it is handled any more."""
        self._handling = 0
        self.idle.set()

    def admitted(self, address: str) -> None:
        self.client_address = address
        self.budget = self.gate.frame_budget(address)

    # -- accept, and the first bytes ---------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        peer = transport.get_extra_info("peername")
        self._peer_key = self.gate.opened(peer[0] if peer else None)
        if self.gate.drop_at_accept(self._peer_key):
            self.transport.abort()  # no request read, the descriptor freed at once
            return
        # Real time, not the game's clock: the deadline guards a socket, whose bytes come
        # (or do not) in real time whatever a test does with the days.
        self._silence = self.loop.call_later(self.gate.limits.first_bytes, self._silent)

    def _silent(self) -> None:
        self._silence = None
        self.gate.fell_silent(self._peer_key)
        self.transport.abort()

    def data_received(self, data: bytes) -> None:
        if self._silence is not None:
            self._silence.cancel()
            self._silence = None
        super().data_received(data)
        if self._failed and not self.transport.is_closing():
            self.transport.close()  # after the close frame, however much more is coming
            self.loop.call_later(CLOSE_GRACE, self.transport.abort)  # real time: a socket's

    def eof_received(self) -> bool | None:  # type: ignore[override]  # asyncio's signature
        protocol = self.protocol
        assert isinstance(protocol, GatedProtocol)
        if protocol.awaiting_answer:
            # a whole request, then EOF (``nc -N``, a client that half-closes): the
            # transport stays open to write its answer
            self._eof_before_answer = True
            return True
        return super().eof_received()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._silence is not None:
            self._silence.cancel()
            self._silence = None
        self.gate.closed(self.client_address, self._peer_key)
        super().connection_lost(exc)

    # -- frames ------------------------------------------------------------------------

    def control_frame(self) -> bool:
        """Whether a ping or pong just parsed is within budget (else it is dropped, and
        a client that goes on regardless is failed with 1008)."""
        budget = self.budget
        if budget is None:
            return True
        if budget.take() is None:
            return True
        if budget.overdrawn and not self._failed:
            self._failed = True
            self.gate.overdrawn(budget.address, "ping or pong frames")
            self.protocol.fail(CLOSE_POLICY, "too many messages")
        return False

    def data_frame(self, frame: Frame) -> bool:
        """Whether a data frame just parsed may go on: a fragment of a message takes from
        the budget (its last frame is counted as the message is read), and a message in
        more than the limit's fragments fails the connection with 1009; a fragment over
        the budget fails it with 1008."""
        fragments = self._fragments + 1 if frame.opcode is Opcode.CONT else 1
        self._fragments = 0 if frame.fin else fragments
        if self._failed:
            return False
        budget = self.budget
        if budget is None:
            return True
        most = self.gate.limits.fragments
        if fragments > most:
            self._failed = True
            self.gate.fragmented(budget.address)
            self.protocol.fail(CLOSE_TOO_BIG, f"a message in more than {most} fragments")
            return False
        if frame.fin or budget.take() is None:
            return True
        self._failed = True
        self.gate.overdrawn(budget.address, "message fragments")
        self.protocol.fail(CLOSE_POLICY, "too many messages")
        return False

    def send_data(self) -> None:
        if self.transport.is_closing():
            self.protocol.data_to_send()  # dropped: the peer is gone or going
            return
        super().send_data()
        if self._eof_before_answer and self.protocol.eof_sent:
            self.transport.close()  # answered, and nothing more can come: done


def connection_class(gate: Gate) -> type[GatedConnection]:
    return type("Connection", (GatedConnection,), {"gate": gate})


__all__ = ["GatedConnection", "GatedProtocol", "connection_class"]
