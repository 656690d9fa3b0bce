"""The new players' board: when a human account's dailies start to count on the public one.

A human account's daily goes on the public board of its day once the account has finished
dailies on ``needed`` earlier days (``SIMON_FAIRPLAY__NEW_ACCOUNT_DAYS``; 0 turns the gate
off) **and** its think times have shown, over its games so far, that they follow how hard
its positions were (:func:`server.play.fairplay.difficulty.follow_z` at least ``follow_z``,
``SIMON_FAIRPLAY__NEW_ACCOUNT_FOLLOW_Z``; 0 leaves the days alone to decide). People pause
where the choice is hard and rush forced runs, and a handful of games shows it beyond
doubt; another solver's line replayed at a person's pace shows nothing of the kind, however
long it plays, so it stays on the new players' board, away from the public one. Before
that, a daily goes on the new players' board of its day, in the same order and with the same
screening. A result stays on the board it was placed on (its screening decides it, once);
the account's later days count on the public board by themselves. Pure: no I/O, no clock.

>>> from datetime import date
>>> first = date(2026, 3, 1)
>>> is_newcomer(days_before=0, needed=2), is_newcomer(days_before=2, needed=2)
(True, False)
>>> is_newcomer(days_before=2, needed=2, follow_z=1.0, needed_z=2.5)
True
>>> counts_from([first], today=first, needed=2)
datetime.date(2026, 3, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, timedelta

_DAY = timedelta(days=1)


def is_newcomer(
    *, days_before: int, needed: int, follow_z: float | None = None, needed_z: float = 0.0
) -> bool:
    """Whether a daily goes on the new players' board: its account finished dailies on
    ``days_before`` earlier days, fewer than ``needed``; or, with the gate on (``needed``
    above 0) and ``needed_z`` above 0, its think times have not yet shown that they follow
    difficulty (``follow_z``, this daily's game included, under ``needed_z``; None: not
    measured)."""
    if needed <= 0:
        return False
    if days_before < needed:
        return True
    return needed_z > 0 and (follow_z is None or follow_z < needed_z)


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
