"""A finished game's review against the solver's verdicts, without a store."""

from __future__ import annotations

from datetime import UTC, datetime

from server.engine import Game
from server.play.review import judge_path, review_of
from server.solver import Verdict, solve
from server.store import GameRecord

WON_CODE = "SS1-S1-AAAAABD"
T0 = datetime(2026, 3, 1, 12, tzinfo=UTC)


def test_stretches_and_the_losing_move_from_the_verdicts() -> None:
    engine = Game.from_code(WON_CODE)
    actions = [engine.push(next(engine.legal_moves())).text() for _ in range(3)]
    record = GameRecord(
        id="g", player_id=1, player_name="p", mode="practice", code=WON_CODE, suits=1, day=None,
        bot=False, started_at=T0, finished_at=T0, won=False, resigned=True, moves=3, score=497,
        removed=0, elapsed=1.0,
    )  # fmt: skip
    judged = [(True, 40), (True, 41), (True, 43), (False, None)]
    review = review_of(record, list(enumerate(actions, 1)), judged, par=None)
    assert review.losing_move == 3
    assert [p.delta for p in review.positions] == [None, 2, 3, None]
    assert [(s.first, s.last, s.cost) for s in review.stretches] == [(1, 2, 5)]


def test_a_won_position_is_known_when_the_budget_is_spent() -> None:
    code = "SS1-S1-AAAAABD"
    found = solve(Game.from_code(code), shorten=False)
    assert found.verdict is Verdict.WINNABLE
    actions = [move.text() for move in found.moves]
    judged = judge_path(code, actions, seconds=0.0)  # no budget: nothing else is solved
    assert len(judged) == len(actions) + 1
    assert judged[-1] == (True, 0)
    assert set(judged[:-1]) == {(None, None)}


def test_a_dailys_own_line_is_the_deals_verdict_and_the_path_along_it_follows() -> None:
    found = solve(Game.from_code(WON_CODE), shorten=False)
    line = [move.text() for move in found.moves]
    halfway = line[: len(line) // 2]
    # no budget: every verdict comes from the line given (the deal's, then along it)
    judged = judge_path(WON_CODE, halfway, seconds=0.0, line=line)
    assert judged == [(True, len(line) - step) for step in range(len(halfway) + 1)]
    # a line that does not win the deal (cut short, or not legal there) is not taken
    for wrong in (line[:-1], ["10-1", *line]):
        assert judge_path(WON_CODE, [], seconds=0.0, line=wrong) == [(None, None)]
