"""Move notation: ``FROM-TO`` and ``FROM-TOxN`` both ways, move lists, and refusals."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.engine import COLUMNS, InvalidMoveError, Move, parse_moves

columns = st.integers(min_value=0, max_value=COLUMNS - 1)


@given(source=columns, target=columns, count=st.none() | st.integers(1, 99))
def test_a_moves_text_reads_back_as_the_same_move(
    source: int, target: int, count: int | None
) -> None:
    move = Move(source, target, count)
    assert Move.from_text(move.text()) == move
    assert str(move) == move.text()


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("3-7", Move(2, 6)),
        ("3-7x2", Move(2, 6, 2)),
        ("10-1X13", Move(9, 0, 13)),
        ("  3 - 7 x 2 ", Move(2, 6, 2)),
        ("1-1", Move(0, 0)),  # notation only: the rules refuse the same column
    ],
)
def test_notation_is_one_based_with_an_optional_count(text: str, move: Move) -> None:
    assert Move.from_text(text) == move


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("3-7x0", "at least one card"),
        ("3-7x", "not a move"),
        ("3 7", "not a move"),
        ("", "not a move"),
        ("-3-7", "not a move"),
        ("٣-٧", "not a move"),  # another script's digits are not columns
        ("100-1", "not a move"),
    ],
)
def test_bad_notation_is_refused_saying_why(text: str, says: str) -> None:
    with pytest.raises(InvalidMoveError, match=says):
        Move.from_text(text)


def test_a_move_that_is_not_text_is_refused() -> None:
    with pytest.raises(InvalidMoveError, match="text like 3-7"):
        Move.from_text(37)  # type: ignore[arg-type]  # what a JSON client may send


def test_a_list_of_moves_splits_on_spaces_and_commas() -> None:
    assert parse_moves(" 3-7, 1-2x3\n10-4 ,") == [Move(2, 6), Move(0, 1, 3), Move(9, 3)]
    assert parse_moves("") == []
    assert parse_moves(" , ") == []


def test_a_list_with_one_bad_move_is_refused_naming_it() -> None:
    with pytest.raises(InvalidMoveError, match="'3-x'"):
        parse_moves("1-2 3-x 4-5")
