"""Game codes and the deal they stand for.

A code is ``SS1-S<suits>-<7 letters>``: ``SS1`` names the code format, ``S1``,
``S2`` or ``S4`` the suit count, and the letters a deal number written in base 26
(``A`` = 0, most significant letter first), so each suit count has 26**7 deals.

The shuffle is defined here, not borrowed from :mod:`random`, so that a code
deals the same layout on every machine, Python version and release forever:
a Fisher-Yates shuffle of :func:`~server.engine.cards.pack` driven by SHA-256
in counter mode, with rejection sampling so every permutation is equally likely.
Golden tests pin it; changing anything here changes every deal ever played.

>>> code = GameCode.parse("SS1-S4-AAAAABD")
>>> code.suits, code.number, str(code)
(4, 29, 'SS1-S4-AAAAABD')
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from .cards import PACK_SIZE, SUIT_COUNTS, Card, pack
from .errors import InvalidCodeError

CODE_FORMAT: Final = "SS1"
LETTERS: Final = 7
DEALS_PER_SUIT_COUNT: Final = 26**LETTERS
#: Cards dealt to each column, left to right; the first card of a column lies deepest.
COLUMN_SIZES: Final = (8, 8, 8, 7, 6, 5, 4, 3, 2, 1)

_CODE_SHAPE = re.compile(r"^([A-Z0-9]+)-S(\d+)-([A-Z]*)$", re.ASCII)


@dataclass(frozen=True, slots=True)
class GameCode:
    suits: int
    number: int

    def __post_init__(self) -> None:
        if self.suits not in SUIT_COUNTS:
            raise InvalidCodeError(f"a game has 1, 2 or 4 suits, not {self.suits}")
        if not 0 <= self.number < DEALS_PER_SUIT_COUNT:
            raise InvalidCodeError(f"a deal number is 0 to {DEALS_PER_SUIT_COUNT - 1}")

    @classmethod
    def parse(cls, text: str) -> GameCode:
        """Read a code such as ``SS1-S2-QWERTYU``; case and surrounding spaces do not matter."""
        if not isinstance(text, str):
            raise InvalidCodeError("a game code is text like SS1-S4-AAAAABD")
        match = _CODE_SHAPE.match(text.strip().upper())
        if match is None:
            raise InvalidCodeError(
                f"{text!r} is not a game code: it looks like SS1-S4-AAAAABD "
                "(format SS1, suits S1, S2 or S4, then 7 letters A-Z)"
            )
        code_format, suits, letters = match.groups()
        if code_format != CODE_FORMAT:
            raise InvalidCodeError(f"unknown code format {code_format!r}: this server reads SS1")
        if suits not in ("1", "2", "4"):
            raise InvalidCodeError(f"S{suits} is not a suit count: use S1, S2 or S4")
        if len(letters) != LETTERS:
            raise InvalidCodeError(
                f"a game code ends in {LETTERS} letters A-Z, {letters!r} has {len(letters)}"
            )
        number = 0
        for letter in letters:
            number = number * 26 + ord(letter) - ord("A")
        return cls(int(suits), number)

    def __str__(self) -> str:
        letters = []
        number = self.number
        for _ in range(LETTERS):
            number, digit = divmod(number, 26)
            letters.append(chr(ord("A") + digit))
        return f"{CODE_FORMAT}-S{self.suits}-{''.join(reversed(letters))}"

    def deal(self) -> list[list[Card]]:
        """The ten columns this code deals, deepest card first."""
        cards = shuffled_pack(self.suits, self.number)
        columns: list[list[Card]] = []
        start = 0
        for size in COLUMN_SIZES:
            columns.append(list(cards[start : start + size]))
            start += size
        return columns


#: Deals remembered: a day's few dailies are dealt once per game everyone plays, and a
#: random practice deal once to check it and once to lay it out (a shuffle is ~55 us).
_DEALS_REMEMBERED: Final = 256


@lru_cache(maxsize=_DEALS_REMEMBERED)
def shuffled_pack(suits: int, number: int) -> tuple[Card, ...]:
    """The pack for ``suits`` in the order deal ``number`` lays it out."""
    cards = pack(suits)
    draw = _UniformDraws(f"{CODE_FORMAT}|S{suits}|{number}".encode())
    for i in range(PACK_SIZE - 1, 0, -1):
        j = draw.below(i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


class _UniformDraws:
    """Unbiased integers from SHA-256(seed || counter), 32 bits at a time."""

    def __init__(self, seed: bytes) -> None:
        self._seed = seed
        self._counter = 0
        self._buffer = b""

    def _next_u32(self) -> int:
        if len(self._buffer) < 4:
            block = hashlib.sha256(self._seed + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._buffer += block
        value = int.from_bytes(self._buffer[:4], "big")
        self._buffer = self._buffer[4:]
        return value

    def below(self, bound: int) -> int:
        limit = (1 << 32) - (1 << 32) % bound
        while True:
            value = self._next_u32()
            if value < limit:
                return value % bound
