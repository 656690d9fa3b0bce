"""The search itself, on a compact state: a tuple of ten ``bytes`` columns.

Cards are the engine's small ints (``suit << 4 | rank``), so a column is a
``bytes`` object, deepest card first, and "b lies on a as part of a one-suit
run" is simply ``b == a - 1``. Columns are interchangeable for what can still
happen, so states are deduplicated by the sorted multiset of columns.

Kept free of engine objects and of any clock so the inner loop stays cheap;
:mod:`server.solver.api` wraps it.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import Final

Columns = tuple[bytes, ...]
#: A move as (source, target, count), 0-based columns.
RawMove = tuple[int, int, int]

RUN: Final = 13
_SEPARATOR: Final = b"\xff"  # never a card: cards are below 64


def canonical(columns: Columns) -> bytes:
    """One bytes key per class of states equal up to the order of columns."""
    return _SEPARATOR.join(sorted(columns))


class Costs:
    """The weights of the heuristic: what a state still "owes".

    Every adjacent pair of cards that is not a one-suit step down must be parted
    by a move some time (or by a run removal), so counting them bounds the moves
    left from below. A pair one rank apart but of two suits (``soft``) is cheaper
    to fix than a pair of unrelated cards (``hard``); an empty column is worth
    ``empty`` (it is what lets groups be taken apart and rebuilt).
    """

    __slots__ = ("empty", "pair")

    def __init__(self, soft: int = 1, hard: int = 2, empty: int = 2) -> None:
        self.empty = empty
        self.pair = [0] * (64 * 64)  # indexed lower_card * 64 + upper_card
        for lower in range(64):
            for upper in range(64):
                if upper == lower - 1:
                    cost = 0
                elif upper & 15 == (lower & 15) - 1:
                    cost = soft
                else:
                    cost = hard
                self.pair[lower * 64 + upper] = cost


UNIT = Costs(1, 1, 0)  # plain count of broken pairs: a lower bound (up to run removals)


def breaks(columns: Columns, costs: Costs = UNIT) -> int:
    """The heuristic value of a state under ``costs``."""
    total = 0
    pair = costs.pair
    for column in columns:
        for index in range(1, len(column)):
            total += pair[column[index - 1] * 64 + column[index]]
        if not column:
            total -= costs.empty
    return total


def run_length(column: bytes) -> int:
    """The one-suit descending run at the end of a non-empty column."""
    index = len(column) - 1
    while index > 0 and column[index - 1] == column[index] + 1:
        index -= 1
    return len(column) - index


def children(columns: Columns, costs: Costs = UNIT) -> list[tuple[int, int, int, Columns, int]]:
    """Every useful move from a state: (source, target, count, new columns, change of breaks).

    Left out, as they cannot help: moving a whole column into an empty one, and
    the same move into a second empty column (empty columns are interchangeable).
    """
    result = []
    bonus = costs.empty
    PAIR_COST = costs.pair
    empty = -1
    tops = []
    for index, column in enumerate(columns):
        if column:
            tops.append((index, column[-1] & 15, column[-1]))
        elif empty < 0:
            empty = index
    for source, bottom_rank, _bottom in tops:
        column = columns[source]
        size = len(column)
        run = run_length(column)
        for target, top_rank, top in tops:
            count = top_rank - bottom_rank
            if count < 1 or count > run or target == source:
                continue
            cut = size - count
            head = column[cut]
            # change of breaks: the pair cut at the source, the pair made at the target
            delta = PAIR_COST[top * 64 + head] - (
                PAIR_COST[column[cut - 1] * 64 + head] if cut else bonus
            )
            new = list(columns)
            new[source] = column[:cut]
            landed = columns[target] + column[cut:]
            if (
                column[-1] & 15 == 1
                and len(landed) >= RUN
                and landed[-RUN] & 15 == 13
                and run_length(landed) >= RUN
            ):
                # a complete run leaves the table; the pair under its king goes too
                rest = landed[:-RUN]
                if rest:
                    delta -= PAIR_COST[rest[-1] * 64 + landed[-RUN]]
                else:
                    delta -= bonus
                landed = rest
            new[target] = landed
            result.append((source, target, count, tuple(new), delta))
        if empty >= 0:
            top_count = run if run < size else run - 1
            for count in range(1, top_count + 1):
                cut = size - count
                delta = bonus - PAIR_COST[column[cut - 1] * 64 + column[cut]]
                new = list(columns)
                new[source] = column[:cut]
                new[empty] = column[cut:]
                result.append((source, empty, count, tuple(new), delta))
    return result


class Outcome:
    """What :func:`search` ends with."""

    WON: Final = "won"
    EXHAUSTED: Final = "exhausted"  # every reachable state seen: no win exists
    BUDGET: Final = "budget"


def search(
    start: Columns,
    *,
    weight: float,
    costs: Costs,
    max_nodes: int,
    out_of_time: Callable[[], bool],
    bound: int = 1 << 30,
) -> tuple[str, list[RawMove], int]:
    """Weighted A* (f = g + weight * breaks) from ``start``, with a closed set of states.

    Returns the outcome, the moves of the solution found (if any) and the nodes
    expanded. With ``bound``, paths that cannot end in fewer than ``bound``
    moves are cut; then ``EXHAUSTED`` only means "no solution that short here".
    """
    start_key = canonical(start)
    h0 = breaks(start, costs)
    # parent links by key only: a state's stored column order may change when it is
    # reached again more cheaply, so moves are recovered afterwards by replaying
    parents: dict[bytes, bytes | None] = {start_key: None}
    best_g: dict[bytes, int] = {start_key: 0}
    counter = 0
    heap: list[tuple[float, int, int, int, Columns, bytes]] = [
        (weight * h0, h0, counter, 0, start, start_key)
    ]
    nodes = 0
    push, pop = heapq.heappush, heapq.heappop
    while heap:
        _f, h, _tie, g, columns, key = pop(heap)
        if best_g[key] < g:
            continue  # reached again more cheaply since it was queued
        nodes += 1
        if nodes > max_nodes or (nodes & 1023 == 0 and out_of_time()):
            return Outcome.BUDGET, [], nodes
        g1 = g + 1
        for _source, _target, _count, new, delta in children(columns, costs):
            child_key = canonical(new)
            old = best_g.get(child_key)
            if old is not None and old <= g1:
                continue
            child_h = h + delta
            if not any(new):
                parents[child_key] = key
                return Outcome.WON, _path(parents, start, child_key), nodes
            if g1 + 1 >= bound:
                continue  # not won yet, so it needs another move: cannot beat the bound
            best_g[child_key] = g1
            parents[child_key] = key
            counter += 1
            push(heap, (g1 + weight * child_h, child_h, counter, g1, new, child_key))
    return Outcome.EXHAUSTED, [], nodes


def _path(parents: dict[bytes, bytes | None], start: Columns, key: bytes) -> list[RawMove]:
    """The moves from ``start`` through the chain of states ending at ``key``."""
    keys: list[bytes] = []
    link: bytes | None = key
    while link is not None:
        keys.append(link)
        link = parents[link]
    keys.reverse()
    moves = []
    columns = start
    for wanted in keys[1:]:
        for source, target, count, new, _delta in children(columns):
            if canonical(new) == wanted:
                moves.append((source, target, count))
                columns = new
                break
        else:  # pragma: no cover - every link was made from a generated child
            raise AssertionError("broken parent chain")
    return moves
