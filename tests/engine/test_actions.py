"""The action log's words, read back by the rules: moves by their notation, undo and
restart as the engine's own, and the ends that leave the board as it was."""

from __future__ import annotations

import pytest

from server.engine import Game, IllegalMoveError, InvalidMoveError, Move
from server.engine.actions import (
    END_ACTIONS,
    RESTART,
    UNDO,
    apply,
    parse_move,
    replay,
)

CODE = "SS1-S1-AAAAABD"


def _a_legal_move(game: Game) -> Move:
    return next(iter(game.legal_moves()))


def test_a_move_is_read_by_its_notation_and_played_with_its_count() -> None:
    game = Game.from_code(CODE)
    move = _a_legal_move(game)
    played = apply(game, move.text())
    assert played is not None
    assert (played.source, played.target) == (move.source, move.target)
    assert game.board_text() != Game.from_code(CODE).board_text()


def test_undo_and_restart_take_the_board_back() -> None:
    start = Game.from_code(CODE).board_text()
    game = Game.from_code(CODE)
    apply(game, _a_legal_move(game).text())
    assert apply(game, UNDO) is None
    assert game.board_text() == start
    apply(game, _a_legal_move(game).text())
    assert apply(game, RESTART) is None
    assert game.board_text() == start


@pytest.mark.parametrize("end", sorted(END_ACTIONS))
def test_an_end_leaves_the_board_as_it_was(end: str) -> None:
    game = Game.from_code(CODE)
    apply(game, _a_legal_move(game).text())
    before = game.board_text()
    assert apply(game, end) is None
    assert game.board_text() == before


def test_replay_is_the_actions_applied_in_turn() -> None:
    game = Game.from_code(CODE)
    first = _a_legal_move(game).text()
    apply(game, first)
    second = _a_legal_move(game).text()
    apply(game, second)
    assert replay(CODE, [first, second, UNDO]).board_text() == replay(CODE, [first]).board_text()


def test_a_text_that_is_no_move_is_refused_and_not_remembered() -> None:
    with pytest.raises(InvalidMoveError):
        parse_move("3-")
    with pytest.raises(InvalidMoveError):
        parse_move("3-")
    assert parse_move("3-7") == Move.from_text("3-7")


def test_an_illegal_move_in_a_log_raises_the_rules_error() -> None:
    game = Game.from_code(CODE)
    with pytest.raises(IllegalMoveError):
        apply(game, "1-1")
