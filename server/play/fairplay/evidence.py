"""Fair-play evidence from one finished daily: pure (no I/O, no asyncio, no clock).

Given the game's action log, as ``(action text, server time in ms)`` pairs, its start time,
the solver's solution of the deal and its par, :func:`evidence` measures how the game was
played, and :func:`held_reasons` says why a result should be held for review (people
judge; nothing here refuses a result). The thresholds are never told to players.

Actions are move texts (``3-7x2``), ``undo``, ``restart`` and ``resign``: the player's
decisions. Anything else in the log (an end marker such as ``won``) is the server's entry,
not a decision, and is left out.

**Think times** are the gaps before each decision: from the start to the first, then
between consecutive ones. **Agreement** compares the player's *final line* (the moves that
stand at the end: an undo takes back the last move, a restart clears the line) with the
solver's solution: the length of their longest common subsequence over the solution's
length. Why this measure: undo noise and detours inserted to dodge a prefix test leave it
almost unchanged (a subsequence survives insertions), playing extra moves cannot lower it,
and a person who wins by their own path shares only scattered moves with the solver's line,
while anyone replaying that line scores 1.0 whatever their timing.

>>> log = [("1-2", 3_000), ("undo", 5_500), ("3-4", 9_000), ("won", 9_000)]
>>> found = evidence(log, started_ms=0, solution=["3-4"], par=1)
>>> found.decisions, found.undos, found.median_think, found.agreement, found.moves_over_par
(3, 1, 3.0, 1.0, 0)
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from server.engine import Game, IllegalMoveError, InvalidMoveError, Move
from server.engine.actions import RESIGN, RESTART, UNDO

from .difficulty import think_follow

#: Seconds: a think time under this is faster than people decide.
HUMAN_FLOOR: Final = 0.5

#: One entry of an action log: its text, and when the server accepted it (ms since 1970).
LoggedAction = tuple[str, int]


@dataclass(frozen=True, slots=True)
class Evidence:
    """How one game was played."""

    decisions: int  # moves, undos, restarts and the resign
    moves: int  # moves played, also those taken back later
    undos: int
    restarts: int
    median_think: float  # seconds; 0.0 with no decision
    fast_share: float  # share of think times under the human floor
    flatness: float  # coefficient of variation of think times (stdev / mean): low is flat
    total_seconds: float  # from the start to the last decision
    agreement: float  # LCS(final line, solution) / len(solution): 0.0 to 1.0
    final_moves: int  # the moves that stand at the end
    moves_over_par: int | None  # final_moves - par; None when par is unknown
    #: How the think times follow the position's difficulty (server/play/fairplay/difficulty.py):
    #: Spearman's correlation over ``follow_moves`` moves; None when not measured.
    think_follow: float | None = None
    follow_moves: int = 0
    #: The final line with its loops cut (a stretch of moves that comes back to a position
    #: already seen changes nothing): the moves that made progress; None without the deal.
    net_moves: int | None = None
    net_over_par: int | None = None  # net_moves - par


@dataclass(frozen=True, slots=True)
class Thresholds:
    """When a result is held. Timing rules apply from ``min_decisions`` decisions on (a
    short game says little about its timing); agreement applies to any game."""

    human_floor: float = HUMAN_FLOOR
    max_fast_share: float = 0.25  # a person's fast think times (obvious follow-ups)
    min_median_think: float = 0.8  # seconds
    min_flatness: float = 0.35  # human think times spread wide (CV near 1 or more)
    min_seconds_per_move: float = 1.0  # the whole game against a floor per final move
    max_agreement: float = 0.9  # share of the solver's line replayed (people: under 0.9)
    min_decisions: int = 10
    #: A human account's dailies count on the public board once it has finished dailies
    #: on this many earlier days; before that they go on the new players' board (0: off).
    new_account_days: int = 2
    #: ... and once its think times follow difficulty this surely (server/play/daily/newcomers.py;
    #: 0: the days alone decide).
    new_account_follow_z: float = 3.0
    #: An account's evidence across days (server/play/fairplay/trust.py): from this suspicion on,
    #: its results are held: those in the first ``top_rank`` of a board, or beating
    #: ``top_share`` of it; with the default share of 0, every one (a padded line's wasted
    #: moves are what lower its place, so its place says little).
    max_suspicion: float = 1.0
    top_rank: int = 10
    top_share: float = 0.0
    near_par: float = 0.1  # wins on 2 and 4 suits this close to par, as a share of par
    min_loops: float = 0.035  # a padded line: its standing moves that went round in loops
    min_think_follow: float = 0.08  # how think times follow difficulty, across days
    follow_moves: int = 150  # ... counted from this many moves on


def evidence(
    log: Sequence[LoggedAction],
    *,
    started_ms: int,
    solution: Sequence[str],
    par: int | None,
    thresholds: Thresholds | None = None,
    code: str | None = None,
) -> Evidence:
    """Measure one game; see the module's docstring for the definitions (``thresholds``
    gives the human floor of ``fast_share``; with the deal's ``code``, how the think times
    follow the difficulty of each position is measured too)."""
    human_floor = (thresholds or Thresholds()).human_floor
    decisions = [(text, at) for text, at in log if _is_decision(text)]
    thinks = []
    previous = started_ms
    for _, at in decisions:
        thinks.append(max(0, at - previous) / 1000)  # clocks never run back; guard anyway
        previous = max(previous, at)
    line: list[str] = []
    for text, _ in decisions:
        if text == UNDO:
            if line:
                line.pop()
        elif text == RESTART:
            line.clear()
        elif text != RESIGN:
            line.append(text)
    count = _count(decisions)
    net = None if code is None else net_length(code, line)
    follow, follow_moves = (
        think_follow(
            code, [(text, think) for (text, _), think in zip(decisions, thinks, strict=True)]
        )
        if code is not None
        else (None, 0)
    )
    return Evidence(
        decisions=len(decisions),
        moves=count[None],
        undos=count[UNDO],
        restarts=count[RESTART],
        median_think=statistics.median(thinks) if thinks else 0.0,
        fast_share=sum(t < human_floor for t in thinks) / len(thinks) if thinks else 0.0,
        flatness=_variation(thinks),
        total_seconds=(previous - started_ms) / 1000 if decisions else 0.0,
        agreement=_lcs(line, solution) / len(solution) if solution else 0.0,
        final_moves=len(line),
        moves_over_par=None if par is None else len(line) - par,
        think_follow=None if follow is None else round(follow, 4),
        follow_moves=follow_moves,
        net_moves=net,
        net_over_par=None if par is None or net is None else net - par,
    )


def held_reasons(found: Evidence, thresholds: Thresholds | None = None) -> list[str]:
    """Why a result should be held for review; an empty list: it stands. Give the same
    thresholds as to :func:`evidence`."""
    thresholds = thresholds or Thresholds()
    reasons = []
    if found.agreement >= thresholds.max_agreement:
        reasons.append(f"replays {found.agreement:.0%} of the solver's line")
    if found.decisions >= thresholds.min_decisions:
        if found.median_think < thresholds.min_median_think:
            reasons.append(f"median think time {found.median_think:.2f} s")
        if found.fast_share > thresholds.max_fast_share:
            reasons.append(
                f"{found.fast_share:.0%} of think times under {thresholds.human_floor:g} s"
            )
        if found.flatness < thresholds.min_flatness:
            reasons.append(f"flat think times (variation {found.flatness:.2f})")
        floor = thresholds.min_seconds_per_move * found.final_moves
        if found.total_seconds < floor:
            reasons.append(f"{found.final_moves} moves in {found.total_seconds:.1f} s")
    return reasons


def judge(
    log: Sequence[LoggedAction],
    started_ms: int,
    solution: Sequence[str],
    par: int | None,
    thresholds: Thresholds,
    code: str | None,
) -> tuple[Evidence, list[str]]:
    """:func:`evidence` and :func:`held_reasons` in one call, its arguments positional: what
    the screening hands its worker (a top-level function, pickled there), as the work grows
    with the game's log (server/play/fairplay/screening.py)."""
    found = evidence(
        log, started_ms=started_ms, solution=solution, par=par, thresholds=thresholds, code=code
    )
    return found, held_reasons(found, thresholds)


