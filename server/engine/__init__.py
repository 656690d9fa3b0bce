"""The rules of Simple Simon: pure, with no I/O, no clock and no randomness from outside.

Everything else wraps this package: the server's authoritative game per player,
the solver, and the client's instant previews all play by these rules.

>>> from server.engine import Game
>>> game = Game.from_code("SS1-S1-AAAAABD")
>>> print(game.board_text().splitlines()[9])
6S
"""

from .board import board_text, parse_board
from .cards import (
    ACE,
    CLUBS,
    DIAMONDS,
    HEARTS,
    KING,
    SPADES,
    SUIT_COUNTS,
    Card,
    Rank,
    Suit,
    SuitCount,
    card_text,
    make_card,
    pack,
    parse_card,
    rank,
    suit,
)
from .codes import COLUMN_SIZES, GameCode
from .errors import (
    EngineError,
    IllegalMoveError,
    InvalidBoardError,
    InvalidCodeError,
    InvalidMoveError,
    InvalidSnapshotError,
)
from .game import (
    MOVE_COST,
    RUN_BONUS,
    RUNS_PER_GAME,
    START_SCORE,
    UNDO_LIMIT,
    Game,
    Outcome,
    Termination,
    playable_code,
)
from .moves import COLUMNS, Move, parse_moves
from .rules import Rule

__all__ = [
    "ACE",
    "CLUBS",
    "COLUMNS",
    "COLUMN_SIZES",
    "DIAMONDS",
    "HEARTS",
    "KING",
    "MOVE_COST",
    "RUNS_PER_GAME",
    "RUN_BONUS",
    "SPADES",
    "START_SCORE",
    "SUIT_COUNTS",
    "UNDO_LIMIT",
    "Card",
    "EngineError",
    "Game",
    "GameCode",
    "IllegalMoveError",
    "InvalidBoardError",
    "InvalidCodeError",
    "InvalidMoveError",
    "InvalidSnapshotError",
    "Move",
    "Outcome",
    "Rank",
    "Rule",
    "Suit",
    "SuitCount",
    "Termination",
    "board_text",
    "card_text",
    "make_card",
    "pack",
    "parse_board",
    "parse_card",
    "parse_moves",
    "playable_code",
    "rank",
    "suit",
]
