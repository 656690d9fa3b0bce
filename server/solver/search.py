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

    __slots__ = ("blocked", "empty", "pair", "weights")

    def __init__(self, soft: int = 1, hard: int = 2, empty: int = 2, blocked: int = 0) -> None:
        self.weights = (soft, hard, empty, blocked)
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


def completes_run(landed: bytes) -> bool:
    """Whether a column whose last card is an ace ends in a complete run, king to ace."""
    return len(landed) >= RUN and landed[-RUN] & 15 == 13 and run_length(landed) >= RUN


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
            if column[-1] & 15 == 1 and completes_run(landed):
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

    The queue is taken in the order (f, heuristic, order queued); each state is queued as
    one number in that order (see :data:`_QUEUED_SHIFT`), its columns kept aside by its
    place in the queueing order.
    """
    scale = weight * _WEIGHT_SCALE
    if scale != int(scale) or scale < 0:
        raise ValueError(f"a weight of {weight}: a multiple of 1/{_WEIGHT_SCALE} at least 0")
    if costs.empty * 10 > _RANK_OFFSET:
        raise ValueError(f"an empty column worth {costs.empty}: at most {_RANK_OFFSET // 10}")
    if _MOST_PAIRS * (max(costs.pair) + costs.blocked) + _RANK_OFFSET >= 1 << _H_BITS:
        raise ValueError("a pair of cards costs too much for a queued state's heuristic bits")
    scaled_weight = int(scale)
    start_key = canonical(start)
    h0 = breaks(start, costs)
    # parent links by key only: a state's stored column order may change when it is
    # reached again more cheaply, so moves are recovered afterwards by replaying
    parents: dict[bytes, bytes | None] = {start_key: None}
    best_g: dict[bytes, int] = {start_key: 0}
    # by the order queued: (g, columns, key), the taken ones dropped (memory)
    queued: list[tuple[int, Sequence[bytes], bytes]] = [(0, start, start_key)]
    heap: list[int] = [_queued(0, h0, scaled_weight, 0)]
    nodes = 0
    push, pop = heapq.heappush, heapq.heappop
    join = _SEPARATOR.join
    while heap:
        entry = pop(heap)
        order = entry & _QUEUED_MASK
        g, columns, key = queued[order]
        queued[order] = _TAKEN
        if best_g[key] < g:
            continue  # reached again more cheaply since it was queued
        nodes += 1
        if nodes > max_nodes or (nodes & 255 == 0 and out_of_time()):
            return SearchOutcome.BUDGET, [], nodes
        h = ((entry >> _QUEUED_SHIFT) & _H_MASK) - _RANK_OFFSET
        g1 = g + 1
        for _source, _target, _count, new, delta in children(columns, costs):
            child_key = join(sorted(new))  # canonical(new), inlined
            old = best_g.get(child_key)
            if old is not None and old <= g1:
                continue
            if not any(new):
                parents[child_key] = key
                return SearchOutcome.WON, _path(parents, start, child_key), nodes
            if g1 + 1 >= bound:
                continue  # not won yet, so it needs another move: cannot beat the bound
            best_g[child_key] = g1
            parents[child_key] = key
            push(heap, _queued(g1, h + delta, scaled_weight, len(queued)))
            queued.append((g1, new, child_key))
    return SearchOutcome.EXHAUSTED, [], nodes


#: A state queued by :func:`search`, as one number: sorting the numbers sorts the states by
#: f = g + weight * h, then h, then the order they were queued in (a heap of small ints
#: compares machine words, about twice as quick as one of tuples). From bit
#: :data:`_QUEUED_SHIFT` + :data:`_H_BITS` up, f times :data:`_WEIGHT_SCALE` (an integer,
#: the weight being a multiple of its inverse) plus an offset (h may be below zero); then h
#: plus :data:`_RANK_OFFSET`; then the order queued.
_WEIGHT_SCALE: Final = 4
_H_BITS: Final = 10
_H_MASK: Final = (1 << _H_BITS) - 1
_QUEUED_SHIFT: Final = 32  # four billion states queued at most: far more than memory holds
_QUEUED_MASK: Final = (1 << _QUEUED_SHIFT) - 1
_TAKEN: Final[tuple[int, Sequence[bytes], bytes]] = (0, (), b"")


def _queued(g: int, h: int, scaled_weight: int, order: int) -> int:
    """A state's number in :func:`search`'s queue (see :data:`_WEIGHT_SCALE`)."""
    h += _RANK_OFFSET
    f = _WEIGHT_SCALE * g + scaled_weight * h
    return (f << _H_BITS | h) << _QUEUED_SHIFT | order


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

    A layer keeps the ``width`` states first in the order (heuristic, first found at
    it): every move of the layer is ranked by its heuristic alone, a number, and the
    states are made (their columns, their key) in that order only until ``width`` new
    ones are kept, a few hundred of the thousands of moves a layer has. The ranks are
    filed by heuristic (:func:`_ranked_moves`), so only the heuristics read are sorted.
    """
    if width > _PARENT_MASK + 1:
        raise ValueError(f"a beam of {width} states: at most {_PARENT_MASK + 1}")
    if costs.empty * 10 > _RANK_OFFSET:
        raise ValueError(f"an empty column worth {costs.empty}: at most {_RANK_OFFSET // 10}")
    if _MOST_PAIRS * (max(costs.pair) + costs.blocked) + _RANK_OFFSET >= _RANK_VALUES:
        raise ValueError("a pair of cards costs too much for a rank's heuristic bits")
    join = _SEPARATOR.join
    known: dict[bytes, ColumnMoves] = {}
    # scratch lists lent to each call of _ranked_moves, left empty between layers
    targets: list[list[int]] = [[] for _ in range(14)]
    by_value: list[list[int]] = [[] for _ in range(_RANK_VALUES)]
    values: list[int] = []
    start_key = canonical(start)
    parents: dict[bytes, bytes | None] = {start_key: None}
    layer: list[tuple[int, list[bytes], bytes]] = [(breaks(start, costs), list(start), start_key)]
    nodes = 0
    depth = 0
    while layer and depth + 1 < bound:
        depth += 1
        for parent, (h, columns, key) in enumerate(layer):
            nodes += 1
            if nodes > max_nodes or (nodes & 255 == 0 and out_of_time()):
                return SearchOutcome.BUDGET, [], nodes
            if _cards(columns) == RUN:  # the last run: a move may win
                for _source, _target, _count, new, _delta in children(columns, costs):
                    if not any(new):
                        child_key = join(sorted(new))
                        parents[child_key] = key
                        return SearchOutcome.WON, _path(parents, start, child_key), nodes
            _ranked_moves(
                columns, costs, h, parent << _PARENT_SHIFT, by_value, values, known, targets
            )
        values.sort()
        kept: list[tuple[int, list[bytes], bytes]] = []
        for value in values:
            ranks = by_value[value]
            if len(kept) < width:
                ranks.sort()
                for rank in ranks:
                    _h, columns, key = layer[(rank >> _PARENT_SHIFT) & _PARENT_MASK]
                    new = _moved(columns, (rank >> 8) & 15, (rank >> 4) & 15, rank & 15)
                    child_key = join(sorted(new))
                    if child_key in parents:  # kept before, or earlier in this layer
                        continue
                    parents[child_key] = key
                    kept.append((value - _RANK_OFFSET, new, child_key))
                    if len(kept) == width:
                        break
            ranks.clear()
        values.clear()
        layer = kept
    return SearchOutcome.EXHAUSTED, [], nodes


