"""How hard a position's choice is, and whether a player's think times follow it. Pure: the
engine only (no I/O, no clock).

**The measure of difficulty** is :func:`choices`: the number of *constructive* moves a
position offers, the moves a player has to weigh against each other. A move counts when it
takes a column's whole movable group onto a card one rank higher (a build that tears no run
apart), and moving a group into an empty column counts once, however many groups could go
there (people do not tell empty columns apart). A forced follow-up (one build on the board)
counts 1; an open middle game with five builds and a free column counts 6. It reads the
position only, never the move played, so the same measure applies to any line.

**Following difficulty**: :func:`think_follow` replays a game's decisions and correlates
the think time before each move with the choices of the position it was made in (Spearman's
rank correlation, robust to pauses and to each player's own pace). People pause where the
choice is hard and rush forced runs, so theirs is positive; a line replayed at a paced
rhythm, whatever its jitter, is near 0. One game is a noisy sample; across days an account's
games are pooled (:func:`pooled`).

>>> from server.engine import Game
>>> choices(Game.from_code("SS1-S1-AAAAABD")) > 0
True
>>> follow, counted = think_follow("SS1-S1-AAAAABD", [])
>>> follow is None and counted == 0
True
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Final

from server.engine import Game, IllegalMoveError, InvalidMoveError, Move, rank
from server.engine.actions import RESIGN, RESTART, UNDO

#: Fewer timed moves than this give no correlation (None).
MIN_MOVES: Final = 8


def choices(game: Game) -> int:
    """The constructive moves of the position (see the module's docstring)."""
    columns = game.columns
    builds = 0
    to_empty = False
    for source, column in enumerate(columns):
        if not column:
            continue
        run = game.movable_count(source)
        head = column[-run]
        for target, destination in enumerate(columns):
            if target == source:
                continue
            if not destination:
                to_empty = to_empty or run < len(column)  # a whole column moved changes nothing
            elif rank(destination[-1]) == rank(head) + 1:
                builds += 1
    return builds + to_empty


def think_follow(code: str, decisions: Sequence[tuple[str, float]]) -> tuple[float | None, int]:
    """Spearman's correlation between the think time before each move (after the first) and
    the :func:`choices` of the position it was played in, and how many moves it counts;
    ``decisions`` are ``(action, think seconds)`` in order (moves, undo, restart, resign).
    None with fewer than :data:`MIN_MOVES` moves or a constant series."""
    game = Game.from_code(code)
    hard: list[float] = []
    thinks: list[float] = []
    for index, (action, think) in enumerate(decisions):
        if action == UNDO:
            if game.can_undo:
                game.undo()
            continue
        if action == RESTART:
            game.restart()
            continue
        if action == RESIGN:
            break
        try:
            move = Move.from_text(action)
            count = choices(game)
            game.push(move)
        except (InvalidMoveError, IllegalMoveError):
            break  # never in a stored log; the measure stops rather than guess
        if index > 0:  # the first look at the deal is reading, not choosing
            hard.append(count)
            thinks.append(think)
    if len(thinks) < MIN_MOVES:
        return None, len(thinks)
    return spearman(hard, thinks), len(thinks)


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's rank correlation (ties share their mean rank); None for a constant
    series or fewer than three pairs."""
    if len(xs) != len(ys) or len(xs) < 3:
        return None
    try:
        return statistics.correlation(_ranks(xs), _ranks(ys))
    except statistics.StatisticsError:
        return None


def pooled(follows: Sequence[tuple[float, int]]) -> tuple[float | None, int]:
    """Per-game correlations ``(r, n)`` pooled across games: the mean of their Fisher
    transforms weighted by ``n - 3``, transformed back; and the moves counted."""
    weighted, total = _fisher_sum(follows)
    if total <= 0:
        return None, 0
    return math.tanh(weighted / total), sum(n for _, n in follows)


def follow_z(follows: Sequence[tuple[float, int]]) -> float | None:
    """How far the pooled correlation of per-game ``(r, n)`` stands from none, in standard
    errors: the weighted sum of Fisher transforms over the square root of the weights (a
    transform's standard error is ``1 / sqrt(n - 3)``). Large and positive: the think times
    follow difficulty beyond doubt; near 0: no sign that they do. None with nothing counted."""
    weighted, total = _fisher_sum(follows)
    return None if total <= 0 else weighted / math.sqrt(total)


def _fisher_sum(follows: Sequence[tuple[float, int]]) -> tuple[float, int]:
    """The Fisher transforms of per-game ``(r, n)`` summed with weights ``n - 3`` (games of
    3 moves or fewer left out), and the sum of those weights."""
    clamp = 0.999999
    weights = [(math.atanh(max(-clamp, min(clamp, r))), n - 3) for r, n in follows if n > 3]
    return sum(z * w for z, w in weights), sum(w for _, w in weights)


def _ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for position in range(start, end + 1):
            ranks[order[position]] = (start + end) / 2
        start = end + 1
    return ranks


__all__ = ["choices", "follow_z", "pooled", "spearman", "think_follow"]
