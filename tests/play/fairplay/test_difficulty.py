"""The measure of a position's difficulty, and how closely think times follow it."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.engine import Game
from server.play.fairplay.difficulty import choices, follow_z, pooled, spearman, think_follow
from server.solver import solve


def test_the_measure_counts_constructive_moves_only() -> None:
    game = Game.from_code("SS1-S1-ZRVKZUT")
    builds = [
        move
        for move in game.legal_moves()
        if game.column(move.target) and move.count == game.movable_count(move.source)
    ]
    assert choices(game) == len(builds) + 0  # no empty column at the deal
    assert choices(game) <= sum(1 for _ in game.legal_moves())


def test_think_times_that_follow_difficulty_correlate_and_paced_ones_do_not() -> None:
    code = "SS1-S1-ZRVKZUT"
    line = [move.text() for move in solve(Game.from_code(code)).moves]
    game = Game.from_code(code)
    hard = []
    for move in line:
        hard.append(choices(game))
        game.play(move)
    rng = random.Random(4)
    following = [
        (move, 1.0 + h * rng.uniform(0.8, 1.2)) for move, h in zip(line, hard, strict=True)
    ]
    flat = [(move, rng.uniform(2.0, 4.0)) for move in line]
    follow, counted = think_follow(code, following)
    assert follow is not None and follow > 0.8 and counted == len(line) - 1
    paced, _ = think_follow(code, flat)
    assert paced is not None and abs(paced) < 0.4
    assert spearman([1, 2, 3], [3, 2, 1]) == -1.0 and spearman([1, 1, 1], [1, 2, 3]) is None
    assert pooled([(0.5, 100), (0.5, 50)])[0] is not None
    assert abs(pooled([(0.5, 100), (0.5, 50)])[0] - 0.5) < 1e-9  # type: ignore[operator]


def test_follow_z_grows_with_the_moves_that_back_a_correlation() -> None:
    """The same correlation over more moves is surer; none at all stays near 0 however
    long, and nothing counted gives no figure."""
    short = follow_z([(0.25, 60)])
    long = follow_z([(0.25, 60)] * 5)
    assert short is not None and long is not None and 1.5 < short < long
    assert abs(long - short * math.sqrt(5)) < 1e-9
    flat = follow_z([(0.0, 100)] * 10)
    assert flat is not None and abs(flat) < 1e-9
    assert follow_z([]) is None and follow_z([(0.5, 3)]) is None
    negative = follow_z([(-0.2, 80), (-0.1, 80)])
    assert negative is not None and negative < 0


@given(st.lists(st.integers(-1000, 1000), min_size=3, max_size=30, unique=True))
def test_spearman_reads_ranks_only(values: list[int]) -> None:
    """Any increasing transform of a series correlates 1 with it, any decreasing one -1."""
    assert spearman(values, [v**3 + 7 for v in values]) == pytest.approx(1.0)
    assert spearman(values, [-math.exp(v / 100) for v in values]) == pytest.approx(-1.0)


def test_spearman_gives_ties_their_mean_rank_and_nothing_for_too_little() -> None:
    assert spearman([1, 2, 2, 3], [1, 2, 2, 3]) == pytest.approx(1.0)
    assert spearman([1, 2, 2, 3], [10, 20, 20, 30]) == pytest.approx(1.0)
    assert spearman([1, 2], [1, 2]) is None  # fewer than three pairs
    assert spearman([1, 2, 3], [1, 2]) is None  # not pairs at all


def test_undo_and_restart_are_not_timed_and_a_resign_or_a_bad_move_ends_the_measure() -> None:
    code = "SS1-S1-ZRVKZUT"
    line = [move.text() for move in solve(Game.from_code(code)).moves][:12]
    timed = [(move, 1.0 + index) for index, move in enumerate(line)]
    _, counted = think_follow(code, timed)
    assert counted == len(line) - 1  # the first move is reading the deal
    with_undo = [*timed[:5], ("undo", 99.0), timed[4], *timed[5:]]
    assert think_follow(code, with_undo)[1] == len(line)  # the move played again counts
    assert think_follow(code, [*timed[:6], ("resign", 1.0), *timed[6:]]) == (None, 5)
    assert think_follow(code, [*timed[:6], ("1-1", 1.0), *timed[6:]]) == (None, 5)
    assert think_follow(code, [*timed[:6], ("no move", 1.0), *timed[6:]]) == (None, 5)
