"""An account's evidence across days (pure), and the measure of a position's difficulty."""

from __future__ import annotations

import math
import random
from datetime import date, timedelta

from server.engine import Game
from server.play.difficulty import choices, follow_z, pooled, spearman, think_follow
from server.play.fairplay import Thresholds
from server.play.trust import Daily, account_trust, is_top, percentile

FIRST = date(2026, 3, 1)


def daily(n: int, share: float | None, **more: object) -> Daily:
    values: dict[str, object] = dict(
        day=FIRST + timedelta(days=n),
        suits=1,
        won=True,
        percentile=share,
        over_par=0.6,
        moves=150,
        undos=10,
        restarts=0,
        think_follow=0.2,
        follow_moves=80,
    )
    values.update(more)
    return Daily(**values)  # type: ignore[arg-type]


def test_a_person_steady_in_the_middle_raises_no_suspicion() -> None:
    trust = account_trust([daily(n, 0.5) for n in range(6)], Thresholds())
    assert trust.suspicion == 0 and trust.reasons == []
    assert trust.evidence["days"] == 6 and trust.evidence["think_follow"] > 0.1


def test_a_jump_closer_to_par_with_habits_dropped_passes_the_threshold() -> None:
    history = [daily(n, 0.45) for n in range(5)]
    cheating = daily(5, 0.97, over_par=0.15, undos=0)
    trust = account_trust([*history, cheating], Thresholds())
    assert trust.evidence["signals"] == ["jump", "closer to par", "habits dropped"]
    assert trust.suspicion >= Thresholds().max_suspicion
    # the same day from an account that was always at the top is no jump
    steady = account_trust([*(daily(n, 0.95) for n in range(5)), cheating], Thresholds())
    assert "jump" not in steady.evidence["signals"]


def test_near_par_on_two_and_four_suits_and_think_times_that_ignore_difficulty() -> None:
    replayed = [
        daily(n, None, suits=2, over_par=0.05, think_follow=0.01, follow_moves=90) for n in range(3)
    ]
    trust = account_trust(replayed, Thresholds())
    assert set(trust.evidence["signals"]) == {"near par", "ignores difficulty"}
    assert trust.suspicion >= Thresholds().max_suspicion
    one_game = account_trust(replayed[:1], Thresholds())  # too few moves, one win
    assert one_game.suspicion == 0


def test_top_results_and_percentiles() -> None:
    assert percentile(1, 20) == 1.0 and percentile(21, 20) == 0.0 and percentile(1, 5) is None
    thresholds = Thresholds(top_rank=3, top_share=0.5)
    assert is_top(3, 100, thresholds) and is_top(40, 100, thresholds)
    assert not is_top(60, 100, thresholds)


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
    from server.solver import solve

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


def test_a_padded_line_raises_suspicion_to_the_threshold() -> None:
    """A win whose moves go round in loops around a line near par once they are cut, or
    clearly better than the account's usual, holds; a person near par without loops, a
    wandering line far from par, or loops around the account's usual line raise nothing."""
    thresholds = Thresholds()
    history = [daily(n, 0.5, over_par=0.3, net_over_par=0.3, loop_share=0.0) for n in range(5)]
    near_par = daily(5, 0.8, over_par=0.2, net_over_par=0.03, loop_share=0.1)
    better = daily(5, 0.6, over_par=0.35, net_over_par=0.2, loop_share=0.1)
    for today in (near_par, better):
        trust = account_trust([*history, today], thresholds)
        assert trust.evidence["signals"] == ["padded"]
        assert trust.suspicion >= thresholds.max_suspicion
    near_par_no_loops = daily(5, 0.9, over_par=0.03, net_over_par=0.03, loop_share=0.0)
    wandering = daily(5, 0.4, over_par=0.45, net_over_par=0.3, loop_share=0.1)
    few_loops = daily(5, 0.8, over_par=0.05, net_over_par=0.03, loop_share=0.02)
    for today in (near_par_no_loops, wandering, few_loops):
        signals = account_trust([*history, today], thresholds).evidence["signals"]
        assert "padded" not in signals, today
    # better than usual needs a usual: two earlier wins of the same suit count
    alone = account_trust([history[0], better], thresholds)
    assert "padded" not in alone.evidence["signals"]
