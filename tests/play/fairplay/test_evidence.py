"""Fair-play evidence on synthetic traces: the solver's line at machine and at human speed,
and a person's own exploring play; invariants of the measures with hypothesis."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.engine import Game, GameCode, Move
from server.play.daily.deals import SolverProver
from server.play.fairplay.evidence import (
    Evidence,
    Thresholds,
    evidence,
    held_reasons,
    judge,
    net_length,
)
from server.solver import Verdict, solve

#: Deals the traces are played on: 1 and 2 suits, each winnable by the solver.
DEALS = [str(GameCode(1, n)) for n in (7000, 7002, 7003, 7004, 7005, 7006)] + [
    str(GameCode(2, n)) for n in (7000, 7001, 7002)
]
START = 1_700_000_000_000  # ms
Think = Callable[[random.Random], float]


@cache
def solution(code: str) -> tuple[str, ...]:
    found = solve(Game.from_code(code), shorten=False)
    assert found.verdict is Verdict.WINNABLE, code
    return tuple(move.text() for move in found.moves)


def machine(rng: random.Random) -> float:
    return rng.uniform(0.005, 0.05)


def human(rng: random.Random, median: float | None = None) -> float:
    """Log-normal think times (median 2-4 s, wide spread) with an occasional long pause."""
    think = rng.lognormvariate(math.log(median or rng.uniform(2, 4)), 0.8)
    return think + (rng.uniform(10, 90) if rng.random() < 0.04 else 0.0)


def timed(actions: list[str], rng: random.Random, think: Think) -> list[tuple[str, int]]:
    """The log of ``actions`` played with ``think`` seconds before each; ends with ``won``."""
    log, now = [], START
    median = rng.uniform(2, 4)  # one person's pace for the whole game
    for action in actions:
        now += round(1000 * (think(rng) if think is not human else human(rng, median)))
        log.append((action, now))
    return [*log, ("won", now)]


def _ordered(game: Game, rng: random.Random) -> list[Move]:
    """A person's preference among the legal moves: longer one-suit runs, a run off the
    table, an emptied column; not into an empty column; and much noise."""

    def appeal(move: Move) -> float:
        into_empty = not game.column(move.target)
        removed = game.removed_count
        game.push(move)
        value = (
            game.movable_count(move.target)
            + 5 * (game.removed_count - removed)
            + 2 * (not game.column(move.source))
            - 4 * into_empty
            + rng.gauss(0, 2.0)
        )
        game.undo()
        return value

    return sorted(game.legal_moves(), key=appeal, reverse=True)


def _wander(game: Game, rng: random.Random, moves: int) -> list[str]:
    """Up to ``moves`` moves a person likes (never back to a position seen)."""
    played: list[str] = []
    seen = {game.position_key()}
    for _ in range(moves):
        for candidate in _ordered(game, rng):
            game.push(candidate)
            if game.position_key() not in seen:
                seen.add(game.position_key())
                played.append(candidate.text())
                break
            game.undo()
        else:
            break
    return played


def explore(code: str, rng: random.Random) -> list[str] | None:
    """A person's own winning play: a first try given up with a restart (sometimes), an
    opening of their own with second thoughts (a move taken back now and then), then a
    way to the end from there (the search stands in for their skill: it starts from their
    position, not the deal's). None if no win is found from their opening, or if their
    own part of the line is short (the search's line would be most of it)."""
    game = Game.from_code(code)
    actions: list[str] = []
    if rng.random() < 0.5:
        actions += _wander(game, rng, rng.randint(5, 40))
        game.restart()
        actions.append("restart")
    for move in _wander(game.copy(), rng, rng.randint(30, 70)):
        game.play(move)
        actions.append(move)
        if rng.random() < 0.2 and game.can_undo:  # second thoughts
            game.undo()
            actions.append("undo")
            game.play(move)
            actions.append(move)
    for _ in range(3):  # a way to the end from here, else back out a few moves and look again
        found = solve(game, shorten=False, max_seconds=1)
        if found.verdict is Verdict.WINNABLE:
            # their own path: most of the way to here is theirs, not a few moves
            return actions + [move.text() for move in found.moves] if game.moves >= 25 else None
        for _ in range(5):
            if game.can_undo:
                game.undo()
                actions.append("undo")
    return None


def people(count: int, seed: int) -> Iterator[tuple[str, list[str]]]:
    """``count`` winning explorations, spread over the deals."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        code = DEALS[made % len(DEALS)]
        actions = explore(code, rng)
        if actions is not None:
            made += 1
            yield code, actions


def judged(code: str, log: list[tuple[str, int]]) -> tuple[Evidence, list[str]]:
    found = evidence(log, started_ms=START, solution=solution(code), par=len(solution(code)))
    return found, held_reasons(found)


# -- the measures --------------------------------------------------------------------


def test_think_times_the_final_line_and_the_counts() -> None:
    log = [
        ("1-2", START + 2_000),
        ("undo", START + 2_300),  # 0.3 s: fast
        ("3-4", START + 6_300),
        ("restart", START + 7_300),
        ("3-4", START + 9_300),
        ("5-6x2", START + 12_300),
        ("won", START + 12_300),  # the server's marker: no decision
    ]
    found = evidence(log, started_ms=START, solution=["3-4", "5-6x2", "7-8"], par=3)
    assert (found.decisions, found.moves, found.undos, found.restarts) == (6, 4, 1, 1)
    assert found.median_think == 2.0  # of 2, 0.3, 4, 1, 2, 3
    assert found.fast_share == pytest.approx(1 / 6)
    assert found.total_seconds == 12.3
    assert (found.final_moves, found.moves_over_par) == (2, -1)
    assert found.agreement == pytest.approx(2 / 3)
    assert evidence(log, started_ms=START, solution=[], par=None).moves_over_par is None


def test_a_short_game_is_judged_by_agreement_only() -> None:
    log = [("3-4", START + 10), ("5-6x2", START + 20)]
    found = evidence(log, started_ms=START, solution=["3-4", "5-6x2"], par=2)
    assert held_reasons(found) == ["replays 100% of the solver's line"]
    other = evidence(log, started_ms=START, solution=["9-1", "2-3"], par=2)
    assert held_reasons(other) == []  # machine fast, but two actions say too little


moves = st.sampled_from(["1-2", "3-4", "5-6x2", "7-8", "9-10x3", "2-1"])
actions = st.one_of(moves, moves, moves, st.sampled_from(["undo", "restart", "won"]))
logs = st.lists(st.tuples(actions, st.integers(min_value=0, max_value=60_000)), max_size=60)


def _log(steps: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Steps (action, gap in ms) as a log with times that never run back."""
    now, log = START, []
    for action, gap in steps:
        now += gap
        log.append((action, now))
    return log


@given(logs, st.lists(moves, min_size=1, max_size=30))
def test_the_measures_stay_in_their_ranges(steps: list[tuple[str, int]], line: list[str]) -> None:
    found = evidence(_log(steps), started_ms=START, solution=line, par=len(line))
    decisions = [a for a, _ in steps if a != "won"]
    assert found.decisions == len(decisions)
    assert found.moves + found.undos + found.restarts == found.decisions
    assert 0.0 <= found.fast_share <= 1.0 and 0.0 <= found.agreement <= 1.0
    assert found.flatness >= 0.0 and found.median_think >= 0.0
    assert found.total_seconds == (sum(g for a, g in steps[: _last(steps)]) / 1000)
    assert found.final_moves <= found.moves


def _last(steps: list[tuple[str, int]]) -> int:
    """How many steps up to the last decision."""
    return max((i + 1 for i, (a, _) in enumerate(steps) if a != "won"), default=0)


@given(st.lists(moves, min_size=1, max_size=30), st.lists(st.tuples(st.integers(0, 40), moves)))
def test_replaying_a_line_agrees_fully_whatever_the_detours_taken_back(
    line: list[str], detours: list[tuple[int, str]]
) -> None:
    played = list(line)
    for where, move in sorted(detours, reverse=True):
        played[where:where] = [move, "undo"]  # a move, then second thoughts
    log = _log([(action, 2_000) for action in played])
    found = evidence(log, started_ms=START, solution=line, par=len(line))
    assert found.agreement == 1.0 and found.final_moves == len(line)


@given(logs, st.integers(min_value=2, max_value=50))
def test_flatness_and_shares_ignore_the_time_scale(steps: list[tuple[str, int]], k: int) -> None:
    slow = [(a, g * k) for a, g in steps]
    one = evidence(_log(steps), started_ms=START, solution=["1-2"], par=1)
    other = evidence(_log(slow), started_ms=START, solution=["1-2"], par=1)
    assert other.flatness == pytest.approx(one.flatness)
    assert other.median_think == pytest.approx(one.median_think * k)


@given(st.sampled_from(DEALS), st.lists(st.integers(0, 200), max_size=8), st.randoms())
def test_moves_that_come_back_to_a_position_count_for_nothing_in_the_net_line(
    code: str, places: list[int], rng: random.Random
) -> None:
    """The solver's line with moves and their way back inserted (both standing) has the
    solver line's length once its loops are cut; the plain line keeps its own."""
    line = list(solution(code))
    assert net_length(code, line) == len(line)
    game = Game.from_code(code)
    played: list[str] = []
    wanted = sorted(place % len(line) for place in places)
    for index, move in enumerate(line):
        while wanted and wanted[0] == index:
            wanted.pop(0)
            options = [m for m in game.legal_moves() if game.is_legal(m)]
            there = rng.choice(options)
            game.push(there)
            back = Move(there.target, there.source, there.count)
            if game.is_legal(back):
                played += [there.text(), game.resolve(back).text()]
                game.push(back)
            else:
                game.undo()
        played.append(move)
        game.play(move)
    found = evidence(_log([(m, 2_000) for m in played]), started_ms=START, solution=line,
                     par=len(line), code=code)  # fmt: skip
    assert found.net_moves == len(line) and found.net_over_par == 0
    assert found.final_moves == len(played)
    assert net_length(code, ["99-1"]) is None


# -- the defaults against synthetic players ---------------------------------------------


def test_the_solvers_line_at_machine_speed_is_held() -> None:
    rng = random.Random(11)
    for code in DEALS:
        for _ in range(3):
            found, reasons = judged(code, timed(list(solution(code)), rng, machine))
            assert found.agreement == 1.0 and found.moves_over_par == 0
            assert len(reasons) >= 3, reasons  # agreement, and the timing too


def test_the_solvers_line_at_human_speed_is_held() -> None:
    rng = random.Random(12)
    verdicts = [
        bool(judged(code, timed(list(solution(code)), rng, human))[1])
        for _ in range(20)
        for code in DEALS
    ]
    assert sum(verdicts) >= 0.95 * len(verdicts)


def test_people_winning_their_own_way_are_rarely_held() -> None:
    rng = random.Random(13)
    held = []
    for code, played in people(100, seed=13):
        found, reasons = judged(code, timed(played, rng, human))
        assert found.moves_over_par is not None
        if reasons:
            held.append(reasons)
    assert len(held) <= 1, held


def test_the_thresholds_are_settable() -> None:
    log = _log([("1-2", 700), ("2-1", 700)] * 6)
    strict = Thresholds(human_floor=1.0, max_fast_share=0.5)
    default = evidence(log, started_ms=START, solution=["3-4"], par=1)
    assert default.fast_share == 0.0
    assert not any("think times under" in reason for reason in held_reasons(default))
    found = evidence(log, started_ms=START, solution=["3-4"], par=1, thresholds=strict)
    assert found.fast_share == 1.0
    assert "100% of think times under 1 s" in held_reasons(found, strict)


async def test_judged_in_a_worker_process_as_on_the_spot() -> None:
    """The screening's worker (a process of its own in the server) finds what
    :func:`evidence` and :func:`held_reasons` find, a person's exploring and the solver's
    line at machine speed alike."""
    rng = random.Random(14)
    (code, played), *_ = people(1, seed=14)
    games = [(code, timed(played, rng, human)), (code, timed(list(solution(code)), rng, machine))]
    worker = SolverProver(0.0, name="fair play")
    try:
        for code, log in games:
            arguments = (log, START, list(solution(code)), len(solution(code)), Thresholds(), code)
            found = evidence(
                log,
                started_ms=START,
                solution=solution(code),
                par=len(solution(code)),
                code=code,
            )
            assert await worker.run(judge, *arguments) == (found, held_reasons(found))
    finally:
        worker.close()
