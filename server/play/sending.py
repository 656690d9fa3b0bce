"""What a node sends without waiting: frames to its own followers (a :data:`Push` each), and
to its other nodes through the bus (a :class:`BusSender`: the daily standings' events and the
race rooms' frames go out through one kind of sender).

A sender never blocks whoever hands it an item. Items wait in a bounded queue (past
:data:`MOST_WAITING` the oldest is dropped: a slow bus must not grow a node's memory without
end); a task, started when the first item waits, sends them in order, up to ``batch`` a
round trip, after gathering for ``gather`` seconds unless something hurries it. A batch the
bus refuses is dropped whole and counted, and a failing bus is logged at most once per
:data:`FAILURE_LOG_INTERVAL`, never once per item::

    sender = BusSender(bus.publish_standings, clock, what="race events", batch=200, gather=0.05)
    sender.put(update)          # returns at once
    await sender.flush()        # everything put so far went to the bus, or was dropped
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Final, Generic, TypeVar

from server.bus import BusError
from server.play.clock import Clock

log = logging.getLogger(__name__)

#: A follower: takes an encoded frame; must not block (it queues or drops).
Push = Callable[[str], None]

#: A failing bus is logged at most this often (seconds).
FAILURE_LOG_INTERVAL: Final = 10.0
#: Items waiting for a slow bus; past this many the oldest are dropped.
MOST_WAITING: Final = 10_000

Item = TypeVar("Item")


class BusSender(Generic[Item]):
    """Items to the bus in order, ``batch`` at a time, by ``send``; see the module."""

    def __init__(
        self,
        send: Callable[[list[Item]], Awaitable[None]],
        clock: Clock,
        *,
        what: str,
        batch: int = 1,
        gather: float = 0.0,
    ) -> None:
        self._send = send
        self._clock = clock
        self._what = what
        self._batch = batch
        self._gather = gather
        self._waiting: deque[Item] = deque()
        self._task: asyncio.Task[None] | None = None
        self._hurry = asyncio.Event()  # a flush, or an item that goes at once: no gathering
        #: Items the bus did not take (refused, or pushed out of a full queue).
        self.dropped = 0
        self._logged_at = -FAILURE_LOG_INTERVAL

    def put(self, item: Item, *, hurry: bool = True) -> None:
        """Send ``item`` soon, after those put before it; ``hurry=False`` lets it gather
        with the next ones for up to ``gather`` seconds. Never blocks."""
        if len(self._waiting) >= MOST_WAITING:
            self._waiting.popleft()
            self.dropped += 1
        self._waiting.append(item)
        if hurry:
            self._hurry.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._send_waiting(), name=f"bus-sender ({self._what})"
            )

    async def flush(self) -> None:
        """Wait until everything put so far went to the bus (or was dropped), sending what
        waits at once."""
        while self._task is not None and not self._task.done():
            self._hurry.set()
            await asyncio.shield(self._task)

    def failed(self, error: BusError, what: str) -> None:
        """Log a failure of the bus, at most once per :data:`FAILURE_LOG_INTERVAL` (shared
        with the owner's other calls to the bus)."""
        now = self._clock.monotonic()
        if now - self._logged_at >= FAILURE_LOG_INTERVAL:
            self._logged_at = now
            log.warning("%s: %s", what, error)

    async def _send_waiting(self) -> None:
        waiting = self._waiting
        try:
            while waiting:
                if self._gather and len(waiting) < self._batch and not self._hurry.is_set():
                    with contextlib.suppress(TimeoutError):
                        async with self._clock.timeout(self._gather):
                            await self._hurry.wait()
                batch = [waiting.popleft() for _ in range(min(len(waiting), self._batch))]
                try:
                    await self._send(batch)
                except BusError as error:
                    self.dropped += len(batch)
                    self.failed(error, f"{self._what} dropped ({self.dropped} so far)")
        finally:
            self._hurry.clear()
