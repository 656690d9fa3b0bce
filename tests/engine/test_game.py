"""Run removal, the win, score, double-click moves, undo, restart and snapshots."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.engine import (
    UNDO_LIMIT,
    Game,
    IllegalMoveError,
    InvalidBoardError,
    InvalidSnapshotError,
    Move,
    Rule,
    Termination,
)
from tests.engine.positions import cards, make_game

SPADES_K_TO_2 = "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S"


# -- removal of runs, the win and the score ------------------------------------------


def test_one_suit_king_to_ace_is_removed_right_after_the_move_that_makes_it() -> None:
    game = make_game([SPADES_K_TO_2, "AS"])
    game.play("2-1")
    assert game.column(0) == () and game.column(1) == ()
    assert game.removed == (0,)
    assert (game.moves, game.score) == (1, 500 - 1 + 100)


def test_run_completed_by_a_group_move_is_removed_leaving_the_cards_under_it() -> None:
    game = make_game(["5D KH QH JH TH 9H 8H 7H", "9C 6H 5H 4H 3H 2H AH"])
    assert game.play("2-1") == Move(1, 0, 6)
    assert list(game.column(0)) == cards("5D")
    assert list(game.column(1)) == cards("9C")
    assert game.removed == (1,)
    assert game.score == 599


@pytest.mark.parametrize(
    "column",
    [SPADES_K_TO_2 + " AS", "5D " + SPADES_K_TO_2 + " AS", SPADES_K_TO_2 + " AS 5H"],
    ids=["at-the-end", "on-a-card", "covered"],
)
def test_board_holding_a_complete_run_is_refused(column: str) -> None:
    # Play removes a run the moment it is made and nothing goes on an ace, so no
    # game reaches a layout holding a whole run: such board text is refused.
    with pytest.raises(InvalidBoardError, match="complete run"):
        make_game([column, "6C"])


def test_mixed_suit_king_to_ace_is_not_removed() -> None:
    game = make_game([SPADES_K_TO_2, "AH"])
    game.play("2-1")
    assert len(game.column(0)) == 13
    assert game.removed == ()
    assert game.score == 499


def test_two_suit_pack_removes_each_copy_of_a_run() -> None:
    game = make_game([SPADES_K_TO_2, "AS", SPADES_K_TO_2, "AS"], suits=2)
    game.play("2-1")
    game.play("4-3")
    assert game.removed == (0, 0)
    assert game.score == 500 - 2 + 200


def test_undo_brings_a_removed_run_back_and_the_score_with_it() -> None:
    game = make_game(["5D KH QH JH TH 9H 8H 7H", "9C 6H 5H 4H 3H 2H AH"])
    before = game.snapshot()
    game.play("2-1")
    assert game.undo() == Move(1, 0, 6)
    assert game.snapshot() == before
    assert (game.removed, game.score, game.moves) == ((), 500, 0)
    assert list(game.column(0)) == cards("5D KH QH JH TH 9H 8H 7H")


def test_removing_the_last_run_wins_with_900_less_the_moves() -> None:
    game = make_game([SPADES_K_TO_2, "AS"], removed="HDC")
    game.play("1-3")
    game.play("3-1")  # a wasted move, to check the score counts it
    assert game.outcome() is None
    game.play("2-1")
    assert game.is_won
    outcome = game.outcome()
    assert outcome is not None and outcome.won
    assert outcome.termination is Termination.WON
    assert game.removed == (1, 2, 3, 0)
    assert game.score == 900 - 3 == 500 - 3 + 4 * 100
    with pytest.raises(IllegalMoveError) as refusal:
        game.play("1-2")
    assert refusal.value.rule is Rule.GAME_OVER
    game.undo()
    assert not game.is_won and game.score == 500 - 2 + 300


def test_score_has_no_floor() -> None:
    game = make_game(["5S", "6H", "6D"])
    for _ in range(300):
        game.play("1-2" if game.column(0) else "2-1")
    assert game.score == 500 - 300
    for _ in range(300):
        game.play("1-2" if game.column(0) else "2-1")
    assert game.score == -100


def test_position_with_no_legal_move_is_an_outcome_of_no_moves() -> None:
    game = make_game(["AS", "3S", "5S", "7S", "9S", "JS", "AH", "3H", "5H"])
    assert list(game.legal_moves()) == []
    outcome = game.outcome()
    assert outcome is not None and outcome.termination is Termination.NO_MOVES
    assert not outcome.won


# -- double-click --------------------------------------------------------------------


# Columns 1-9 all hold cards so that no column is empty unless a test says so.
FULL = ["5S", "9H", "6H", "6D", "QD", "3C", "JD", "TD", "8C"]


@pytest.mark.parametrize(
    ("columns", "source", "count", "chosen"),
    [
        # Same suit first, even when an empty column and a leftmost card also fit.
        (["5S", "6H", "", "6S"], 0, None, Move(0, 3, 1)),
        # Then an empty column, before a card of another suit.
        (["9C 5S", "6H", ""], 0, None, Move(0, 2, 1)),
        # Then any legal card, leftmost first.
        (FULL, 0, None, Move(0, 2, 1)),
        # Longest group first: 8S 7S onto the 9S.
        (["9C 8S 7S", "8H", "9S", ""], 0, None, Move(0, 2, 2)),
        # The group asked for: only the 7S, onto the 8H.
        (["9C 8S 7S", "8H", "9S", "8D", *FULL[4:]], 0, 1, Move(0, 1, 1)),
        # Into an empty column the longest movable group goes.
        (["9C 8S 7S", "5H", ""], 0, None, Move(0, 2, 2)),
    ],
)
def test_double_click_picks_same_suit_then_empty_then_any_card_leftmost(
    columns: list[str], source: int, count: int | None, chosen: Move
) -> None:
    game = make_game(columns)
    assert game.choose_auto_move(source, count) == chosen
    assert game.moves == 0
    assert game.auto_move(source, count) == chosen
    assert game.moves == 1


def test_double_click_ties_between_same_suit_cards_go_to_the_leftmost() -> None:
    game = make_game(["5S", "6H", "6S", "", "6S"], suits=2)
    assert game.choose_auto_move(0) == Move(0, 2, 1)


def test_double_click_never_moves_a_whole_column_into_an_empty_one() -> None:
    # The lone 5S skips the empty column 2 and goes onto the 6H.
    game = make_game(["5S", "", *FULL[1:]], filler=9)
    assert game.choose_auto_move(0) == Move(0, 3, 1)
    game = make_game(["4S", "", "9H", "9D", "QD", "3C", "JD", "TD", "8C"])
    with pytest.raises(IllegalMoveError) as refusal:
        game.choose_auto_move(0)
    assert refusal.value.rule is Rule.NO_TARGET


def test_double_click_on_a_group_that_cannot_move_names_the_group_rule() -> None:
    game = make_game(["9C 8S 7H", "9S"])
    with pytest.raises(IllegalMoveError) as refusal:
        game.choose_auto_move(0, 2)
    assert refusal.value.rule is Rule.NOT_ONE_SUIT


# -- undo, restart, snapshots --------------------------------------------------------


def shuttle(game: Game, times: int) -> None:
    """Move the 5S back and forth between the 6H and the 6D."""
    for _ in range(times):
        game.play("1-2" if game.column(0) else "2-1")


def test_undo_goes_back_at_most_100_moves() -> None:
    assert UNDO_LIMIT == 100
    game = make_game(["5S", "6H", "6D"])
    shuttle(game, 150)
    for _ in range(100):
        game.undo()
    assert (game.moves, game.score, game.can_undo) == (50, 450, False)
    with pytest.raises(IllegalMoveError) as refusal:
        game.undo()
    assert refusal.value.rule is Rule.NOTHING_TO_UNDO
    assert game.moves == 50


def test_undo_returns_each_move_in_reverse_order() -> None:
    game = Game.from_code("SS1-S4-AAAAABD")
    states, played = [], []
    for _ in range(10):
        states.append(game.snapshot())
        played.append(game.push(next(game.legal_moves())))
    for move, state in zip(reversed(played), reversed(states), strict=True):
        assert game.undo() == move
        assert game.snapshot() == state


def test_restart_deals_the_same_layout_with_a_fresh_score_and_no_undo() -> None:
    fresh = make_game(["5D KH QH JH TH 9H 8H 7H", "9C 6H 5H 4H 3H 2H AH"])
    game = fresh.copy()
    game.play("2-1")
    game.play("1-3")
    game.restart()
    assert game == fresh
    assert (game.moves, game.score, game.removed, game.can_undo) == (0, 500, (), False)
    assert game.board_text() == fresh.board_text()


def test_restart_of_a_coded_game_keeps_its_code() -> None:
    game = Game.from_code("SS1-S2-QWERTYU")
    game.push(next(game.legal_moves()))
    game.restart()
    assert game == Game.from_code("SS1-S2-QWERTYU")


@pytest.mark.parametrize("source", ["code", "board"])
def test_snapshot_restore_is_exact_with_history_and_removed_runs(source: str) -> None:
    if source == "code":
        game = Game.from_code("SS1-S4-AAAAABD")
        for _ in range(7):
            game.push(next(game.legal_moves()))
    else:
        game = make_game(["5D KH QH JH TH 9H 8H 7H", "9C 6H 5H 4H 3H 2H AH", "5S", "6C", "6D"])
        game.play("2-1")  # a removed run
        for text in ["3-4", "4-5", "5-3"] * 40:  # more moves than the undo limit
            game.play(text)
    data = game.snapshot()
    restored = Game.restore(data)
    assert restored == game
    assert restored.snapshot() == data
    assert (restored.code, restored.suits, restored.score) == (game.code, game.suits, game.score)
    # The restored game undoes exactly like the original.
    while game.can_undo:
        assert restored.undo() == game.undo()
        assert restored == game


def test_snapshot_of_a_game_in_progress_stays_small() -> None:
    game = make_game(["5S", "6H", "6D"])
    shuttle(game, 500)
    assert len(game.snapshot()) <= 12 + 10 + 10 + 52 + 1 + 3 * UNDO_LIMIT + 52


@pytest.mark.parametrize(
    "data",
    [b"", b"\x00", b"\x01", b"\x02" * 40, b"\x01\x04\x01", b"\x01\x03\x01" + bytes(80), b"junk"],
)
def test_garbage_snapshot_is_refused_as_invalid(data: bytes) -> None:
    with pytest.raises(InvalidSnapshotError):
        Game.restore(data)


def test_truncated_snapshots_are_all_refused() -> None:
    game = Game.from_code("SS1-S4-AAAAABD")
    data = game.snapshot()
    for end in range(len(data) - 1):
        # Cutting only undo records could still be a game; there are none here.
        with pytest.raises(InvalidSnapshotError):
            Game.restore(data[:end])


def test_snapshot_with_a_card_that_does_not_exist_is_refused() -> None:
    # Column 10 grows from 1 to 2 cards; the extra byte 0xFF is no card at all.
    data = bytearray(Game.from_code("SS1-S4-AAAAABD").snapshot())
    data[12 + 9] += 1
    data.insert(12 + 10 + 52, 0xFF)
    with pytest.raises(InvalidSnapshotError):
        Game.restore(bytes(data))


def test_snapshot_with_more_undo_records_than_moves_is_refused() -> None:
    # A fresh game (0 moves) followed by one forged undo record "1-2, 5 cards":
    # accepted, its undo would leave the game at -1 moves and a score of 501.
    data = Game.from_code("SS1-S4-AAAAABD").snapshot() + bytes((0x01, 5, 0xFF))
    with pytest.raises(InvalidSnapshotError):
        Game.restore(data)


def coded_snapshot() -> bytes:
    game = Game.from_code("SS1-S2-AAAAABD")
    for _ in range(5):
        game.push(next(game.legal_moves()))
    return game.snapshot()


SNAPSHOT = coded_snapshot()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    edits=st.lists(
        st.tuples(st.integers(0, len(SNAPSHOT) - 1), st.integers(0, 255)), min_size=1, max_size=3
    )
)
def test_mutated_snapshot_is_refused_or_is_a_playable_game(edits: list[tuple[int, int]]) -> None:
    data = bytearray(SNAPSHOT)
    for index, value in edits:
        data[index] = value
    try:
        game = Game.restore(bytes(data))
    except InvalidSnapshotError:
        return
    # Whatever is accepted must be a game the engine can show, play and save.
    assert Game.from_board(game.board_text(), game.suits).position_key() == game.position_key()
    list(game.legal_moves())
    assert Game.restore(game.snapshot()) == game


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=200))
def test_random_bytes_never_raise_anything_but_invalid_snapshot(data: bytes) -> None:
    with contextlib.suppress(InvalidSnapshotError):
        Game.restore(data)
