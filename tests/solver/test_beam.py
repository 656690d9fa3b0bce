"""The beam search ranks a layer's moves by number and makes only the states it keeps: it
must keep exactly what the plain beam keeps (every state made, ranked by heuristic, then
order found), so every solution, its length and the nodes counted are the same."""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import Game, GameCode
from server.solver.api import _BEAMS
from server.solver.search import (
    _PARENT_SHIFT,
    _RANK_OFFSET,
    _RANK_SHIFT,
    _RANK_VALUES,
    _TO_EMPTY,
    RUN,
    Columns,
    Costs,
    RawMove,
    SearchOutcome,
    _moved,
    _path,
    _ranked_moves,
    beam,
    breaks,
    canonical,
    children,
)


def plain_beam(
    start: Columns,
    *,
    width: int,
    costs: Costs,
    max_nodes: int,
    out_of_time: Callable[[], bool],
    bound: int = 1 << 30,
) -> tuple[str, list[RawMove], int]:
    """The beam as first written: every child made, the layer's best taken by
    (heuristic, order found): the specification :func:`beam` must match."""
    parents: dict[bytes, bytes | None] = {canonical(start): None}
    layer: list[tuple[int, Sequence[bytes], bytes]] = [
        (breaks(start, costs), start, canonical(start))
    ]
    nodes = depth = 0
    while layer and depth + 1 < bound:
        depth += 1
        found: dict[bytes, tuple[int, int, list[bytes], bytes]] = {}
        counter = 0
        for h, columns, key in layer:
            nodes += 1
            if nodes > max_nodes or (nodes & 255 == 0 and out_of_time()):
                return SearchOutcome.BUDGET, [], nodes
            for _source, _target, _count, new, delta in children(columns, costs):
                child_key = canonical(new)
                if child_key in parents:
                    continue
                if not any(new):
                    parents[child_key] = key
                    return SearchOutcome.WON, _path(parents, start, child_key), nodes
                old = found.get(child_key)
                if old is None or old[0] > h + delta:
                    counter += 1
                    found[child_key] = (h + delta, counter, new, key)
        kept = heapq.nsmallest(width, found.items(), key=lambda item: item[1][:2])
        layer = []
        for child_key, (child_h, _tie, new, key) in kept:
            parents[child_key] = key
            layer.append((child_h, new, child_key))
    return SearchOutcome.EXHAUSTED, [], nodes


def _position(suits: int, number: int, moves: int, seed: int) -> Columns:
    """A deal played ``moves`` random legal moves in."""
    rng = random.Random(seed)
    game = Game.from_code(str(GameCode(suits, number)))
    for _ in range(moves):
        legal = list(game.legal_moves())
        if not legal:
            break
        game.push(rng.choice(legal))
    return tuple(bytes(column) for column in game.columns)


positions = st.builds(
    _position,
    st.sampled_from([1, 2, 4]),
    st.integers(0, 26**7 - 1),
    st.integers(0, 80),
    st.integers(0, 2**32),
)


@settings(max_examples=60, deadline=None)
@given(positions, st.integers(0, 2), st.integers(0, 1))
def test_ranked_moves_are_the_childrens_in_their_order_with_their_heuristics(
    start: Columns, which: int, empty_first: int
) -> None:
    costs = _BEAMS[which][0]
    if empty_first and b"" in start:  # an empty column first, before every target
        first = start.index(b"")
        start = (*start[first:], *start[:first])
    by_value: list[list[int]] = [[] for _ in range(_RANK_VALUES)]
    values: list[int] = []
    targets: list[list[int]] = [[] for _ in range(14)]
    _ranked_moves(list(start), costs, 7, 3 << _PARENT_SHIFT, by_value, values, {}, targets)
    assert not any(targets)  # lent, and left empty
    assert sorted(values) == sorted(set(values))  # each value filed once
    ranks = [rank for value in values for rank in by_value[value]]
    assert all(rank >> _RANK_SHIFT == value for value in values for rank in by_value[value])
    made = children(start, costs)
    assert len(ranks) == len(made)
    ranks.sort(key=lambda rank: rank & ((1 << _RANK_SHIFT) - 1))  # the order found
    for rank, (source, target, count, new, delta) in zip(ranks, made, strict=True):
        assert (rank >> _RANK_SHIFT) - _RANK_OFFSET == 7 + delta
        assert (rank >> _PARENT_SHIFT) & 255 == 3
        to = (rank >> 4) & 15
        assert ((rank >> 8) & 15, rank & 15) == (source, count)
        assert to == (_TO_EMPTY if not start[target] else target)
        assert _moved(list(start), source, to, count) == new


@settings(max_examples=40, deadline=None)
@given(
    positions, st.integers(0, 2), st.sampled_from([1 << 30, 12, 30]), st.sampled_from([400, 60_000])
)
def test_the_beam_keeps_what_the_plain_beam_keeps(
    start: Columns, which: int, bound: int, max_nodes: int
) -> None:
    costs, width = _BEAMS[which]
    arguments = {"width": width, "costs": costs, "max_nodes": max_nodes, "bound": bound}
    assert beam(start, out_of_time=lambda: False, **arguments) == plain_beam(  # type: ignore[arg-type]
        start,
        out_of_time=lambda: False,
        **arguments,  # type: ignore[arg-type]
    )


def test_a_win_in_the_last_run_is_found_as_the_plain_beam_finds_it() -> None:
    run = bytes(range(13, 0, -1))  # K down to A of one suit
    start = (run[:5], run[5:], *([b""] * 8))
    assert sum(map(len, start)) == RUN
    found = beam(start, width=200, costs=_BEAMS[0][0], max_nodes=100, out_of_time=lambda: False)
    assert found == plain_beam(
        start, width=200, costs=_BEAMS[0][0], max_nodes=100, out_of_time=lambda: False
    )
    assert found[0] == SearchOutcome.WON and found[1] == [(1, 0, 8)]
