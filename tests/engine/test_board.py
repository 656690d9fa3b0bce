"""Board text in the Freecell Solver format: the docs/rules.md example, and refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.engine import Game, InvalidBoardError, parse_board

#: The example deal of docs/rules.md (4 suits, no run removed).
EXAMPLE = (Path(__file__).resolve().parents[1] / "fixtures/example_board.txt").read_text()


def lines(text: str) -> list[str]:
    return text.splitlines()


def test_rules_example_loads_as_four_suits_and_exports_identically() -> None:
    game = Game.from_board(EXAMPLE)
    assert game.suits == 4
    assert game.board_text() == EXAMPLE
    assert (game.moves, game.score, game.removed, game.code) == (0, 500, (), None)


def test_board_reading_accepts_fc_solve_decorations() -> None:
    decorated = "# a comment\nFoundations: H-0 C-0 D-0 S-0\nFreecells:\n" + "".join(
        f": {line}\n" for line in lines(EXAMPLE)
    )
    assert Game.from_board(decorated).board_text() == EXAMPLE


def test_board_reading_accepts_10_for_ten_and_lower_case() -> None:
    text = EXAMPLE.replace("TH", "10h").replace("AS", "as")
    assert Game.from_board(text).board_text() == EXAMPLE


def test_one_and_two_suit_deals_are_inferred_from_their_cards() -> None:
    for code, suits in (("SS1-S1-AAAAABD", 1), ("SS1-S2-AAAAABD", 2)):
        text = Game.from_code(code).board_text()
        game = Game.from_board(text)
        assert (game.suits, game.board_text()) == (suits, text)


def test_board_with_removed_runs_counts_them_and_scores_them() -> None:
    # The example with all the clubs taken out: one run removed.
    text = "".join(
        " ".join(card for card in line.split() if not card.endswith("C")) + "\n"
        for line in lines(EXAMPLE)
    )
    game = Game.from_board(text, 4)
    assert game.removed == (3,)
    assert game.score == 600
    assert game.board_text() == text


def test_empty_board_is_a_won_game() -> None:
    game = Game.from_board("\n" * 10, 4)
    assert game.is_won
    assert len(game.removed) == 4
    assert game.score == 900


def swap_first(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("text", "suits", "named"),
    [
        (swap_first(EXAMPLE, "AS", "1S"), None, "column 1: '1S' is not a card"),
        (swap_first(EXAMPLE, "5D", "5X"), None, "column 10: '5X' is not a card"),
        (swap_first(EXAMPLE, "JH", "JHH"), None, "column 3: 'JHH' is not a card"),
        (EXAMPLE + "KS\n", None, "a board has 10 columns, this text has 11 lines"),
        (swap_first(EXAMPLE, "KC", "AC"), 4, "there are 2 of AC; a 4-suit pack has 1"),
        (swap_first(EXAMPLE, "KC", "AC"), None, "there are 2 of AC; a 4-suit pack has 1"),
        (swap_first(EXAMPLE, "KH ", ""), 4, "cards are missing"),
        (swap_first(EXAMPLE, "KH ", ""), None, "cards are missing"),
        (EXAMPLE.replace("H", "S"), None, "there are 2 of AS"),
        (EXAMPLE, 1, "a 1-suit pack has no hearts"),
        (EXAMPLE, 2, "a 2-suit pack has no diamonds"),
        (EXAMPLE, 3, "a pack has 1, 2 or 4 suits, not 3"),
    ],
)
def test_bad_board_text_is_refused_naming_what_is_wrong(
    text: str, suits: int | None, named: str
) -> None:
    with pytest.raises(InvalidBoardError) as refusal:
        Game.from_board(text, suits)
    assert named in str(refusal.value)


def test_too_many_copies_in_a_one_suit_board_is_refused() -> None:
    text = Game.from_code("SS1-S1-AAAAAAA").board_text()
    text = text.replace("KS", "AS", 1)
    with pytest.raises(InvalidBoardError, match="there are 5 of AS; a 1-suit pack has 4"):
        Game.from_board(text, 1)


def test_board_text_that_is_not_text_is_refused() -> None:
    with pytest.raises(InvalidBoardError):
        parse_board(b"AS\n")  # type: ignore[arg-type]


def test_game_built_from_nine_columns_is_refused() -> None:
    columns, suits = parse_board(EXAMPLE)
    with pytest.raises(InvalidBoardError, match="10 columns, not 9"):
        Game(columns[:9], suits)
