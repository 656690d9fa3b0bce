"""The server's clock, injectable so tests can move days without sleeping."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class ManualClock:
    """A clock that moves only when told: ``clock.advance(hours=25)``."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def now(self) -> datetime:
        return self._now

    def set(self, moment: datetime) -> None:
        self._now = moment

    def advance(self, **delta: float) -> None:
        self._now += timedelta(**delta)


def utc_day(moment: datetime) -> date:
    return moment.astimezone(UTC).date()


def seconds_to_next_day(moment: datetime) -> float:
    moment = moment.astimezone(UTC)
    midnight = datetime.combine(moment.date() + timedelta(days=1), datetime.min.time(), UTC)
    return (midnight - moment).total_seconds()
