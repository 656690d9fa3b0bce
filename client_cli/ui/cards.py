"""The board as the play screen draws it: numbered columns, deepest card first, suit
symbols in a four-colour pack. Plain rich text, so ``simon deal`` and ``simon replay``
print the very same board without loading the screen.

>>> from server.engine import Game
>>> print(render_board(Game.from_code("SS1-S4-AAAAABD").columns).plain.splitlines()[0].strip())
1    2    3    4    5    6    7    8    9    10
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.text import Text

from server.engine import COLUMNS, Card, rank, suit
from server.engine.cards import RANK_LETTERS, SUIT_LETTERS

SUIT_SYMBOLS = "♠♥♦♣"
#: A four-colour pack that reads on dark and light terminals; the symbol carries the suit too.
SUIT_STYLES = ("bold", "bold red", "bold dodger_blue2", "bold green3")
CELL = 5  # the narrowest column: " T♥ " and a gap
WIDEST = 9  # columns wider than this only spread the cards apart
HEADER = 2  # the column numbers, then the marks of the legal targets


def card_label(card: Card, letters: bool = False) -> str:
    """``T♥``, or ``TH`` with ``letters``: readable with or without colour."""
    symbols = SUIT_LETTERS if letters else SUIT_SYMBOLS
    return RANK_LETTERS[rank(card) - 1] + symbols[suit(card)]


def group_label(cards: Sequence[Card], letters: bool = False) -> str:
    """A group of cards: ``3♥ 2♥``, or its first and last when longer: ``6♥…2♥``."""
    labels = [card_label(card, letters) for card in cards]
    return " ".join(labels) if len(labels) <= 2 else f"{labels[0]}…{labels[-1]}"


def movable_run(column: Sequence[Card]) -> int:
    """How many cards at the end of a column go down one by one in one suit."""
    count = 1 if column else 0
    while count < len(column) and column[-count - 1] == column[-count] + 1:
        count += 1
    return count


def render_board(
    columns: Sequence[Sequence[Card]],
    *,
    letters: bool = False,
    cell: int = CELL,
    row_height: int = 1,
    selected: int | None = None,
    selected_count: int | None = None,
    targets: Iterable[int] = (),
    marks: bool = True,
    footer: bool = False,
) -> Text:
    """The ten columns under their numbers, ``cell`` characters each, a card every
    ``row_height`` lines; the chosen group in reverse, its legal targets green and ``▼``.
    ``footer``: the numbers again under the cards (a board taller than the screen)."""
    targets = frozenset(targets)
    width = cell - 1
    text = Text(no_wrap=True)
    _numbers(text, width, selected, targets)
    if marks:
        text.append("\n")
        for index in range(COLUMNS):
            mark = "▼" if index in targets else " "
            text.append(f"{mark:^{width}} ", "green3")
    height = max(1, max(len(column) for column in columns))
    for row in range(height):
        text.append("\n" * (row_height if row else 1))
        for index, column in enumerate(columns):
            chosen = selected_count if index == selected else None
            text.append_text(
                _cell(column, row, width, letters, index == selected, chosen, index in targets)
            )
            text.append(" ")
    if footer:
        text.append("\n")
        _numbers(text, width, selected, targets)
    return text


def board_lines(columns: Sequence[Sequence[Card]], letters: bool = False) -> list[Text]:
    """The board as :func:`render_board` draws it with no selection, one line of text
    each, with no trailing blanks: for printing outside the screen."""
    lines = list(render_board(columns, letters=letters, marks=False).split("\n"))
    for line in lines:
        line.rstrip()
    return lines


def _numbers(text: Text, width: int, selected: int | None, targets: frozenset[int]) -> None:
    for index in range(COLUMNS):
        style = ""
        if index == selected:
            style = "bold reverse"
        elif index in targets:
            style = "bold black on green3"
        text.append(f"{index + 1:^{width}}", style)
        text.append(" ")


def _cell(
    column: Sequence[Card],
    row: int,
    width: int,
    letters: bool,
    selected: bool,
    count: int | None,
    target: bool,
) -> Text:
    if not column:
        return Text(f"{'··':^{width}}" if row == 0 else " " * width, "dim")
    if row >= len(column):
        return Text(" " * width)
    card = column[row]
    run = movable_run(column)
    style = SUIT_STYLES[suit(card)]
    if row < len(column) - run:  # only the cards that can move are bold
        style = style.replace("bold", "").strip() or "default"
    if selected:
        if row >= len(column) - (count or run):
            style += " reverse"
    elif target and row == len(column) - 1:
        style += " underline on grey23"
    return Text(f"{card_label(card, letters):^{width}}", style)
