"""The solver: verdicts, budgets, and solutions that win under two independent rule books."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import Game, GameCode, Move
from server.solver import Solution, Verdict, solve
from server.solver.search import Costs, breaks, canonical, children
from tests.engine.reference_rules import play_to_end as play

EXAMPLE = (Path(__file__).resolve().parents[2] / "tests/fixtures/example_board.txt").read_text()

# Four runs each missing only its ace, the aces exposed elsewhere: won in exactly 4 moves.
NEARLY_WON = """\
KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S
KH QH JH TH 9H 8H 7H 6H 5H 4H 3H 2H
KD QD JD TD 9D 8D 7D 6D 5D 4D 3D 2D
KC QC JC TC 9C 8C 7C 6C 5C 4C 3C 2C
AS
AH
AD
AC
"""


def _stuck_board() -> Game:
    """A 4-suit board with no legal first move.

    The exposed cards are the four aces (nothing goes on an ace), the four kings
    (a king needs an empty column) and a 5 and a 9 (no 4, 6, 8 or T is exposed
    to go on them or take them); the rest are dealt under them, reshuffled until
    no column's exposed group could go anywhere either.
    """
    exposed = ["AS", "AH", "AD", "AC", "KS", "KH", "KD", "KC", "5H", "9D"]
    rest = [c for c in (r + s for s in "SHDC" for r in "A23456789TJQK") if c not in exposed]
    rng = random.Random(7)
    for _ in range(1000):
        rng.shuffle(rest)
        columns = [[*rest[i * 4 : i * 4 + 4], top] for i, top in enumerate(exposed)]
        columns[0][:0] = rest[40:]
        game = Game.from_board("\n".join(" ".join(column) for column in columns))
        if next(game.legal_moves(), None) is None:
            return game
    raise AssertionError("no stuck board found")


def _wins(game: Game, solution: Solution) -> None:
    """Check a WINNABLE solution with the engine and with the independent rule book."""
    assert solution.verdict is Verdict.WINNABLE
    texts = [move.text() for move in solution.moves]
    assert all("x" in text for text in texts)  # counts always explicit
    replay = game.copy()
    for move in solution.moves:
        replay.push(Move.from_text(move.text()))
    assert replay.is_won
    assert replay.moves == game.moves + len(texts)
    assert replay.score == 900 - replay.moves
    assert play(game.board_text(), texts)


def test_nearly_won_board_takes_four_moves() -> None:
    game = Game.from_board(NEARLY_WON)
    solution = solve(game)
    _wins(game, solution)
    assert len(solution.moves) == 4


def test_no_legal_first_move_is_proven_unwinnable() -> None:
    game = _stuck_board()
    assert next(game.legal_moves(), None) is None
    solution = solve(game)
    assert solution.verdict is Verdict.UNWINNABLE
    assert solution.solvable is False
    assert solution.moves == []


def test_a_deal_with_a_small_reachable_space_is_proven_unwinnable() -> None:
    # deal 15 of 4 suits: every line ends stuck after a few hundred positions
    solution = solve(Game.from_code("SS1-S4-AAAAAAP"))
    assert solution.verdict is Verdict.UNWINNABLE
    assert 1 < solution.nodes < 5_000


def test_node_budget_exhaustion_gives_unknown() -> None:
    solution = solve(Game.from_code("SS1-S4-AAAAABD"), max_nodes=50)
    assert solution.verdict is Verdict.UNKNOWN
    assert solution.solvable is None
    assert solution.nodes <= 50 + 3


def test_seconds_budget_uses_the_given_clock() -> None:
    # a clock that jumps a minute per reading: the first check after the start is too late
    ticks = iter(range(0, 10**9, 60))
    solution = solve(
        Game.from_code("SS1-S4-AAAAABD"), max_nodes=None, max_seconds=5, clock=lambda: next(ticks)
    )
    assert solution.verdict is Verdict.UNKNOWN
    assert solution.nodes <= 256


@pytest.mark.parametrize(
    "code", ["SS1-S1-AAAAABD", "SS1-S2-AAAAABD", "SS1-S4-AAAAAAH", "SS1-S4-AAAAABD"]
)
def test_solutions_win_with_engine_and_rule_book(code: str) -> None:
    game = Game.from_code(code)
    _wins(game, solve(game, max_nodes=6_000))


def test_solving_starts_from_the_current_position() -> None:
    game = Game.from_board(NEARLY_WON)
    game.play("5-1")
    solution = solve(game)
    _wins(game, solution)
    assert len(solution.moves) == 3


@functools.cache
def _example_solution() -> Solution:
    return solve(Game.from_board(EXAMPLE))


def test_rules_example_is_won_much_shorter_than_freecell_solver() -> None:
    # Freecell Solver's best presets need 89 single moves here once expanded.
    _wins(Game.from_board(EXAMPLE), _example_solution())
    assert len(_example_solution().moves) <= 62


def test_column_order_does_not_change_the_result() -> None:
    game = Game.from_code("SS1-S4-AAAAAAH")
    columns = [list(c) for c in game.columns]
    random.Random(3).shuffle(columns)
    shuffled = Game(columns, 4)
    first, second = solve(game, max_nodes=6_000), solve(shuffled, max_nodes=6_000)
    assert first.verdict is second.verdict is Verdict.WINNABLE
    _wins(shuffled, second)


@settings(max_examples=20, deadline=None)
@given(
    suits=st.sampled_from([1, 2, 4]),
    number=st.integers(0, 26**7 - 1),
    walk=st.lists(st.integers(0, 10**6), max_size=30),
    weights=st.tuples(st.integers(0, 3), st.integers(0, 4), st.integers(0, 4), st.integers(0, 3)),
)
def test_heuristic_changes_match_a_full_recount(
    suits: int, number: int, walk: list[int], weights: tuple[int, int, int, int]
) -> None:
    """The search updates its heuristic per move; it must equal counting from scratch."""
    costs = Costs(*weights)
    state = tuple(bytes(c) for c in GameCode(suits, number).deal())
    for pick in walk:
        options = children(state, costs)
        if not options:
            break
        for _s, _t, _c, new, delta in options:
            assert breaks(tuple(new), costs) - breaks(state, costs) == delta
        state = tuple(options[pick % len(options)][3])


@settings(max_examples=25, deadline=None)
@given(suits=st.sampled_from([1, 2, 4]), number=st.integers(0, 26**7 - 1))
def test_generated_moves_are_exactly_the_useful_legal_moves(suits: int, number: int) -> None:
    """Every child is a legal engine move with the same result; no useful legal move is missing."""
    game = Game.from_code(GameCode(suits, number))
    state = tuple(bytes(c) for c in game.columns)
    generated = {(s, t, c): canonical(new) for s, t, c, new, _ in children(state)}
    reachable = set()
    for move in game.legal_moves():
        after = game.copy()
        after.push(move)
        reachable.add(canonical(tuple(bytes(c) for c in after.columns)))
    for (source, target, count), key in generated.items():
        after = game.copy()
        after.push(Move(source, target, count))
        assert canonical(tuple(bytes(c) for c in after.columns)) == key
    # moving a whole column into an empty one changes nothing (left out); with
    # identical cards a move can also give back the same position (harmless)
    reachable.discard(canonical(state))
    assert reachable == set(generated.values()) - {canonical(state)}


def test_rule_book_refuses_an_illegal_move() -> None:
    with pytest.raises(AssertionError):
        play(EXAMPLE, ["1-2x2"])  # 4C with TH above it is not a group
