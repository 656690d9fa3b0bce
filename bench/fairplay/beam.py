"""Another solver: a beam search of the bench's own, so that cheaters can play a line that is
not the bundled solver's (whose line of each daily the server compares players' lines with).

The search keeps the ``width`` best positions of each depth by a plain score (runs removed,
same-suit links in the columns, any-suit links, empty columns), expands each by every move
of a whole movable group (into an empty column, the leftmost one only), and skips positions
seen before. It knows nothing of the bundled solver. The line it finds is replayed with the
engine, every move checked, and returned in the server's notation (counts explicit).

>>> line = beam_line("SS1-S1-ZRVKZUT", width=40)
>>> line is not None and len(line) > 20
True
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from typing import Final

from server.engine import Game, Move

Columns = tuple[tuple[int, ...], ...]
RUN: Final = 13
MAX_DEPTH: Final = 400


def _rank(card: int) -> int:
    return card & 15


def _movable(column: Sequence[int]) -> int:
    count = 1
    for index in range(len(column) - 1, 0, -1):
        below, card = column[index - 1], column[index]
        if below >> 4 != card >> 4 or _rank(below) != _rank(card) + 1:
            break
        count += 1
    return count


def _score(columns: Columns, removed: int) -> int:
    links = 0
    for column in columns:
        if not column:
            links += 6
            continue
        for below, card in itertools.pairwise(column):
            if _rank(below) == _rank(card) + 1:
                links += 4 if below >> 4 == card >> 4 else 1
    return removed * 200 + links


def _children(columns: Columns) -> list[tuple[tuple[int, int, int], Columns, int]]:
    """(move, columns after it, runs it removed) for every whole-group move."""
    empty = next((index for index, column in enumerate(columns) if not column), None)
    found = []
    for source, column in enumerate(columns):
        if not column:
            continue
        run = _movable(column)
        for target, destination in enumerate(columns):
            if target == source:
                continue
            if not destination:
                if target != empty or run == len(column):
                    continue
                count = run
            else:
                count = _rank(destination[-1]) - _rank(column[-1])
                if count != run:  # whole groups only (no tearing a run apart)
                    continue
            group = column[-count:]
            moved = destination + group
            removed = 0
            if len(moved) >= RUN and _movable(moved) >= RUN:
                moved = moved[:-RUN]
                removed = 1
            after = list(columns)
            after[source] = column[:-count]
            after[target] = moved
            found.append(((source, target, count), tuple(after), removed))
    return found


def beam_line(code: str, *, width: int = 100) -> list[str] | None:
    """A winning line of ``code`` by the beam search, in the server's notation; None if
    the search finds none."""
    start = Game.from_code(code)
    beam: list[tuple[Columns, int, tuple[tuple[int, int, int], ...]]] = [
        (start.position_key(), start.removed_count, ())
    ]
    seen = {start.position_key()}
    for _ in range(MAX_DEPTH):
        candidates: list[tuple[int, int, Columns, int, tuple[tuple[int, int, int], ...]]] = []
        for columns, removed, path in beam:
            for move, after, gained in _children(columns):
                if after in seen:
                    continue
                seen.add(after)
                total = removed + gained
                if total == 4 or not any(after):
                    return _checked(code, (*path, move))
                candidates.append(
                    (_score(after, total), len(candidates), after, total, (*path, move))
                )
        if not candidates:
            return None
        best = heapq.nlargest(width, candidates)
        beam = [(after, total, path) for _, _, after, total, path in best]
    return None


def _checked(code: str, path: Sequence[tuple[int, int, int]]) -> list[str]:
    game = Game.from_code(code)
    line = [game.push(Move(source, target, count)).text() for source, target, count in path]
    if not game.is_won:
        raise AssertionError(f"the beam line of {code} does not win")
    return line


__all__ = ["beam_line"]
