"""The server's clock, injectable so tests can move time without sleeping.

A clock tells the wall time (days, timestamps), a monotonic time (intervals, throttles),
runs callbacks later, sleeps and bounds a wait; :class:`ManualClock` does all of it only
when told to move.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, date, datetime, timedelta
from typing import Protocol


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...

    def monotonic(self) -> float:
        """Seconds on a clock that never goes back, for intervals."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` once, ``delay`` seconds from now (on the event loop)."""
        ...

    async def sleep(self, delay: float) -> None:
        """Return ``delay`` seconds from now."""
        ...

    def timeout(self, delay: float) -> contextlib.AbstractAsyncContextManager[object]:
        """A block that raises :class:`TimeoutError` once it ran ``delay`` seconds."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(delay, callback)

    async def sleep(self, delay: float) -> None:
        await asyncio.sleep(delay)

    def timeout(self, delay: float) -> contextlib.AbstractAsyncContextManager[object]:
        return asyncio.timeout(delay)


class _ManualTimer:
    __slots__ = ("callback", "cancelled")

    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualClock:
    """A clock that moves only when told: ``clock.advance(hours=25)`` moves the wall and
    the monotonic time together and runs the timers that fall due on the way.

    With ``real_intervals`` only the wall time is the test's: intervals and timers run on
    the system's clock (a real server in a test that moves days, whose throttles and
    digests must still go out by themselves).
    """

    def __init__(self, start: datetime | None = None, *, real_intervals: bool = False) -> None:
        self._now = start or datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
        self._monotonic = 0.0
        self._timers: list[tuple[float, int, _ManualTimer]] = []
        self._order = itertools.count()
        self._system = SystemClock() if real_intervals else None

    def now(self) -> datetime:
        return self._now

    def monotonic(self) -> float:
        if self._system is not None:
            return self._system.monotonic()
        return self._monotonic

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        if self._system is not None:
            return self._system.call_later(delay, callback)
        timer = _ManualTimer(callback)
        heapq.heappush(self._timers, (self._monotonic + delay, next(self._order), timer))
        return timer

    async def sleep(self, delay: float) -> None:
        if self._system is not None or delay <= 0:
            return await asyncio.sleep(delay)
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not woken.done():
                woken.set_result(None)

        timer = self.call_later(delay, wake)
        try:
            await woken
        finally:
            timer.cancel()

    def timeout(self, delay: float) -> contextlib.AbstractAsyncContextManager[object]:
        if self._system is not None:
            return self._system.timeout(delay)
        return self._timeout(delay)

    @contextlib.asynccontextmanager
    async def _timeout(self, delay: float) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(None) as bound:

            def due() -> None:  # this clock passed the deadline: the bound falls due at once
                if bound.expired() or bound.when() is not None:
                    return
                bound.reschedule(loop.time())

            timer = self.call_later(delay, due)
            if delay <= 0:
                due()
            try:
                yield
            finally:
                timer.cancel()

    def set(self, moment: datetime) -> None:
        """Set the wall time (the monotonic time and timers stay where they are)."""
        self._now = moment

    def advance(self, **delta: float) -> None:
        step = timedelta(**delta)
        self._now += step
        self._monotonic += step.total_seconds()
        while self._timers and self._timers[0][0] <= self._monotonic:
            _, _, timer = heapq.heappop(self._timers)
            if not timer.cancelled:
                timer.callback()


def utc_day(moment: datetime) -> date:
    return moment.astimezone(UTC).date()


def day_end(day: date) -> datetime:
    """The instant a UTC day ends (the next day's midnight): from then on its daily is over."""
    return datetime.combine(day + timedelta(days=1), datetime.min.time(), UTC)


def seconds_to_next_day(moment: datetime) -> float:
    moment = moment.astimezone(UTC)
    return (day_end(moment.date()) - moment).total_seconds()
