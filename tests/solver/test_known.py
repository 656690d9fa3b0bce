"""The table of known positions: what a solution proves, and what one move more proves."""

from __future__ import annotations

from server.engine import Game, GameCode
from server.play.after.review import _known_by_deal, judge_path, known_of
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
    _known_by_deal.clear()
    found = solve(Game.from_code(CODE), shorten=False)
    actions = [move.text() for move in found.moves[:3]]
    first = judge_path(CODE, actions, seconds=30.0)
    assert None not in {winnable for winnable, _ in first}
    assert len(known_of(CODE)) > 0
    # no budget at all: every answer is the table's, the same as the first review's
    assert judge_path(CODE, actions, seconds=0.0) == first
    _known_by_deal.clear()
