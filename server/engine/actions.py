"""A game's actions as its log writes them, one text each, and how the rules read them back.

A move is its notation (``3-7x2``: :meth:`Move.from_text`); the other actions are words: an
undo, a restart, and the three ends that change no card (a win, written right after the
winning move; a resignation; a daily closed as it stood when its day ended).

>>> from server.engine import Game
>>> game = Game.from_code("SS1-S1-AAAAABD")
>>> apply(game, RESIGN) is None  # an end leaves the board as it was
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .codes import GameCode
from .game import Game
from .moves import Move

UNDO: Final = "undo"
RESTART: Final = "restart"
WON: Final = "won"
RESIGN: Final = "resign"
CLOSED: Final = "closed"
#: The actions that end a game rather than change its board.
END_ACTIONS: Final = frozenset({WON, RESIGN, CLOSED})

_PARSED: dict[str, Move] = {}
_PARSED_MOST: Final = 4096


def parse_move(text: str) -> Move:
    """``Move.from_text``, remembered: players send the same few hundred texts again and again."""
    move = _PARSED.get(text)
    if move is None:
        move = Move.from_text(text)  # raises InvalidMoveError: nothing is remembered
        if len(_PARSED) < _PARSED_MOST:
            _PARSED[text] = move
    return move


def apply(game: Game, action: str) -> Move | None:
    """Apply one logged action to ``game`` (an end changes nothing on the board); the move
    played, with its count, or None for an undo, a restart or an end."""
    if action == UNDO:
        game.undo()
    elif action == RESTART:
        game.restart()
    elif action not in END_ACTIONS:
        return game.push(parse_move(action))
    return None


def replay(code: str | GameCode, actions: Sequence[str]) -> Game:
    """The game a logged action list leads to; raises the engine's errors on a bad action."""
    game = Game.from_code(code)
    for action in actions:
        apply(game, action)
    return game
