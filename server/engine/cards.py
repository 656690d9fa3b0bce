"""Cards as small ints, the packs for 1, 2 and 4 suits, and their text form.

A card is ``suit << 4 | rank``: rank 1 (ace) to 13 (king), suit 0 to 3 in the
order spades, hearts, diamonds, clubs. Small ints keep boards cheap to copy,
hash and snapshot; identical cards (four aces of spades in a 1-suit pack) are
simply equal ints.

>>> card_text(parse_card("TH"))
'TH'
>>> rank(parse_card("KS")), suit(parse_card("KS"))
(13, 0)
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias, get_args

from .errors import InvalidBoardError

Card: TypeAlias = int
Suit: TypeAlias = int
Rank: TypeAlias = int

SPADES: Final[Suit] = 0
HEARTS: Final[Suit] = 1
DIAMONDS: Final[Suit] = 2
CLUBS: Final[Suit] = 3

ACE: Final[Rank] = 1
KING: Final[Rank] = 13
RUN_LENGTH: Final = 13
PACK_SIZE: Final = 52

SUIT_LETTERS: Final = "SHDC"
RANK_LETTERS: Final = "A23456789TJQK"
#: How many suits a game is dealt with: 1 (Easy), 2 (Medium) or 4 (Hard).
SuitCount = Literal[1, 2, 4]
SUIT_COUNTS: Final[tuple[SuitCount, ...]] = get_args(SuitCount)

#: Which suits make up the four 13-card runs of a pack, by suit count (docs/rules.md).
PACK_RUNS: Final[dict[int, tuple[Suit, ...]]] = {
    1: (SPADES, SPADES, SPADES, SPADES),
    2: (SPADES, SPADES, HEARTS, HEARTS),
    4: (SPADES, HEARTS, DIAMONDS, CLUBS),
}


def make_card(rank_: Rank, suit_: Suit) -> Card:
    return suit_ << 4 | rank_


def rank(card: Card) -> Rank:
    return card & 15


def suit(card: Card) -> Suit:
    return card >> 4


def card_text(card: Card) -> str:
    text = _CARD_TEXTS.get(card)
    if text is None:
        text = RANK_LETTERS[rank(card) - 1] + SUIT_LETTERS[suit(card)]
    return text


#: Every card's text, looked up rather than built: board text is written for every state reply.
_CARD_TEXTS: Final[dict[Card, str]] = {
    make_card(r, s): RANK_LETTERS[r - 1] + SUIT_LETTERS[s]
    for s in range(4)
    for r in range(ACE, KING + 1)
}


def parse_card(text: str) -> Card:
    """Read a card such as ``AS``, ``TH`` or ``10h`` (case does not matter)."""
    token = text.strip().upper()
    if token.startswith("10"):
        token = "T" + token[2:]
    if len(token) != 2 or token[0] not in RANK_LETTERS or token[1] not in SUIT_LETTERS:
        raise InvalidBoardError(
            f"{text!r} is not a card: write a rank (A 2-9 T J Q K) then a suit (S H D C), like TH"
        )
    return make_card(RANK_LETTERS.index(token[0]) + 1, SUIT_LETTERS.index(token[1]))


def pack(suits: int) -> list[Card]:
    """The 52 cards for a suit count, in a fixed order: run by run, ace to king;
    :class:`InvalidBoardError` for a suit count no pack has."""
    if suits not in PACK_RUNS:
        raise InvalidBoardError(f"a pack has 1, 2 or 4 suits, not {suits}")
    return [make_card(r, s) for s in PACK_RUNS[suits] for r in range(ACE, KING + 1)]
