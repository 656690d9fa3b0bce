"""The solver's public face: :func:`solve` a :class:`~server.engine.Game`, get a :class:`Solution`.

It runs in three steps on the compact state of :mod:`server.solver.search`:

1. quick weighted A* searches with a few heuristics to find any solution,
   then a long one that explores every reachable state and so proves there is
   none;
2. beam searches (one per heuristic), each cut at the best length known so
   far: breadth first, so the depth of a win is its length;
3. a shortcut pass: from each state of the solution, every position one move
   away is compared with the later states of the solution, and detours are cut.

Every move returned has been replayed with the engine before it is handed out.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from server.engine import Game, Move

from .search import (
    Columns,
    Costs,
    RawMove,
    SearchOutcome,
    beam,
    breaks,
    canonical,
    children,
    search,
)

#: Default budget: enough for about 99% of random 4-suit deals (docs/performance.md),
#: a few seconds of one core and a few hundred MB at most.
DEFAULT_MAX_NODES: Final = 400_000
DEFAULT_MAX_SECONDS: Final = 30.0


class Verdict(Enum):
    WINNABLE = "winnable"
    UNWINNABLE = "unwinnable"  # proven: every reachable state was explored
    UNKNOWN = "unknown"  # the budget ran out first


@dataclass
class Solution:
    verdict: Verdict
    moves: list[Move] = field(default_factory=list)  # counts explicit; empty unless WINNABLE
    nodes: int = 0  # states expanded, over all steps
    seconds: float = 0.0

    @property
    def solvable(self) -> bool | None:
        """True, False, or None for unknown (the ``--json`` field of ``simon solve``)."""
        return {Verdict.WINNABLE: True, Verdict.UNWINNABLE: False}.get(self.verdict)


# (costs, weight, nodes): quick tries, each finding most solutions in a few
# thousand nodes (and proving small spaces empty); different heuristics get
# stuck on different deals, so several are tried before the long search.
_QUICK: Final = (
    (Costs(1, 1, 1, 1), 1.5, 15_000),
    (Costs(2, 3, 2, 2), 0.5, 15_000),
    (Costs(1, 3, 3, 2), 1.0, 10_000),
    (Costs(2, 3, 3), 1.0, 10_000),
)
# The long search, given the rest of the budget: it explores every reachable
# state when there is no win, which proves the deal unwinnable.
_LONG: Final = (Costs(1, 2, 2), 1.0)
# (costs, width): beam searches, each cut at the best length so far; they find
# shorter paths than weighted A* cut at the same length, for the same work, and different
# heuristics win on different deals.
_BEAMS: Final = (
    (Costs(1, 1, 1, 1), 200),
    (Costs(2, 3, 2, 2), 200),
    (Costs(2, 3, 3), 200),
)
_SHORTCUT_DEPTH: Final = 1


def solve(
    game: Game,
    *,
    max_nodes: int | None = DEFAULT_MAX_NODES,
    max_seconds: float | None = DEFAULT_MAX_SECONDS,
    clock: Callable[[], float] = time.perf_counter,
    shorten: bool = True,
) -> Solution:
    """Decide whether ``game`` (from its current position) can be won; if so, how.

    ``max_nodes`` bounds the states expanded, ``max_seconds`` the time (read
    from ``clock``); None lifts a bound. Out of budget the verdict is UNKNOWN.
    With ``shorten`` false the first solution found is returned as it is
    (quicker, about 15% longer): enough to know a deal is winnable.
    """
    # the search makes no reference cycles: the cycle collector would only rescan
    # its ever-growing tables again and again
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _solve(game, max_nodes, max_seconds, clock, shorten)
    finally:
        if collecting:
            gc.enable()


def _solve(
    game: Game,
    max_nodes: int | None,
    max_seconds: float | None,
    clock: Callable[[], float],
    shorten: bool,
) -> Solution:
    started = clock()
    node_budget = max_nodes if max_nodes is not None else 1 << 62
    deadline = started + max_seconds if max_seconds is not None else float("inf")

    def out_of_time() -> bool:
        return clock() > deadline

    start: Columns = tuple(bytes(column) for column in game.columns)
    if not any(start):
        return Solution(Verdict.WINNABLE, [], 0, clock() - started)
    nodes = 0
    best: list[RawMove] | None = None
    long_costs, long_weight = _LONG
    for costs, weight, cap in (*_QUICK, (long_costs, long_weight, node_budget)):
        cap = min(cap, node_budget - nodes)
        if cap <= 0 or out_of_time():
            break
        outcome, moves, used = search(
            start, weight=weight, costs=costs, max_nodes=cap, out_of_time=out_of_time
        )
        nodes += used
        if outcome == SearchOutcome.EXHAUSTED:
            return Solution(Verdict.UNWINNABLE, [], nodes, clock() - started)
        if outcome == SearchOutcome.WON:
            best = moves
            break
    if best is None:
        return Solution(Verdict.UNKNOWN, [], nodes, clock() - started)
    for costs, width in _BEAMS if shorten else ():
        if len(best) <= lower_bound(start) or out_of_time() or nodes >= node_budget:
            break
        outcome, moves, used = beam(
            start,
            width=width,
            costs=costs,
            max_nodes=node_budget - nodes,
            out_of_time=out_of_time,
            bound=len(best),
        )
        nodes += used
        if outcome == SearchOutcome.WON and len(moves) < len(best):
            best = moves
    if shorten:
        best = shortcut(start, best, _SHORTCUT_DEPTH)
    return Solution(Verdict.WINNABLE, _checked(game, best), nodes, clock() - started)


def lower_bound(start: Columns) -> int:
    """Fewest moves any win needs: every move completes at most one run, and every
    move or removal parts at most one adjacent pair that is not a one-suit step."""
    runs = sum(map(len, start)) // 13
    return max(runs, breaks(start) - runs)


def _replay(start: Columns, moves: list[RawMove]) -> list[Columns]:
    states = [start]
    for source, target, count in moves:
        for s, t, c, new, _ in children(states[-1]):
            if (s, t, c) == (source, target, count):
                states.append(new)
                break
        else:  # pragma: no cover - the search only returns generated moves
            raise AssertionError("a solution move is not legal")
    return states


def _moves_through(start: Columns, keys: list[bytes]) -> list[RawMove]:
    """Moves from ``start`` through states with the given canonical keys (``keys[0]`` = start)."""
    moves = []
    columns = start
    for wanted in keys[1:]:
        for source, target, count, new, _ in children(columns):
            if canonical(new) == wanted:
                moves.append((source, target, count))
                columns = new
                break
        else:  # pragma: no cover - keys come from generated children
            raise AssertionError("no move between consecutive states")
    return moves


def shortcut(start: Columns, moves: list[RawMove], depth: int) -> list[RawMove]:
    """Cut detours: if a later state of the path is within ``depth`` moves, go straight there."""
    keys = [canonical(state) for state in _replay(start, moves)]
    improved = True
    while improved:
        improved = False
        states = _replay(start, _moves_through(start, keys))
        last = {key: index for index, key in enumerate(keys)}
        index = 0
        new_keys: list[bytes] = []
        while index < len(keys):
            new_keys.append(keys[index])
            best_jump = index + 1
            best_via: list[bytes] = []
            frontier: list[tuple[Columns, list[bytes]]] = [(states[index], [])]
            for level in range(1, depth + 1):
                next_frontier: list[tuple[Columns, list[bytes]]] = []
                for columns, via in frontier:
                    for _s, _t, _c, new, _ in children(columns):
                        key = canonical(new)
                        path = [*via, key]
                        reach = last.get(key, -1)
                        if reach - level > best_jump - len(best_via) - 1:
                            best_jump, best_via = reach, path
                        if level < depth:
                            next_frontier.append((new, path))
                frontier = next_frontier
            if best_via and best_jump - index > len(best_via):
                new_keys += best_via[:-1]
                improved = True
                index = best_jump
            else:
                index += 1
        keys = new_keys
    return _moves_through(start, keys)


def _checked(game: Game, moves: list[RawMove]) -> list[Move]:
    """The moves as engine moves, replayed with the engine to a win (else an error)."""
    check = game.copy()
    result = [check.push(Move(source, target, count)) for source, target, count in moves]
    if not check.is_won:  # pragma: no cover - would be a solver bug
        raise AssertionError("the solver's solution does not win")
    return result
