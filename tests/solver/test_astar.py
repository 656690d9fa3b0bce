"""The weighted A* queues each state as one number (its priority, then the order queued) and
keeps the state aside: it must take states in exactly the order the plain A* takes its
tuples (f, heuristic, order queued), so every outcome, solution and node count is the same."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.solver.api import _LONG, _QUICK
from server.solver.search import (
    Columns,
    Costs,
    RawMove,
    SearchOutcome,
    _path,
    breaks,
    canonical,
    children,
    search,
)
from tests.solver.test_beam import positions


def plain_search(
    start: Columns,
    *,
    weight: float,
    costs: Costs,
    max_nodes: int,
    out_of_time: Callable[[], bool],
    bound: int = 1 << 30,
) -> tuple[str, list[RawMove], int]:
    """A* as first written, a heap of tuples: the specification :func:`search` must match."""
    start_key = canonical(start)
    h0 = breaks(start, costs)
    parents: dict[bytes, bytes | None] = {start_key: None}
    best_g: dict[bytes, int] = {start_key: 0}
    counter = 0
    heap: list[tuple[float, int, int, int, Sequence[bytes], bytes]] = [
        (weight * h0, h0, counter, 0, start, start_key)
    ]
    nodes = 0
    while heap:
        _f, h, _tie, g, columns, key = heapq.heappop(heap)
        if best_g[key] < g:
            continue
        nodes += 1
        if nodes > max_nodes or (nodes & 255 == 0 and out_of_time()):
            return SearchOutcome.BUDGET, [], nodes
        g1 = g + 1
        for _source, _target, _count, new, delta in children(columns, costs):
            child_key = canonical(new)
            old = best_g.get(child_key)
            if old is not None and old <= g1:
                continue
            child_h = h + delta
            if not any(new):
                parents[child_key] = key
                return SearchOutcome.WON, _path(parents, start, child_key), nodes
            if g1 + 1 >= bound:
                continue
            best_g[child_key] = g1
            parents[child_key] = key
            counter += 1
            heapq.heappush(heap, (g1 + weight * child_h, child_h, counter, g1, new, child_key))
    return SearchOutcome.EXHAUSTED, [], nodes


#: (costs, weight) of every A* the solver runs.
SEARCHES = [(costs, weight) for costs, weight, _nodes in _QUICK] + [_LONG]


@settings(max_examples=40, deadline=None)
@given(positions, st.integers(0, len(SEARCHES) - 1), st.integers(1, 3_000), st.integers(0, 60))
def test_the_search_takes_states_in_the_plain_searchs_order(
    start: Columns, which: int, max_nodes: int, bound: int
) -> None:
    costs, weight = SEARCHES[which]
    arguments = {"weight": weight, "costs": costs, "max_nodes": max_nodes}
    if bound:  # 0: none
        arguments["bound"] = bound
    assert search(start, out_of_time=lambda: False, **arguments) == plain_search(  # type: ignore[arg-type]
        start,
        out_of_time=lambda: False,
        **arguments,  # type: ignore[arg-type]
    )


def test_a_weight_the_queue_cannot_hold_exactly_is_refused() -> None:
    start = (bytes(range(13, 0, -1)), *([b""] * 9))
    with pytest.raises(ValueError, match=r"a weight of 0\.3"):
        search(start, weight=0.3, costs=Costs(), max_nodes=10, out_of_time=lambda: False)
