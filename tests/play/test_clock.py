"""The manual clock moves wall time, monotonic time and timers together."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime

import pytest

from server.play.clock import ManualClock, SystemClock, seconds_to_next_day, utc_day


def test_advance_moves_both_times_and_fires_due_timers_in_order() -> None:
    clock = ManualClock(datetime(2026, 3, 1, 23, 59, 59, tzinfo=UTC))
    fired: list[str] = []
    clock.call_later(2.0, lambda: fired.append("late"))
    clock.call_later(1.0, lambda: fired.append("early"))
    cancelled = clock.call_later(0.5, lambda: fired.append("cancelled"))
    cancelled.cancel()
    clock.advance(seconds=0.9)
    assert fired == [] and clock.monotonic() == 0.9
    clock.advance(seconds=1.1)
    assert fired == ["early", "late"]
    assert utc_day(clock.now()).isoformat() == "2026-03-02"


def test_seconds_to_next_day() -> None:
    assert seconds_to_next_day(datetime(2026, 3, 1, 23, 59, 0, tzinfo=UTC)) == 60.0


async def test_a_sleeper_wakes_when_the_clock_passes_its_time_and_not_before() -> None:
    clock = ManualClock()
    sleeper = asyncio.ensure_future(clock.sleep(5.0))
    await asyncio.sleep(0)
    clock.advance(seconds=4.9)
    await asyncio.sleep(0)
    assert not sleeper.done()
    clock.advance(seconds=0.1)
    await asyncio.sleep(0)
    assert sleeper.done() and sleeper.exception() is None


async def test_a_cancelled_sleeper_leaves_no_timer_behind() -> None:
    clock = ManualClock()
    sleeper = asyncio.ensure_future(clock.sleep(1.0))
    await asyncio.sleep(0)
    sleeper.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await sleeper
    clock.advance(seconds=2)  # its timer, cancelled, wakes nothing
    assert sleeper.cancelled()


async def test_a_timeout_falls_due_when_the_clock_passes_it() -> None:
    clock = ManualClock()
    never = asyncio.Event()

    async def bounded() -> None:
        async with clock.timeout(3.0):
            await never.wait()

    waiter = asyncio.ensure_future(bounded())
    await asyncio.sleep(0)
    clock.advance(seconds=2.9)
    await asyncio.sleep(0)
    assert not waiter.done()
    clock.advance(seconds=0.1)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(waiter, 5)


async def test_a_block_done_in_time_is_not_cut_short_later() -> None:
    clock = ManualClock()
    async with clock.timeout(1.0):
        await asyncio.sleep(0)
    clock.advance(seconds=2)
    await asyncio.sleep(0)  # the bound's timer is gone: nothing is cancelled here
    assert clock.monotonic() == 2.0


async def test_the_system_clock_sleeps_and_times_out_on_the_event_loop() -> None:
    clock = SystemClock()
    await clock.sleep(0)
    with pytest.raises(TimeoutError):
        async with clock.timeout(0):
            await asyncio.Event().wait()


async def test_a_wait_of_no_time_on_a_manual_clock_needs_no_advance() -> None:
    clock = ManualClock()
    await asyncio.wait_for(clock.sleep(0), 5)
    with pytest.raises(TimeoutError):
        async with clock.timeout(0):
            await asyncio.Event().wait()