#: A move of a layer as one number, so that sorting the numbers sorts the moves by their
#: heuristic, then in the order :func:`children` makes them (its parent's place in the
#: layer, its source, its target: a column's index, :data:`_TO_EMPTY` for the empty
#: column, then its count): bits 20 and up the heuristic (plus an offset: it may be below
#: zero), 12-19 the parent, 8-11 the source, 4-7 the target, 0-3 the count. A heuristic
#: below 960 keeps a rank under 2**30, one digit of a Python int: a sort compares them as
#: machine words (a third of a beam's time with larger ones), and a layer files them in
#: 1024 lists by heuristic (:func:`_ranked_moves`).
_RANK_SHIFT: Final = 20
#: The heuristic values a rank can hold under 2**30: one list each in a layer's filing.
_RANK_VALUES: Final = 1 << (30 - _RANK_SHIFT)
#: The most pairs of cards on a table: 52 cards in 10 columns.
_MOST_PAIRS: Final = 52 - 10
_RANK_OFFSET: Final = 64  # an empty column is worth at most 6: ten of them are -60
_PARENT_SHIFT: Final = 12
_PARENT_MASK: Final = (1 << 8) - 1  # a layer of at most 256 states
_TO_EMPTY: Final = 10


#: A column as the source of moves, under one beam's costs (:func:`_column_moves`): its
#: bottom card's rank, its run, and for each count of cards the run can give (from 1), the
#: group's head card and the change of heuristic at the source.
ColumnMoves = tuple[int, int, list[tuple[int, int]]]


