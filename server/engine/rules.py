"""The rules a refused action can break: a stable code and a sentence for the player.

Codes are part of the protocol and never change meaning; add new ones, never reuse.
"""

from __future__ import annotations

from enum import StrEnum


class Rule(StrEnum):
    NO_SUCH_COLUMN = "no-such-column"
    SAME_COLUMN = "same-column"
    EMPTY_SOURCE = "empty-source"
    TOO_MANY_CARDS = "too-many-cards"
    NOT_ONE_SUIT = "group-not-one-suit"
    NOT_DESCENDING = "group-not-descending"
    NOT_ONE_HIGHER = "target-not-one-higher"
    ONTO_ACE = "nothing-on-an-ace"
    KING_NEEDS_EMPTY = "king-needs-empty-column"
    NO_TARGET = "no-legal-target"
    GAME_OVER = "game-over"
    NOTHING_TO_UNDO = "nothing-to-undo"

    @property
    def sentence(self) -> str:
        return _SENTENCES[self]


_SENTENCES: dict[Rule, str] = {
    Rule.NO_SUCH_COLUMN: "Columns are numbered 1 to 10.",
    Rule.SAME_COLUMN: "A card must move to another column.",
    Rule.EMPTY_SOURCE: "That column is empty: there is nothing to move.",
    Rule.TOO_MANY_CARDS: "That column does not have that many cards.",
    Rule.NOT_ONE_SUIT: "A group moves together only when it is all one suit.",
    Rule.NOT_DESCENDING: "A group moves together only when its ranks go down one by one.",
    Rule.NOT_ONE_HIGHER: "A card goes only on a card exactly one rank higher, or an empty column.",
    Rule.ONTO_ACE: "Nothing can be put on an ace.",
    Rule.KING_NEEDS_EMPTY: "A king can move only to an empty column.",
    Rule.NO_TARGET: "That group has nowhere to go.",
    Rule.GAME_OVER: "The game is over.",
    Rule.NOTHING_TO_UNDO: "There is nothing to undo.",
}
