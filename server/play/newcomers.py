"""The new players' board: when a human account's dailies start to count on the public one.

A human account's daily goes on the public board of its day once the account has finished
dailies on ``needed`` earlier days (``SIMON_FAIRPLAY__NEW_ACCOUNT_DAYS``; 0 turns the gate
off); before that, on the new players' board of the day, in the same order and with the same
screening. A result stays on the board it was placed on (its screening decides it, once);
the account's later days count on the public board by themselves. Pure: no I/O, no clock.

>>> from datetime import date
>>> first = date(2026, 3, 1)
>>> is_newcomer(days_before=0, needed=2), is_newcomer(days_before=2, needed=2)
(True, False)
>>> counts_from([first], today=first, needed=2)
datetime.date(2026, 3, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

_DAY = timedelta(days=1)


def is_newcomer(*, days_before: int, needed: int) -> bool:
    """Whether a daily goes on the new players' board: its account finished dailies on
    ``days_before`` earlier days, fewer than ``needed``."""
    return days_before < needed


def counts_from(days: Sequence[date], *, today: date, needed: int) -> date | None:
    """The first day whose dailies count on the public board for an account that finished
    dailies on ``days`` (any order, repeats allowed): after its ``needed``-th day; for an
    account still short of it, at the earliest, finishing a daily each day from ``today``
    on. None when every day counts (the gate is off)."""
    if needed <= 0:
        return None
    distinct = sorted(set(days))
    if len(distinct) >= needed:
        return distinct[needed - 1] + _DAY
    first = today + _DAY if today in distinct else today
    return first + (needed - len(distinct)) * _DAY


__all__ = ["counts_from", "is_newcomer"]