def net_length(code: str, line: Sequence[str]) -> int | None:
    """The length of ``line`` (moves that stand, from the deal ``code``) with every loop cut:
    when a position comes back, the moves since its first visit are dropped. A move and its
    way back, or a detour that returns, count for nothing; None if the line does not replay
    (never for a stored log)."""
    game = Game.from_code(code)
    first_seen = {game.position_key(): 0}
    path = 0  # moves on the loop-free path to the current position
    for text in line:
        try:
            game.play(text)
        except (InvalidMoveError, IllegalMoveError):
            return None
        key = game.position_key()
        if key in first_seen:
            path = first_seen[key]
            # positions reached inside the loop are off the path now
            for stale in [k for k, at in first_seen.items() if at > path]:
                del first_seen[stale]
        else:
            path += 1
            first_seen[key] = path
    return path


def _is_decision(text: str) -> bool:
    if text in (UNDO, RESTART, RESIGN):
        return True
    try:
        Move.from_text(text)
    except InvalidMoveError:
        return False  # the server's own entry (the end of the game)
    return True


def _count(decisions: Sequence[LoggedAction]) -> dict[str | None, int]:
    """Decisions by kind; moves under None."""
    counts: dict[str | None, int] = {None: 0, UNDO: 0, RESTART: 0, RESIGN: 0}
    for text, _ in decisions:
        counts[text if text in counts else None] += 1
    return counts


def _variation(values: Sequence[float]) -> float:
    """stdev / mean; 0.0 (perfectly flat) with fewer than two values or a zero mean."""
    if len(values) < 2:
        return 0.0
    mean = statistics.fmean(values)
    return statistics.pstdev(values) / mean if mean > 0 else 0.0


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    """The length of the longest common subsequence (one row of the usual table)."""
    if len(a) < len(b):
        a, b = b, a
    row = [0] * (len(b) + 1)
    for x in a:
        diagonal = 0
        for j, y in enumerate(b, start=1):
            above = row[j]
            row[j] = diagonal + 1 if x == y else max(row[j], row[j - 1])
            diagonal = above
    return row[-1]


__all__ = [
    "Evidence",
    "LoggedAction",
    "Thresholds",
    "evidence",
    "held_reasons",
    "judge",
    "net_length",
]
