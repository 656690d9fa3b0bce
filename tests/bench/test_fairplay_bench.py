"""The fair-play bench's synthetic players: their pace, and a person-like path to a win that
is not the solver's line (offline, with the engine; the bench itself runs a real server)."""

from __future__ import annotations

import random
import statistics

import pytest

from bench.fairplay import across
from bench.fairplay.across import make_accounts
from bench.fairplay.across_traces import cheat, person
from bench.fairplay.beam import beam_line
from bench.fairplay.policy import RESTART, UNDO, play_like_a_person
from bench.fairplay.run import reason_kind
from bench.fairplay.thinking import MOTOR_FLOOR, Pace
from bench.fairplay.traces import machine, paced
from server.engine import Game
from server.play.fairplay.difficulty import think_follow
from server.play.fairplay.evidence import evidence, held_reasons
from server.solver import Verdict, solve

# 1-suit deals the solver proves winnable in well under a second
DEALS = ("SS1-S1-ZRVKZUT", "SS1-S1-XSAWPTV")


def replayed(code: str, actions: list[str]) -> Game:
    game = Game.from_code(code)
    for action in actions:
        if action == UNDO:
            game.undo()
        elif action == RESTART:
            game.restart()
        else:
            game.play(action)
    return game


def timed(trace: list[tuple[float, str]]) -> list[tuple[str, int]]:
    """A trace as the server would log it, from a start at 0."""
    log, now = [], 0.0
    for seconds, action in trace:
        now += seconds
        log.append((action, round(now * 1000)))
    return log


def test_a_pace_is_log_normal_around_the_players_median_with_a_floor() -> None:
    rng = random.Random(3)
    pace = Pace(median=3.0, sigma=0.7, pause_chance=0.0)
    thinks = [pace.think(rng) for _ in range(4000)]
    assert 2.8 < statistics.median(thinks) < 3.2
    assert min(thinks) >= MOTOR_FLOOR
    assert statistics.median(pace.think(rng, "obvious") for _ in range(2000)) < 2.0
    pausing = Pace(median=3.0, sigma=0.7, pause_chance=0.5)
    assert max(pausing.think(rng) for _ in range(200)) > 10


@pytest.mark.parametrize("code", DEALS)
def test_the_person_like_player_wins_by_a_path_of_its_own(code: str) -> None:
    solution = [move.text() for move in solve(Game.from_code(code)).moves]
    rng = random.Random(code)
    for _ in range(5):
        played = play_like_a_person(code, rng)
        actions = [step.action for step in played.steps]
        assert replayed(code, actions).is_won
        assert played.own_moves > played.plan_moves
        log = timed([(Pace.draw(rng).think(rng, step.kind), step.action) for step in played.steps])
        found = evidence(log, started_ms=0, solution=solution, par=len(solution))
        assert found.agreement < 0.6
        assert held_reasons(found) == []


def test_the_solvers_line_is_held_at_machine_speed_and_at_a_persons_pace() -> None:
    code = DEALS[0]
    solution = solve(Game.from_code(code))
    assert solution.verdict is Verdict.WINNABLE
    line = [move.text() for move in solution.moves]
    rng = random.Random(1)
    for plan in (machine(line, rng), paced(line, rng)):
        assert replayed(code, [action for _, action in plan.trace]).is_won
        found = evidence(timed(plan.trace), started_ms=0, solution=line, par=len(line))
        assert "agreement" in {reason_kind(reason) for reason in held_reasons(found)}


def test_reasons_are_sorted_by_kind() -> None:
    assert reason_kind("replays 100% of the solver's line") == "agreement"
    assert reason_kind("median think time 0.07 s") == "median think"
    assert reason_kind("100% of think times under 0.5 s") == "fast share"
    assert reason_kind("flat think times (variation 0.20)") == "flatness"
    assert reason_kind("43 moves in 3.4 s") == "pace"


@pytest.fixture(scope="module")
def beamed() -> list[str]:
    """The beam search's line of the first deal (found once for the module)."""
    line = beam_line(DEALS[0], width=40)
    assert line is not None
    return line


def test_another_solver_wins_by_a_line_that_is_not_the_bundled_solvers(
    beamed: list[str],
) -> None:
    code, line = DEALS[0], beamed
    assert replayed(code, line).is_won
    solution = [move.text() for move in solve(Game.from_code(code)).moves]
    found = evidence(
        timed([(3.0, move) for move in line]), started_ms=0, solution=solution, par=len(solution)
    )
    assert found.agreement < 0.9  # not held for agreement: it is not the bundled solver's line


def test_cheaters_traces_win_and_only_the_patient_ones_follow_difficulty(
    beamed: list[str],
) -> None:
    code, line = DEALS[0], beamed
    rng = random.Random(2)
    accounts = make_accounts(across.Options(people=0, new_cheat=1, patient=1), rng)
    new, patient = accounts
    for account, follows in ((new, False), (patient, True)):
        trace = cheat(code, line, account, patient=account.population == "patient")
        actions = [action for _, action in trace]
        assert replayed(code, actions).is_won
        moved = sum(action != UNDO for action in actions)
        if follows:  # 10 to 30% of the moves wasted: played, then taken back or undone
            assert len(actions) > len(line) * 1.05
        follow, counted = think_follow(code, [(action, think) for think, action in trace])
        assert follow is not None and counted >= len(line) - 1 and moved >= len(line)
        assert (follow > 0.3) is follows


def test_a_persons_think_times_follow_the_servers_measure_of_difficulty() -> None:
    rng = random.Random(5)
    (account,) = make_accounts(across.Options(people=1, new_cheat=0, patient=0), rng)
    follows = []
    for code in DEALS:
        trace = person(code, account, 1.0)
        assert replayed(code, [action for _, action in trace]).is_won
        follow, _ = think_follow(code, [(action, think) for think, action in trace])
        assert follow is not None
        follows.append(follow)
    assert statistics.mean(follows) > 0.05
