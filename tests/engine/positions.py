"""Build games from a few columns written by hand, for tests that need a precise position.

The engine only accepts whole packs (less removed runs), so the cards a test does
not place are dealt into one filler column, in pack order.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from server.engine import Game, card_text, pack, parse_card

SUIT_INDEX = {"S": 0, "H": 1, "D": 2, "C": 3}


def cards(text: str) -> list[int]:
    """``"KS QS"`` as engine cards."""
    return [parse_card(token) for token in text.split()]


def make_game(
    columns: Sequence[str],
    suits: int = 4,
    *,
    filler: int = 9,
    removed: str = "",
) -> Game:
    """A game whose first columns are ``columns`` (deepest card first).

    Every card of the pack not placed, and not in a run of ``removed`` (suit letters,
    one per removed run), is put at the end of column ``filler``.
    """
    layout = [cards(text) for text in columns] + [[] for _ in range(10 - len(columns))]
    left = Counter(pack(suits))
    for letter in removed:
        for rank in range(1, 14):
            left[SUIT_INDEX[letter] << 4 | rank] -= 1
    for column in layout:
        left.subtract(column)
    if any(n < 0 for n in left.values()):
        extra = [card_text(c) for c, n in left.items() if n < 0]
        raise ValueError(f"too many copies placed: {extra}")
    rest: list[int] = []
    for card in pack(suits):
        if left[card] > 0:
            left[card] -= 1
            rest.append(card)
    layout[filler] = layout[filler] + rest
    return Game(layout, suits)


def near_solved_board(suits: int, seed: int) -> str:
    """Each K..A run of the pack cut into a few one-suit pieces, shuffled among the columns.

    Random play from here completes runs often, so removals and wins get compared too.
    Pieces never join into a whole run as dealt: a run is only ever completed by a move.
    """
    rng = random.Random(seed)
    letters = {1: "SSSS", 2: "SSHH", 4: "SHDC"}[suits]
    whole_runs = [" ".join(f"{rank}{letter}" for rank in "KQJT98765432A") for letter in "SHDC"]
    while True:
        pieces = []
        for letter in letters:
            run = [f"{rank}{letter}" for rank in "KQJT98765432A"]
            cuts = sorted(rng.sample(range(1, 13), rng.randint(1, 3)))
            pieces += [run[i:j] for i, j in zip([0, *cuts], [*cuts, 13], strict=True)]
        rng.shuffle(pieces)
        columns: list[list[str]] = [[] for _ in range(10)]
        for piece in pieces:
            columns[rng.randrange(10)].extend(piece)
        lines = [" ".join(column) for column in columns]
        if not any(run in line for run in whole_runs for line in lines):
            return "".join(line + "\n" for line in lines)
