"""The manual clock moves wall time, monotonic time and timers together."""

from __future__ import annotations

from datetime import UTC, datetime

from server.play.clock import ManualClock, seconds_to_next_day, utc_day


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
