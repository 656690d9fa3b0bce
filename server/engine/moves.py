"""A move and its text notation ``FROM-TO`` or ``FROM-TOxN`` (columns 1 to 10).

>>> Move.from_text("3-7x2")
Move(source=2, target=6, count=2)
>>> Move(2, 6).text()
'3-7'

Without ``xN`` the count is implied when the move is played: onto a card, the
one group that fits; into an empty column, the longest movable group.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from .errors import InvalidMoveError

COLUMNS: Final = 10

_NOTATION = re.compile(r"^\s*(\d{1,2})\s*-\s*(\d{1,2})\s*(?:[xX]\s*(\d{1,2}))?\s*$", re.ASCII)


@dataclass(frozen=True, slots=True)
class Move:
    source: int  # 0-based column
    target: int  # 0-based column
    count: int | None = None  # cards moved; None until resolved against a board

    @classmethod
    def from_text(cls, text: str) -> Move:
        if not isinstance(text, str):
            raise InvalidMoveError("a move is text like 3-7 or 3-7x2")
        match = _NOTATION.match(text)
        if match is None:
            raise InvalidMoveError(
                f"{text!r} is not a move: write FROM-TO or FROM-TOxN, like 3-7 or 3-7x2"
            )
        source, target, count = match.groups()
        # a column past 10 (or 0) parses: the rules refuse it (Rule.NO_SUCH_COLUMN)
        if count is not None and int(count) < 1:
            raise InvalidMoveError(f"{text!r}: a move takes at least one card")
        return cls(int(source) - 1, int(target) - 1, None if count is None else int(count))

    def text(self) -> str:
        base = f"{self.source + 1}-{self.target + 1}"
        return base if self.count is None else f"{base}x{self.count}"

    def __str__(self) -> str:
        return self.text()


def parse_moves(text: str) -> list[Move]:
    """Read a list of moves separated by spaces or commas: ``"3-7 1-2x3"``."""
    return [Move.from_text(token) for token in re.split(r"[\s,]+", text.strip()) if token]
