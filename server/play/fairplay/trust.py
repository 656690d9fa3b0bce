"""An account's fair-play evidence across days: pure (no I/O, no clock).

One game says little about a strong player against another solver played at a person's
pace; an account's days say more. Each screened daily of a human account gives a
:class:`Daily` (where it stood on its board, a win's moves against par, the undo and restart
habits, how its think times followed the positions' difficulty); :func:`account_trust`
weighs them into a **suspicion** with its reasons:

- **a sudden jump**: today in the top tenth of its board while the account's earlier days
  sat in the middle (their median at most the 60th percentile);
- **suddenly near par**: today's win much closer to par than the account's earlier wins
  (under half their median excess over par, and 10 points of par closer at least);
- **habits dropped**: the account tried and took back moves (undo, restart) on earlier days
  and today does it less than a quarter as often;
- **steadily near par on 2 and 4 suits**: its wins there within a few percent of par, again
  and again (people leave more on the table on the harder deals);
- **a padded line**: a win with at least ``Thresholds.min_loops`` of its standing moves
  going round in loops (moves that came back to a position already reached: a move and its
  way back, a detour that returns), whose line with those loops cut stands within
  ``Thresholds.near_par`` of par, or clearly closer to par than the account's own wins
  usually do (:data:`PADDED_MARGIN` of par at least). Someone who knows a line that good has
  no reason to walk in circles around it; someone hiding a solver's line behind wasted moves
  does. It weighs as much as the threshold alone, and so do padded lines on two of the
  account's days within :data:`PADDED_DAYS`, on the days after too (its later results are
  held, whatever the line of the day);
- **think times that ignore difficulty**: across the account's games, the time before a move
  does not grow with the number of constructive choices of its position (people pause where
  the choice is hard and rush forced runs; a line replayed at a paced rhythm does not). From
  ``Thresholds.follow_moves`` moves on it counts; from twice as many, where one account's
  correlation is measured twice as closely, it weighs as much as the threshold alone.

Each signal adds its weight (:data:`WEIGHTS`); from ``Thresholds.max_suspicion`` on, the
account's results (the first ``Thresholds.top_rank`` of their board, or those beating
``Thresholds.top_share`` of it: by default all) are held for review, as one game's
evidence holds them. The suspicion is recomputed each time one of the
account's dailies is screened, from its whole history, so it can fall again.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Final

from .difficulty import follow_z, pooled
from .evidence import Thresholds

#: Each signal's share of the suspicion.
WEIGHTS: Final[dict[str, float]] = {
    "jump": 0.6,
    "closer to par": 0.3,
    "habits dropped": 0.3,
    "near par": 0.6,
    "ignores difficulty": 0.6,
    "ignores difficulty, long": 1.0,  # from twice ``follow_moves`` moves on
    "padded": 1.0,
    "padded, again": 1.0,  # two padded days within PADDED_DAYS, today's line whatever it is
}
#: A padded line's loop-free excess over par, this much under the account's usual at least.
PADDED_MARGIN: Final = 0.05
#: How many days back padded lines are counted together.
PADDED_DAYS: Final = 7
#: The top tenth of a board, and the middle the account came from.
TOP: Final = 0.9
MIDDLE: Final = 0.6
#: A board with fewer other results gives no percentile.
MIN_BOARD: Final = 9


@dataclass(frozen=True, slots=True)
class Daily:
    """One screened daily of the account."""

    day: date
    suits: int
    won: bool
    percentile: float | None  # the share of its board it beat: 1.0 the top; None: too few
    over_par: float | None  # a win's final moves over par, as a share of par
    moves: int  # moves played, also those taken back
    undos: int
    restarts: int
    think_follow: float | None = None
    follow_moves: int = 0
    net_over_par: float | None = None  # the same with the line's loops cut
    loop_share: float | None = None  # a win's standing moves that went round in loops


@dataclass(frozen=True, slots=True)
class Trust:
    suspicion: float
    reasons: list[str]
    evidence: dict[str, Any] = field(default_factory=dict)


def percentile(rank: int, others: int) -> float | None:
    """The share of a board's other results that a result at ``rank`` beats; None on a
    board of fewer than :data:`MIN_BOARD` others."""
    if others < MIN_BOARD:
        return None
    return round((others - (rank - 1)) / others, 4)


def is_top(rank: int, others: int, thresholds: Thresholds) -> bool:
    """A result the account-level hold applies to: in the first ``top_rank`` of its board,
    or beating at least ``top_share`` of it."""
    share = percentile(rank, others)
    return rank <= thresholds.top_rank or (share is not None and share >= thresholds.top_share)


def is_padded(daily: Daily, earlier: Sequence[Daily], thresholds: Thresholds) -> bool:
    """A win with ``min_loops`` of its moves in loops at least, whose loop-free line is near
    par or clearly better than the ``earlier`` wins of its suit count (the median of their
    loop-free lines, from two of them on)."""
    if not daily.won or daily.net_over_par is None or daily.loop_share is None:
        return False
    if daily.loop_share < thresholds.min_loops:
        return False
    if daily.net_over_par <= thresholds.near_par:
        return True
    usual = [
        d.net_over_par
        for d in earlier
        if d.won and d.suits == daily.suits and d.net_over_par is not None
    ]
    return len(usual) >= 2 and daily.net_over_par <= statistics.median(usual) - PADDED_MARGIN


def follows_of(dailies: Sequence[Daily]) -> list[tuple[float, int]]:
    """The dailies' think-time correlations with difficulty, ``(r, moves)``, where measured."""
    return [(d.think_follow, d.follow_moves) for d in dailies if d.think_follow is not None]


