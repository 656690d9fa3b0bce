"""Every refusal in server/engine/rules.py, reached by a built position and move."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from server.engine import Game, IllegalMoveError, InvalidMoveError, Move, Rule, parse_moves
from tests.engine.positions import cards, make_game

# (why, columns 1.. deepest card first, move, the rule it breaks); the rest of the
# pack goes to column 10, whose exposed card is then KC.
REFUSALS: list[tuple[str, list[str], Move | str, Rule]] = [
    ("source column 11", ["5S"], Move(10, 1), Rule.NO_SUCH_COLUMN),
    ("source column 0", ["5S"], Move(-1, 1), Rule.NO_SUCH_COLUMN),
    ("target column 11", ["5S", "6H"], Move(0, 10), Rule.NO_SUCH_COLUMN),
    ("target column -1", ["5S", "6H"], Move(0, -1), Rule.NO_SUCH_COLUMN),
    ("onto its own column", ["5S", "6H"], "1-1", Rule.SAME_COLUMN),
    ("explicit count onto its own column", ["5S", "6H"], "1-1x1", Rule.SAME_COLUMN),
    ("from an empty column", ["", "6H"], "1-2", Rule.EMPTY_SOURCE),
    ("from an empty column to an empty one", ["", "6H"], "1-3", Rule.EMPTY_SOURCE),
    ("more cards than the column holds", ["4S 3S", "5H"], "1-2x3", Rule.TOO_MANY_CARDS),
    ("more cards than the column, to empty", ["4S 3S", "5H"], "1-3x9", Rule.TOO_MANY_CARDS),
    ("zero cards", ["4S 3S", "5H"], Move(0, 1, 0), Rule.TOO_MANY_CARDS),
    ("explicit mixed-suit group", ["9S 8H", "TD"], "1-2x2", Rule.NOT_ONE_SUIT),
    ("explicit mixed-suit group to empty", ["9S 8H", "TD"], "1-3x2", Rule.NOT_ONE_SUIT),
    (
        "implied: the fitting card is behind mixed suits",
        ["9S 8H 7H", "TD"],
        "1-2",
        Rule.NOT_ONE_SUIT,
    ),
    ("explicit group with a rank gap", ["9S 7S", "TD"], "1-2x2", Rule.NOT_DESCENDING),
    ("explicit group going up", ["7S 8S", "TD"], "1-3x2", Rule.NOT_DESCENDING),
    (
        "implied: the fitting card is behind a gap",
        ["8S 9S 6S 5S", "9D"],
        "1-2",
        Rule.NOT_DESCENDING,
    ),
    ("implied: no card of the column fits", ["4S 3S", "9H"], "1-2", Rule.NOT_ONE_HIGHER),
    (
        "implied: the card as deep as a fit would be is of another rank, past a suit change",
        ["6S 5H 2C", "5D"],
        "1-2",
        Rule.NOT_ONE_HIGHER,
    ),
    (
        "implied: the card as deep as a fit would be is of another rank, past a rank gap",
        ["KH QH 4S 9C 2S", "7D"],
        "1-2",
        Rule.NOT_ONE_HIGHER,
    ),
    ("implied: that card is an ace's", ["6S 5H 2C", "AD"], "1-2", Rule.ONTO_ACE),
    (
        "explicit: a rank gap is named before a change of suit",
        ["9S 8H 2H", "TD"],
        "1-2x3",
        Rule.NOT_DESCENDING,
    ),
    ("implied: the target is lower", ["5S", "4H"], "1-2", Rule.NOT_ONE_HIGHER),
    ("implied: the same rank", ["5S", "5H"], "1-2", Rule.NOT_ONE_HIGHER),
    ("explicit: one card two ranks apart", ["5S", "7H"], "1-2x1", Rule.NOT_ONE_HIGHER),
    ("explicit: a group whose head does not fit", ["6S 5S", "6H"], "1-2x2", Rule.NOT_ONE_HIGHER),
    ("implied onto an ace", ["5S", "AH"], "1-2", Rule.ONTO_ACE),
    ("explicit onto an ace", ["2S", "AH"], "1-2x1", Rule.ONTO_ACE),
    ("implied: a king onto a card", ["KS", "5H"], "1-2", Rule.KING_NEEDS_EMPTY),
    ("implied: a king onto a queen", ["KS", "QH"], "1-2", Rule.KING_NEEDS_EMPTY),
    ("explicit: a group headed by a king", ["KS QS", "5H"], "1-2x2", Rule.KING_NEEDS_EMPTY),
]


def play(game: Game, move: Move | str) -> Move:
    return game.push(Move.from_text(move) if isinstance(move, str) else move)


@pytest.mark.parametrize(
    ("columns", "move", "rule"), [case[1:] for case in REFUSALS], ids=[case[0] for case in REFUSALS]
)
def test_refused_move_names_the_rule_and_changes_nothing(
    columns: list[str], move: Move | str, rule: Rule
) -> None:
    game = make_game(columns)
    before = game.snapshot()
    assert not game.is_legal(Move.from_text(move) if isinstance(move, str) else move)
    with pytest.raises(IllegalMoveError) as refusal:
        play(game, move)
    assert refusal.value.rule is rule
    assert refusal.value.code == rule.value
    assert refusal.value.message == rule.sentence == str(refusal.value)
    assert game.snapshot() == before


def nothing_to_undo(game: Game) -> object:
    return game.undo()


def auto_move_with_no_target(game: Game) -> object:
    return game.choose_auto_move(0)


def move_in_a_won_game(game: Game) -> object:
    return game.play("1-2")


def auto_move_in_a_won_game(game: Game) -> object:
    return game.auto_move(0)


ACTION_REFUSALS: list[tuple[Callable[[Game], object], Callable[[], Game], Rule]] = [
    (nothing_to_undo, lambda: Game.from_code("SS1-S4-AAAAABD"), Rule.NOTHING_TO_UNDO),
    # Every column holds cards and no exposed card is a 6: the 5S has nowhere to go.
    (
        auto_move_with_no_target,
        lambda: make_game(["5S", "9H", "8H", "QD", "JD", "TD", "3C", "2C", "8C"]),
        Rule.NO_TARGET,
    ),
    (move_in_a_won_game, lambda: Game.from_board("\n" * 10, 4), Rule.GAME_OVER),
    (auto_move_in_a_won_game, lambda: Game.from_board("\n" * 10, 2), Rule.GAME_OVER),
]


@pytest.mark.parametrize(
    ("action", "build", "rule"), ACTION_REFUSALS, ids=[a[0].__name__ for a in ACTION_REFUSALS]
)
def test_refused_action_names_the_rule(
    action: Callable[[Game], object], build: Callable[[], Game], rule: Rule
) -> None:
    game = build()
    with pytest.raises(IllegalMoveError) as refusal:
        action(game)
    assert refusal.value.rule is rule
    assert refusal.value.message == rule.sentence


def test_every_rule_is_reached_by_a_test() -> None:
    reached = {case[3] for case in REFUSALS} | {case[2] for case in ACTION_REFUSALS}
    assert reached == set(Rule)


def test_every_rule_has_a_sentence_and_a_distinct_code() -> None:
    assert len({rule.value for rule in Rule}) == len(Rule)
    for rule in Rule:
        assert rule.sentence.endswith(".")


@pytest.mark.parametrize(
    ("columns", "move", "moved", "left"),
    [
        # Onto a card the implied count is the one group that fits.
        (["9S 8H 7H 6H", "9C"], "1-2", "8H 7H 6H", "9S"),
        (["9S 8H 7H 6H", "8C"], "1-2", "7H 6H", "9S 8H"),
        (["9S 8H 7H 6H", "7C"], "1-2", "6H", "9S 8H 7H"),
        # Into an empty column it is the longest movable group.
        (["9S 8H 7H 6H", "5C"], "1-3", "8H 7H 6H", "9S"),
        (["KS QS JS", "5C"], "1-3", "KS QS JS", ""),
        (["9S 8H 7H 6H", "5C"], "1-3x2", "7H 6H", "9S 8H"),
        (["9S 8H 7H 6H", "9C"], "1-2x3", "8H 7H 6H", "9S"),
        # A card goes on any suit one rank higher; a king into an empty column.
        (["3H", "4S"], "1-2", "3H", ""),
        (["QD", "KC"], "1-2", "QD", ""),
        (["7S KH", "4S"], "1-3", "KH", "7S"),
    ],
)
def test_legal_move_moves_the_implied_or_given_group(
    columns: list[str], move: str, moved: str, left: str
) -> None:
    game = make_game(columns)
    source, target = game.column(0), game.column(Move.from_text(move).target)
    played = game.play(move)
    assert played.count == len(moved.split())
    assert list(game.column(0)) == cards(left)
    assert list(game.column(played.target)) == list(target) + cards(moved)
    assert len(source) == len(left.split()) + played.count
    assert (game.moves, game.score) == (1, 499)


def test_resolve_makes_the_count_explicit_without_playing() -> None:
    game = make_game(["9S 8H 7H 6H", "9C"])
    assert game.resolve(Move(0, 1)) == Move(0, 1, 3)
    assert game.resolve(Move(0, 2)) == Move(0, 2, 3)
    assert game.moves == 0


def test_targets_lists_every_column_a_group_may_go_to() -> None:
    game = make_game(["8H 7H", "9S", "", "8D", "AC", "7S"])
    # Column 10 holds the rest of the pack and ends in KC; columns 7 to 9 are empty.
    assert game.targets(0) == [1, 2, 3, 6, 7, 8]
    assert game.targets(0, 1) == [2, 3, 6, 7, 8]
    assert game.targets(0, 2) == [1, 2, 6, 7, 8]
    assert game.targets(4) == [2, 6, 7, 8]  # an ace goes only into empty columns


@pytest.mark.parametrize(
    ("source", "count", "rule"),
    [(2, None, Rule.EMPTY_SOURCE), (0, 3, Rule.TOO_MANY_CARDS), (12, None, Rule.NO_SUCH_COLUMN)],
)
def test_targets_of_an_impossible_group_are_refused(
    source: int, count: int | None, rule: Rule
) -> None:
    game = make_game(["8H 7H", "9S", ""])
    with pytest.raises(IllegalMoveError) as refusal:
        game.targets(source, count)
    assert refusal.value.rule is rule


def test_targets_of_a_mixed_group_are_refused_with_the_group_rule() -> None:
    game = make_game(["8S 7H", "9S", ""])
    with pytest.raises(IllegalMoveError) as refusal:
        game.targets(0, 2)
    assert refusal.value.rule is Rule.NOT_ONE_SUIT


@pytest.mark.parametrize(
    "text",
    [
        "",
        "3",
        "3-",
        "-7",
        "3-7x",
        "3-7x0",
        "a-b",
        "3--7",
        "3-7x2x",
        "3_7",
        "3-7y2",
        "x3-7",
        "3-7-2",
        "100-1",
        "3-7x100",
        "3 7",
        "three-seven",
    ],
)
def test_junk_move_notation_is_refused_as_invalid(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        Move.from_text(text)


@pytest.mark.parametrize("text", ["0-3", "11-2", "3-11", "99-1"])
def test_a_column_past_the_ten_parses_and_the_rules_refuse_it(text: str) -> None:
    """A number outside 1-10 is notation all the same: the rules name what it breaks
    (``no-such-column``), as for any other refused move."""
    move = Move.from_text(text)
    game = Game.from_code("SS1-S1-AAAAABD")
    with pytest.raises(IllegalMoveError) as refused:
        game.push(move)
    assert refused.value.rule is Rule.NO_SUCH_COLUMN


def test_move_notation_that_is_not_text_is_refused() -> None:
    with pytest.raises(InvalidMoveError):
        Move.from_text(37)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("3-7", Move(2, 6)),
        ("3-7x2", Move(2, 6, 2)),
        (" 10 - 1 X 12 ", Move(9, 0, 12)),
        ("1-10", Move(0, 9)),
    ],
)
def test_move_notation_reads_and_writes_back(text: str, move: Move) -> None:
    assert Move.from_text(text) == move
    assert Move.from_text(move.text()) == move
    assert str(move) == move.text()


def test_move_list_splits_on_spaces_and_commas() -> None:
    assert parse_moves(" 3-7, 1-2x3\n10-1 ") == [Move(2, 6), Move(0, 1, 3), Move(9, 0)]
    assert parse_moves("") == []
    with pytest.raises(InvalidMoveError):
        parse_moves("3-7 junk")
