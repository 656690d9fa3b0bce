"""The kinds every layer names: the boards by name, modes and suit counts as tuples."""

from __future__ import annotations

import dataclasses
from datetime import date

import pytest

from server.kinds import (
    BOARDS,
    HUMAN_BOARDS,
    MODES,
    SUIT_COUNTS,
    DayBoard,
    board_named,
    parse_day,
    suit_count,
)


@pytest.mark.parametrize("name", BOARDS)
def test_every_board_is_found_by_its_name(name: str) -> None:
    assert board_named(name) == name


@pytest.mark.parametrize("name", ["", "Humans", "human", " bots", "robots", "new\x00"])
def test_a_name_that_is_no_board_finds_none(name: str) -> None:
    assert board_named(name) is None


def test_the_closed_sets_read_in_their_documented_order() -> None:
    assert BOARDS == ("humans", "bots", "new")
    assert MODES == ("daily", "practice")
    assert SUIT_COUNTS == (1, 2, 4)


@pytest.mark.parametrize("text", ["2026-01-31", "1970-01-01", "2400-02-29"])
def test_a_day_is_read_as_written(text: str) -> None:
    assert parse_day(text).isoformat() == text


@pytest.mark.parametrize(
    "text", ["20260131", "2026-W05-6", "2026-1-31", "2026-01-32", "2026-01-31T00:00", " 2026-01-31"]
)
def test_other_ways_of_writing_a_day_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_day(text)


def test_a_day_board_is_one_hashable_value_the_public_board_by_default() -> None:
    board = DayBoard(date(2026, 3, 1), 2)
    assert board.kind == "humans" and board == DayBoard(date(2026, 3, 1), 2, "humans")
    assert len({board, DayBoard(date(2026, 3, 1), 2), DayBoard(date(2026, 3, 1), 2, "new")}) == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        board.kind = "bots"  # type: ignore[misc]
    assert set(HUMAN_BOARDS) < set(BOARDS) and "bots" not in HUMAN_BOARDS


def test_a_suit_count_is_one_of_the_three() -> None:
    assert [suit_count(n) for n in SUIT_COUNTS] == list(SUIT_COUNTS)
    for number in (0, 3, 5):
        with pytest.raises(ValueError):
            suit_count(number)