def account_trust(dailies: Sequence[Daily], thresholds: Thresholds) -> Trust:
    """Weigh an account's dailies (oldest first; the last is the one just screened)."""
    reasons: list[str] = []
    signals: list[str] = []
    if not dailies:
        return Trust(0.0, [])
    latest, earlier = dailies[-1], dailies[:-1]

    def signal(name: str, reason: str) -> None:
        signals.append(name)
        reasons.append(reason)

    before = [d.percentile for d in earlier if d.percentile is not None]
    if latest.percentile is not None and latest.percentile >= TOP and len(before) >= 2:
        middle = statistics.median(before)
        if middle <= MIDDLE:
            signal(
                "jump",
                f"jumped to the top ({latest.percentile:.0%}) from the middle "
                f"(median {middle:.0%} over {len(before)} days)",
            )
    if latest.won and latest.over_par is not None:
        past = [
            d.over_par
            for d in earlier
            if d.won and d.over_par is not None and d.suits == latest.suits
        ]
        usual = statistics.median(past) if len(past) >= 2 else 0.0
        if usual - latest.over_par >= 0.1 and latest.over_par < usual / 2:
            signal(
                "closer to par",
                f"{latest.over_par:.0%} over par against a usual {usual:.0%}",
            )
    rates = [(d.undos + d.restarts) / d.moves for d in earlier if d.moves]
    if len(rates) >= 2 and latest.moves and statistics.median(rates) >= 0.05:
        now = (latest.undos + latest.restarts) / latest.moves
        if now < statistics.median(rates) / 4:
            signal(
                "habits dropped",
                f"undoes {now:.1%} of its moves against a usual {statistics.median(rates):.1%}",
            )
    padded = [
        daily
        for index, daily in enumerate(dailies)
        if (latest.day - daily.day).days < PADDED_DAYS
        and is_padded(daily, dailies[:index], thresholds)
    ]
    if padded and padded[-1] is latest:
        signal(
            "padded",
            f"{latest.loop_share:.0%} of its moves going round in loops, around a line "
            f"{latest.net_over_par:.0%} over par once they are cut",
        )
    elif len(padded) >= 2:
        signal("padded, again", f"padded lines on {len(padded)} days of the last {PADDED_DAYS}")
    hard = [d.over_par for d in dailies if d.won and d.suits >= 2 and d.over_par is not None]
    if len(hard) >= 2 and statistics.median(hard) <= thresholds.near_par:
        signal(
            "near par",
            f"{len(hard)} wins on 2 and 4 suits at a median {statistics.median(hard):.0%} over par",
        )
    follows = follows_of(dailies)
    follow, moves = pooled(follows)
    sureness = follow_z(follows)
    if (
        follow is not None
        and moves >= thresholds.follow_moves
        and follow < thresholds.min_think_follow
    ):
        signal(
            "ignores difficulty"
            if moves < 2 * thresholds.follow_moves
            else "ignores difficulty, long",
            f"think times do not follow difficulty ({follow:.2f} over {moves} moves)",
        )
    suspicion = round(sum(WEIGHTS[name] for name in signals), 3)
    evidence: dict[str, Any] = {
        "days": len({d.day for d in dailies}),
        "percentiles": [[d.day.isoformat(), d.percentile] for d in dailies],
        "over_par": {
            str(suits): [
                round(d.over_par, 3) for d in dailies if d.suits == suits and d.over_par is not None
            ]
            for suits in sorted({d.suits for d in dailies})
        },
        "loop_share": [
            [d.day.isoformat(), None if d.loop_share is None else round(d.loop_share, 3)]
            for d in dailies
        ],
        "undo_rate": round(
            sum(d.undos + d.restarts for d in dailies) / max(1, sum(d.moves for d in dailies)), 4
        ),
        "think_follow": None if follow is None else round(follow, 3),
        "follow_moves": moves,
        "follow_z": None if sureness is None else round(sureness, 2),
        "signals": signals,
    }
    return Trust(suspicion, reasons, evidence)


__all__ = ["WEIGHTS", "Daily", "Trust", "account_trust", "follows_of", "is_top", "percentile"]