def _column_moves(column: bytes, costs: Costs) -> ColumnMoves:
    """What :func:`children` works out of a column it moves cards from (a non-empty one)."""
    PAIR_COST = costs.pair
    blocked = costs.blocked
    size = len(column)
    run = run_length(column)
    groups = [(0, 0)]  # by count: 0 gives nothing
    for count in range(1, run + 1):
        cut = size - count
        head = column[cut]
        if cut:
            delta = -PAIR_COST[column[cut - 1] * 64 + head]
            if delta and blocked and head + 1 in column[:cut]:
                delta -= blocked
        else:
            delta = -costs.empty
        groups.append((head, delta))
    return column[-1] & 15, run, groups


def _ranked_moves(
    columns: list[bytes],
    costs: Costs,
    h: int,
    parent: int,
    by_value: list[list[int]],
    values: list[int],
    known: dict[bytes, ColumnMoves],
    targets: list[list[int]],
) -> None:
    """The moves of :func:`children`, with its heuristics, without making the states they
    lead to: each move's rank (see :data:`_RANK_SHIFT`; ``parent`` is its bits already)
    filed by its heuristic's value (the rank's bits from :data:`_RANK_SHIFT`): added to
    ``by_value[value]``, and ``value`` to ``values`` when it is the first there. ``known``:
    the columns worked out already (a column is the same in most states of a search).
    ``targets``: 14 empty lists, lent for the call and left empty (nothing is allocated
    for a state: this runs for every state a beam keeps)."""
    bonus = costs.empty
    blocked = costs.blocked
    PAIR_COST = costs.pair
    empty = -1
    # the columns by the rank of their top card: the targets of a group whose head is one
    # rank below (the order they are added in does not matter: a rank says it)
    for index in range(len(columns)):
        column = columns[index]
        if len(column):
            targets[column[-1] & 15].append(index)
        elif empty < 0:
            empty = index
    for source in range(len(columns)):
        column = columns[source]
        if not len(column):
            continue
        moves_of = known.get(column)
        if moves_of is None:
            moves_of = known[column] = _column_moves(column, costs)
        bottom_rank, run, groups = moves_of
        moves = parent | source << 8
        for count in range(1, min(run, 13 - bottom_rank) + 1):
            for target in targets[bottom_rank + count]:
                if target == source:
                    continue
                head, delta = groups[count]
                landing = columns[target]
                made = PAIR_COST[landing[-1] * 64 + head]
                if made:
                    delta += made
                    if blocked and head + 1 in landing:
                        delta += blocked
                elif bottom_rank == 1 and run_length(landing) + count >= RUN:
                    # onto its own suit's next card, down to an ace: the run leaves the table
                    keep = len(landing) - (RUN - count)
                    if keep:
                        delta -= PAIR_COST[landing[keep - 1] * 64 + landing[keep]]
                    else:
                        delta -= bonus
                value = h + delta + _RANK_OFFSET
                ranks = by_value[value]
                if not ranks:
                    values.append(value)
                ranks.append(value << _RANK_SHIFT | moves | target << 4 | count)
        if empty >= 0:
            # the whole column into an empty one cannot help: a run that is all of it
            # gives one card fewer (the source's change plus the empty column's worth)
            top_count = run if run < len(column) else run - 1
            moves |= _TO_EMPTY << 4
            for count in range(1, top_count + 1):
                value = h + bonus + groups[count][1] + _RANK_OFFSET
                ranks = by_value[value]
                if not ranks:
                    values.append(value)
                ranks.append(value << _RANK_SHIFT | moves | count)
    for column in columns:
        if len(column):
            targets[column[-1] & 15].clear()


def _cards(columns: list[bytes]) -> int:
    """The cards on the table."""
    total = 0
    for column in columns:
        total += len(column)
    return total


def _moved(columns: list[bytes], source: int, target: int, count: int) -> list[bytes]:
    """The columns after moving ``count`` cards from ``source`` to ``target`` (a column's
    index, or :data:`_TO_EMPTY`: the first empty column), as :func:`children` makes them:
    a complete run that the move makes leaves the table."""
    column = columns[source]
    cut = len(column) - count
    new = columns.copy()
    new[source] = column[:cut]
    if target == _TO_EMPTY:
        new[new.index(b"")] = column[cut:]
        return new
    landed = columns[target] + column[cut:]
    if column[-1] & 15 == 1 and completes_run(landed):
        landed = landed[:-RUN]
    new[target] = landed
    return new


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
