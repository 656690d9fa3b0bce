"""The table of known positions: what a solution proves, and what one move more proves."""

from __future__ import annotations

import random

import pytest

from server.engine import Game, GameCode
from server.play.after.judging import POSITION_NODES, _known_by_deal, judge_path, known_of
from server.solver import Verdict, solve
from server.solver.known import Known
from server.solver.search import children

CODE = str(GameCode(1, 12345))


def _columns(game: Game) -> tuple[bytes, ...]:
    return tuple(bytes(column) for column in game.columns)


def test_a_solution_proves_every_position_along_it() -> None:
    game = Game.from_code(CODE)
    found = solve(game.copy(), shorten=False)
    assert found.verdict is Verdict.WINNABLE
    table = Known()
    table.won_along(_columns(game), [(m.source, m.target, m.count or 0) for m in found.moves])
    for step, move in enumerate(found.moves):
        assert table.verdict(_columns(game)) == (True, len(found.moves) - step)
        game.push(move)


def test_lost_positions_and_the_bound_on_memory() -> None:
    table = Known(most=1)
    columns = _columns(Game.from_code(CODE))
    table.lost(columns)
    assert table.verdict(columns) == (False, None)
    table.won(children(columns)[0][3], 3)  # full: not kept
    assert len(table) == 1


def test_a_second_review_of_the_deal_agrees_and_takes_its_answers_from_the_table() -> None:
    found = solve(Game.from_code(CODE), shorten=False)
    actions = [move.text() for move in found.moves[:3]]
    first = judge_path(CODE, actions, seconds=30.0, reuse=True)
    assert None not in {winnable for winnable, _ in first}
    assert len(known_of(CODE)) > 0
    # no budget at all: every answer is the table's, the same as the first review's
    assert judge_path(CODE, actions, seconds=0.0, reuse=True) == first


@pytest.mark.parametrize("seed", [3, 4])
def test_a_review_is_no_worse_than_the_plain_solver_at_every_position(seed: int) -> None:
    """Each position of a short game (the solver's moves with random ones between) solved
    alone: the review has the same verdict and no longer distance; with ``reuse``, the
    same verdicts."""
    rng = random.Random(seed)
    code = str(GameCode(1, rng.randrange(26**7)))
    game = Game.from_code(code)
    plain = [_plain(game)]
    actions: list[str] = []
    for _ in range(3):
        move = rng.choice(list(game.legal_moves()))
        actions.append(game.push(move).text())
        plain.append(_plain(game))
    judged = judge_path(code, actions, seconds=60.0)
    for (winnable, distance), (was, was_distance) in zip(judged, plain, strict=True):
        assert winnable == was
        assert distance is None or was_distance is None or distance <= was_distance
    _known_by_deal.clear()
    reused = judge_path(code, actions, seconds=60.0, reuse=True)
    assert [winnable for winnable, _ in reused] == [was for was, _ in plain]


def _plain(game: Game) -> tuple[bool | None, int | None]:
    found = solve(game.copy(), max_nodes=POSITION_NODES)
    if found.verdict is Verdict.WINNABLE:
        return True, len(found.moves)
    return (False, None) if found.verdict is Verdict.UNWINNABLE else (None, None)
