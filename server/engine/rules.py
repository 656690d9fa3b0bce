"""The rules a refused action can break: a stable code and a sentence for the player.

Codes are part of the protocol and never change meaning; add new ones, never reuse. The
sentences are in English, the catalogs' source: the server says each one in the player's
language at its edge (``N_`` marks them for the catalog; the engine looks nothing up).
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


def N_(sentence: str) -> str:
    """Marks ``sentence`` for the server's catalog (``pybabel extract``); the engine keeps
    no catalog of its own."""
    return sentence


_SENTENCES: dict[Rule, str] = {
    Rule.NO_SUCH_COLUMN: N_("Columns are numbered 1 to 10."),
    Rule.SAME_COLUMN: N_("A card must move to another column."),
    Rule.EMPTY_SOURCE: N_("That column is empty: there is nothing to move."),
    Rule.TOO_MANY_CARDS: N_("That column does not have that many cards."),
    Rule.NOT_ONE_SUIT: N_("A group moves together only when it is all one suit."),
    Rule.NOT_DESCENDING: N_("A group moves together only when its ranks go down one by one."),
    Rule.NOT_ONE_HIGHER: N_(
        "A card goes only on a card exactly one rank higher, or an empty column."
    ),
    Rule.ONTO_ACE: N_("Nothing can be put on an ace."),
    Rule.KING_NEEDS_EMPTY: N_("A king can move only to an empty column."),
    Rule.NO_TARGET: N_("That group has nowhere to go."),
    Rule.GAME_OVER: N_("The game is over."),
    Rule.NOTHING_TO_UNDO: N_("There is nothing to undo."),
}
