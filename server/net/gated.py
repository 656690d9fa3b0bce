"""A websocket connection under the :class:`~server.net.limits.Gate`, from accept to close.

Below the message loop, where the websockets library works on its own:

- at accept, the connection is counted by its TCP peer and dropped at once past the caps
  (no request read, no descriptor held); one that sends no byte within
  ``SIMON_FIRST_BYTES_TIMEOUT_SECONDS`` is closed;
- ping and pong frames, which the library answers itself (``async for`` never sees them),
  take from the connection's budget like messages, counted as the frame is parsed: over
  the budget they are dropped unanswered, and a client that goes on regardless is failed
  with 1008, the rest of what it sent discarded unparsed;
- nothing is written to a transport that is closing: after a reset, asyncio logs a
  warning for every write (a flood of pongs once wrote tens of thousands of lines);
- every HTTP answer leaves through :func:`server.net.http.finished`.

Its messages are read with :meth:`~server.net.inbox.TextReading.receive`: whole text frames
are read off the socket without the library's frame machinery (:mod:`server.net.inbox`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.server import ServerProtocol

from . import http
from .inbox import TextReading
from .limits import CLOSE_POLICY, FrameBudget, Gate

_CONTROL = (Opcode.PING, Opcode.PONG)
#: After failing a flooder, its close frame has this long to leave before the socket goes.
CLOSE_GRACE = 1.0


class GatedProtocol(ServerProtocol):
    """websockets' server protocol, with control frames counted before they are answered
    and every HTTP answer finished by :func:`~server.net.http.finished`."""

    connection: GatedConnection

    def recv_frame(self, frame: Frame) -> None:
        if (
            frame.opcode in _CONTROL
            and self.state is State.OPEN
            and not self.connection.control_frame()
        ):
            return  # over budget: not answered, not even seen
        super().recv_frame(frame)

    def send_response(self, response: Response) -> None:
        super().send_response(http.finished(self.connection.request, response))


class GatedConnection(TextReading):
    """A connection counted by the :class:`Gate` from accept to close: by its TCP peer
    from accept, and by its client address once its request is read and admitted."""

    gate: Gate  # set on the subclass made for each server (:func:`connection_class`)

    def __init__(self, protocol: ServerProtocol, *args: Any, **kwargs: Any) -> None:
        protocol.__class__ = GatedProtocol  # serve() makes a plain one; no state is added
        assert isinstance(protocol, GatedProtocol)
        protocol.connection = self
        super().__init__(protocol, *args, **kwargs)
        #: The address it was admitted as (None until its request was read and admitted).
        self.client_address: str | None = None
        #: Its frames' budget (from admission on).
        self.budget: FrameBudget | None = None
        self._peer_key: str | None = None
        self._silence: asyncio.TimerHandle | None = None
        self._failed = False

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

    def send_data(self) -> None:
        if self.transport.is_closing():
            self.protocol.data_to_send()  # dropped: the peer is gone or going
            return
        super().send_data()


def connection_class(gate: Gate) -> type[GatedConnection]:
    return type("Connection", (GatedConnection,), {"gate": gate})


__all__ = ["GatedConnection", "GatedProtocol", "connection_class"]
