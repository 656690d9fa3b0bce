"""Board text in the Freecell Solver format (``fc-solve --game simple_simon``).

Ten lines, one column each, deepest card first, cards like ``TH`` or ``AS``
separated by spaces; an empty column is an empty line. On reading, a leading
``:`` on a column line (as fc-solve prints them), ``#`` comment lines and
fc-solve's ``Foundations:``/``Freecells:`` lines are ignored.

A layout must hold a whole pack of 1, 2 or 4 suits less some complete runs
(those already removed); anything else is refused with the reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

from .cards import (
    ACE,
    KING,
    PACK_RUNS,
    RANK_LETTERS,
    SUIT_COUNTS,
    SUIT_LETTERS,
    Card,
    card_text,
    make_card,
    parse_card,
)
from .errors import InvalidBoardError
from .moves import COLUMNS

Columns = list[list[Card]]

_IGNORED_PREFIXES = ("#", "foundations:", "freecells:")


def board_text(columns: Sequence[Sequence[Card]]) -> str:
    return "".join(" ".join([card_text(c) for c in column]) + "\n" for column in columns)


def parse_board(text: str, suits: int | None = None) -> tuple[Columns, int]:
    """Read board text; return the columns and the suit count.

    With ``suits`` omitted the smallest suit count the cards fit is taken (after
    removals a 2-suit and a 4-suit layout can hold the same cards and play alike).
    """
    if not isinstance(text, str):
        raise InvalidBoardError("a board is text: ten lines, one column each")
    lines = [
        line for line in text.splitlines() if not line.strip().lower().startswith(_IGNORED_PREFIXES)
    ]
    while len(lines) > COLUMNS and not lines[-1].strip():
        lines.pop()
    if len(lines) > COLUMNS:
        raise InvalidBoardError(f"a board has {COLUMNS} columns, this text has {len(lines)} lines")
    lines += [""] * (COLUMNS - len(lines))
    columns: Columns = []
    for number, line in enumerate(lines, start=1):
        body = line.strip().removeprefix(":")
        try:
            columns.append([parse_card(token) for token in body.split()])
        except InvalidBoardError as error:
            raise InvalidBoardError(f"column {number}: {error}") from None
    return columns, check_cards(columns, suits)


def removed_runs(columns: Sequence[Sequence[Card]], suits: int) -> list[int]:
    """The suits of the runs missing from ``columns`` for a ``suits`` pack (checked)."""
    counts = Counter(card for column in columns for card in column)
    for card in counts:
        if not (isinstance(card, int) and ACE <= card & 15 <= KING and 0 <= card >> 4 <= 3):
            raise InvalidBoardError(f"{card!r} is not a card")
    copies_in_pack = Counter(PACK_RUNS[suits])
    removed: list[int] = []
    for suit_ in sorted(set(PACK_RUNS[4])):
        in_pack = copies_in_pack.get(suit_, 0)
        per_rank = [counts.get(make_card(r, suit_), 0) for r in range(1, KING + 1)]
        letter = SUIT_LETTERS[suit_]
        if in_pack == 0 and any(per_rank):
            raise InvalidBoardError(f"a {suits}-suit pack has no {_suit_name(suit_)}")
        too_many = next((r for r, n in enumerate(per_rank, 1) if n > in_pack), None)
        if too_many is not None:
            raise InvalidBoardError(
                f"there are {per_rank[too_many - 1]} of {RANK_LETTERS[too_many - 1]}{letter}; "
                f"a {suits}-suit pack has {in_pack}"
            )
        if len(set(per_rank)) > 1:
            fewest = min(range(KING), key=lambda i: per_rank[i])
            most = max(range(KING), key=lambda i: per_rank[i])
            raise InvalidBoardError(
                f"cards are missing: {per_rank[most]} of {RANK_LETTERS[most]}{letter} but only "
                f"{per_rank[fewest]} of {RANK_LETTERS[fewest]}{letter}; only whole runs "
                "of 13 leave the table"
            )
        removed += [suit_] * (in_pack - per_rank[0])
    return removed


def check_cards(columns: Sequence[Sequence[Card]], suits: int | None = None) -> int:
    """Check the cards form a pack less whole runs; return the suit count.

    A complete one-suit run K..A lying in a column is refused too: play removes
    it the moment it is made, and nothing can be put on its ace afterwards.
    """
    for number, column in enumerate(columns, start=1):
        if _holds_complete_run(column):
            raise InvalidBoardError(
                f"column {number} holds a complete run K..A of one suit, which play would "
                "already have removed"
            )
    if suits is not None:
        if suits not in SUIT_COUNTS:
            raise InvalidBoardError(f"a pack has 1, 2 or 4 suits, not {suits}")
        removed_runs(columns, suits)
        return suits
    errors: list[str] = []
    for candidate in SUIT_COUNTS:
        try:
            removed_runs(columns, candidate)
        except InvalidBoardError as error:
            errors.append(f"as {candidate} suit{'s' if candidate > 1 else ''}: {error}")
        else:
            return candidate
    raise InvalidBoardError(
        "the cards are not a pack of 1, 2 or 4 suits less whole runs (" + "; ".join(errors) + ")"
    )


def _holds_complete_run(column: Sequence[Card]) -> bool:
    """Whether 13 cards in a row form K..A of one suit (``suit << 4 | rank`` steps by one)."""
    length = 1
    for upper, lower in pairwise(column):
        length = length + 1 if upper == lower + 1 else 1
        if length == KING and lower & 15 == ACE:
            return True
    return False


def _suit_name(suit_: int) -> str:
    return ("spades", "hearts", "diamonds", "clubs")[suit_]
