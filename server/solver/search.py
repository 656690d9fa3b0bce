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
from collections.abc import Callable, Sequence
from typing import Final

Columns = Sequence[bytes]  # a list where the search builds it, a tuple where it keeps it
#: A move as (source, target, count), 0-based columns.
RawMove = tuple[int, int, int]

RUN: Final = 13
_SEPARATOR: Final = b"\xff"  # never a card: cards are below 64


def canonical(columns: Sequence[bytes]) -> bytes:
    """One bytes key per class of states equal up to the order of columns."""
    return _SEPARATOR.join(sorted(columns))


class Costs:
    """The weights of the heuristic: what a state still "owes".

    Every adjacent pair of cards that is not a one-suit step down must be parted
    by a move some time (or by a run removal), so counting them bounds the moves
    left from below. A pair one rank apart but of two suits (``soft``) is cheaper
    to fix than a pair of unrelated cards (``hard``); an empty column is worth
    ``empty`` (it is what lets groups be taken apart and rebuilt). A broken pair
    whose upper card's own parent (same suit, one rank higher) lies deeper in the
    same column costs ``blocked`` more: that card must leave and come back, so it
    cannot be fixed by a single move.
    """

    __slots__ = ("blocked", "empty", "pair")

    def __init__(self, soft: int = 1, hard: int = 2, empty: int = 2, blocked: int = 0) -> None:
        self.empty = empty
        self.blocked = blocked
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


#: With one suit per card (4 suits), a lower bound on the moves left, up to the runs to remove.
UNIT = Costs(1, 1, 0, 1)


def breaks(columns: Columns, costs: Costs = UNIT) -> int:
    """The heuristic value of a state under ``costs``."""
    total = 0
    pair = costs.pair
    blocked = costs.blocked
    for column in columns:
        for index in range(1, len(column)):
            upper = column[index]
            cost = pair[column[index - 1] * 64 + upper]
            if cost:
                total += cost
                if upper + 1 in column[: index - 1]:
                    total += blocked
        if not column:
            total -= costs.empty
    return total


def run_length(column: bytes) -> int:
    """The one-suit descending run at the end of a non-empty column."""
    index = len(column) - 1
    while index > 0 and column[index - 1] == column[index] + 1:
        index -= 1
    return len(column) - index


def children(
    columns: Sequence[bytes], costs: Costs = UNIT
) -> list[tuple[int, int, int, list[bytes], int]]:
    """Every useful move from a state: (source, target, count, new columns, change of heuristic).

    Left out, as they cannot help: moving a whole column into an empty one, and
    the same move into a second empty column (empty columns are interchangeable).
    """
    result = []
    bonus = costs.empty
    blocked = costs.blocked
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
            # (and the blocked extra: only these two pairs can change it, since cards
            # move on top of a column, never under the cards they could block)
            rest = column[:cut]
            if cut:
                delta = -PAIR_COST[rest[-1] * 64 + head]
                if delta and blocked and head + 1 in rest:
                    delta -= blocked
            else:
                delta = -bonus
            made = PAIR_COST[top * 64 + head]
            if made:
                delta += made
                if blocked and head + 1 in columns[target]:
                    delta += blocked
            new = list(columns)
            new[source] = rest
            landed = columns[target] + column[cut:]
            if (
                column[-1] & 15 == 1
                and len(landed) >= RUN
                and landed[-RUN] & 15 == 13
                and run_length(landed) >= RUN
            ):
                # a complete run leaves the table; the pair under its king goes too
                remains = landed[:-RUN]
                if remains:
                    delta -= PAIR_COST[remains[-1] * 64 + landed[-RUN]]
                else:
                    delta -= bonus
                landed = remains
            new[target] = landed
            result.append((source, target, count, new, delta))
        if empty >= 0:
            top_count = run if run < size else run - 1
            for count in range(1, top_count + 1):
                cut = size - count
                rest = column[:cut]
                head = column[cut]
                delta = bonus - PAIR_COST[rest[-1] * 64 + head]
                if blocked and delta < bonus and head + 1 in rest:
                    delta -= blocked
                new = list(columns)
                new[source] = rest
                new[empty] = column[cut:]
                result.append((source, empty, count, new, delta))
    return result


class SearchOutcome:
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
    heap: list[tuple[float, int, int, int, Sequence[bytes], bytes]] = [
        (weight * h0, h0, counter, 0, start, start_key)
    ]
    nodes = 0
    push, pop = heapq.heappush, heapq.heappop
    join = _SEPARATOR.join
    while heap:
        _f, h, _tie, g, columns, key = pop(heap)
        if best_g[key] < g:
            continue  # reached again more cheaply since it was queued
        nodes += 1
        if nodes > max_nodes or (nodes & 255 == 0 and out_of_time()):
            return SearchOutcome.BUDGET, [], nodes
        g1 = g + 1
        for _source, _target, _count, new, delta in children(columns, costs):
            child_key = join(sorted(new))  # canonical(new), inlined
            old = best_g.get(child_key)
            if old is not None and old <= g1:
                continue
            child_h = h + delta
            if not any(new):
                parents[child_key] = key
                return SearchOutcome.WON, _path(parents, start, child_key), nodes
            if g1 + 1 >= bound:
                continue  # not won yet, so it needs another move: cannot beat the bound
            best_g[child_key] = g1
            parents[child_key] = key
            counter += 1
            push(heap, (g1 + weight * child_h, child_h, counter, g1, new, child_key))
    return SearchOutcome.EXHAUSTED, [], nodes


def beam(
    start: Columns,
    *,
    width: int,
    costs: Costs,
    max_nodes: int,
    out_of_time: Callable[[], bool],
    bound: int = 1 << 30,
) -> tuple[str, list[RawMove], int]:
    """Beam search: breadth first, keeping only the ``width`` best states of each depth.

    All states of a layer are the same number of moves from ``start``, so the
    layer a win is found in is the length of the solution: ranking a layer by
    the heuristic alone favours short paths far more than weighted A* does.
    Returns like :func:`search`; ``EXHAUSTED`` here only means "nothing found"
    (states are dropped), and paths of ``bound`` moves or more are not followed.
    """
    join = _SEPARATOR.join
    start_key = canonical(start)
    parents: dict[bytes, bytes | None] = {start_key: None}
    layer: list[tuple[int, Sequence[bytes], bytes]] = [(breaks(start, costs), start, start_key)]
    nodes = 0
    depth = 0
    while layer and depth + 1 < bound:
        depth += 1
        found: dict[bytes, tuple[int, int, list[bytes], bytes]] = {}
        counter = 0
        for h, columns, key in layer:
            nodes += 1
            if nodes > max_nodes or (nodes & 255 == 0 and out_of_time()):
                return SearchOutcome.BUDGET, [], nodes
            for _source, _target, _count, new, delta in children(columns, costs):
                child_key = join(sorted(new))  # canonical(new), inlined
                if child_key in parents:
                    continue
                if not any(new):
                    parents[child_key] = key
                    return SearchOutcome.WON, _path(parents, start, child_key), nodes
                child_h = h + delta
                old = found.get(child_key)
                if old is None or old[0] > child_h:
                    counter += 1  # ties go to the first found: the result is deterministic
                    found[child_key] = (child_h, counter, new, key)
        kept = heapq.nsmallest(width, found.items(), key=lambda item: item[1][:2])
        layer = []
        for child_key, (child_h, _tie, new, key) in kept:
            parents[child_key] = key
            layer.append((child_h, new, child_key))
    return SearchOutcome.EXHAUSTED, [], nodes


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
