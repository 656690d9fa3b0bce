"""The grace period before signing in: a connection that has not signed in (``auth`` or
``register``) within ``SIMON_UNAUTHENTICATED_GRACE_SECONDS`` of connecting is sent an
``error`` ``not-authenticated`` and closed (code 1008). Sweeps come in real time (they
close real sockets); what each finds due goes by the injected monotonic clock."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from server.i18n import gettext
from server.protocol import Error, ErrorCode, encode

from .limiters import Monotonic

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

#: Close code of a connection that did not sign in within its grace period (policy).
CLOSE_POLICY = 1008


class SignInGrace:
    """The connections not signed in yet, and the sweep that closes those past ``grace``
    seconds (None: no grace period, nobody is closed)."""

    def __init__(self, grace: float | None, *, monotonic: Monotonic) -> None:
        self._grace = grace
        self._clock = monotonic
        #: Connections not signed in yet, in the order they opened, with when.
        self._unauthenticated: dict[ServerConnection, float] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        #: Connections closed for want of signing in.
        self.expired = 0

    def unauthenticated(self, connection: ServerConnection) -> None:
        if self._grace is not None:
            self._unauthenticated[connection] = self._clock()

    def authenticated(self, connection: ServerConnection) -> None:
        self._unauthenticated.pop(connection, None)

    forget = authenticated

    def sweep(self) -> int:
        """Close the connections that have not signed in within the grace period (each
        gets an ``error`` ``not-authenticated``, then close code 1008); returns how many."""
        grace = self._grace
        if grace is None:
            return 0
        deadline = self._clock() - grace
        expired = []
        for connection, since in self._unauthenticated.items():
            if since > deadline:
                break  # in the order they opened: the rest are younger
            expired.append(connection)
        for connection in expired:
            del self._unauthenticated[connection]
            task = asyncio.create_task(self._expire(connection, grace))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
        self.expired += len(expired)
        return len(expired)

    async def _expire(self, connection: ServerConnection, grace: float) -> None:
        from websockets.exceptions import ConnectionClosed

        message = gettext(
            "sign in (auth or register) within %(seconds)s s of connecting; closing"
        ) % {"seconds": format(grace, "g")}
        try:
            await connection.send(encode(Error(code=ErrorCode.NOT_AUTHENTICATED, message=message)))
            await connection.close(CLOSE_POLICY, "sign in first")
        except ConnectionClosed:
            pass

    def start(self) -> None:
        grace = self._grace
        if grace is not None and self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep_every(min(1.0, grace / 4)))

    async def _sweep_every(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            self.sweep()

    async def close(self) -> None:
        tasks = [task for task in (self._sweeper, *self._closing) if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
