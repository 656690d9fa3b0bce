"""The kinds every layer names: the boards by name, modes and suit counts as tuples."""

from __future__ import annotations

import pytest

from server.kinds import BOARDS, MODES, SUIT_COUNTS, board_named


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
