"""Is the docs/rules.md example winnable in at most N moves? An exhaustive, bounded A*.

A* of weight 1 on the 4-suit lower bound (``UNIT`` less the runs still to remove),
every state whose moves so far plus that bound exceed N cut. When the queue runs
dry, no win of N moves or fewer exists (the bound never overestimates: see
docs/performance.md). Memory grows with the states kept: about 3 GB for N = 49.

Usage, from the repository root::

    python -m bench.solver.example_bound --moves 49
"""

from __future__ import annotations

import argparse
import heapq
import time
from pathlib import Path
from typing import Final

from server.engine import Game
from server.solver.search import UNIT, Columns, breaks, canonical, children

EXAMPLE = (Path(__file__).resolve().parents[2] / "tests/fixtures/example_board.txt").read_text()


def lower_bound(columns: Columns) -> int:
    """Moves still needed at least: every adjacent pair that is not a one-suit step down
    must be parted by a move or a run removal, and the ``UNIT`` costs count one more move
    for a card whose parent lies deeper in its own column (docs/performance.md)."""
    runs = sum(map(len, columns)) // 13
    return max(runs, breaks(columns, UNIT) - runs)


def bounded(start: Columns, moves: int) -> tuple[int | None, int]:
    """(length of a shortest win if it is at most ``moves``, else None; states expanded)."""
    best_g = {canonical(start): 0}
    heap: list[tuple[int, int, int, int, list[bytes] | Columns]] = []
    h = breaks(start, UNIT)
    heap.append((h, h, 0, 0, start))
    counter = nodes = 0
    while heap:
        _f, h, _tie, g, columns = heapq.heappop(heap)
        if best_g[canonical(columns)] < g:
            continue
        nodes += 1
        for *_move, new, delta in children(columns, UNIT):
            if not any(new):
                return g + 1, nodes
            key = canonical(new)
            old = best_g.get(key)
            if old is not None and old <= g + 1:
                continue
            child_h = h + delta
            runs = sum(map(len, new)) // 13
            if g + 1 + max(runs, child_h - runs) > moves:
                continue
            best_g[key] = g + 1
            counter += 1
            heapq.heappush(heap, (g + 1 + child_h, child_h, counter, g + 1, new))
    return None, nodes


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--moves 5"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=49, help="the length to beat or match")
    args = parser.parse_args()
    start = tuple(bytes(column) for column in Game.from_board(EXAMPLE).columns)
    started = time.perf_counter()
    length, nodes = bounded(start, args.moves)
    verdict = f"won in {length} moves" if length else f"no win in {args.moves} moves or fewer"
    print(f"{verdict}; {nodes} states expanded, {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
