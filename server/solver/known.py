"""Positions of one deal known to be won (with a distance) or lost: what one solution
proves about every position along it, kept to answer the next positions without a search.

A solution of ``n`` moves proves each state along it won, ``n - i`` moves from the end;
a proof that a position is lost is kept too. A position one move from a known won one is
won, one move longer; one whose every move leads to a lost one is lost. Bounded in
memory: past ``most`` positions nothing new is kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .search import Columns, RawMove, canonical, children

#: Positions one table keeps at most (a key is about a hundred bytes).
MOST_KNOWN: Final = 20_000


class Known:
    """A table of positions (by canonical key) known won, with their distance, or lost."""

    def __init__(self, most: int = MOST_KNOWN) -> None:
        self.most = most
        self._won: dict[bytes, int] = {}
        self._lost: set[bytes] = set()

    def __len__(self) -> int:
        return len(self._won) + len(self._lost)

    def won(self, columns: Columns, distance: int) -> None:
        """``columns`` is won in ``distance`` moves (the shorter known is kept)."""
        key = canonical(columns)
        old = self._won.get(key)
        if old is None:
            if len(self) >= self.most:
                return
            self._won[key] = distance
        elif distance < old:
            self._won[key] = distance

    def lost(self, columns: Columns) -> None:
        if len(self) < self.most:
            self._lost.add(canonical(columns))

    def won_along(self, start: Columns, moves: Sequence[RawMove]) -> None:
        """Every state along a winning line from ``start``, won with the rest's length."""
        columns: Columns = start
        self.won(columns, len(moves))
        for index, move in enumerate(moves):
            for source, target, count, new, _ in children(columns):
                if (source, target, count) == move:
                    columns = new
                    break
            else:  # not one of the search's moves: stop trusting the line here
                return
            self.won(columns, len(moves) - index - 1)

    def verdict(self, columns: Columns, distances: bool = True) -> tuple[bool, int | None] | None:
        """(won, distance) or (False, None) if known from the table, looking one move
        ahead; None if not known. Without ``distances``, only lost positions are answered
        (a won one's distance from the table can be longer than a new search finds)."""
        key = canonical(columns)
        distance = self._won.get(key)
        if distance is not None and distances:
            return True, distance
        if key in self._lost:
            return False, None
        best: int | None = None
        every_lost = True
        moves = children(columns)
        for _source, _target, _count, new, _ in moves:
            child = canonical(new)
            found = self._won.get(child)
            if found is not None:
                every_lost = False
                if best is None or found + 1 < best:
                    best = found + 1
            elif child not in self._lost:
                every_lost = False
        if best is not None and distances:
            return True, best
        if moves and every_lost:
            return False, None
        return None
