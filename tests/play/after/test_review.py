"""A finished game's review against the solver's verdicts, without a store."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

from server.engine import Game
from server.play.after.judging import judge_path
from server.play.after.review import FairLine, review_of
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


async def test_the_fair_line_passes_over_a_waiter_that_gave_up() -> None:
    line = FairLine()
    told: dict[str, list[int]] = {"a2": [], "b1": []}
    await line.turn("a")  # the worker is free: at once
    a2 = asyncio.ensure_future(line.turn("a", told["a2"].append))
    b1 = asyncio.ensure_future(line.turn("b", told["b1"].append))
    await asyncio.sleep(0)  # both in line
    assert len(line) == 2 and told == {"a2": [1, 2], "b1": [1]}  # b's first turn goes first
    b1.cancel()
    with pytest.raises(asyncio.CancelledError):
        await b1
    assert len(line) == 1 and told["a2"] == [1, 2, 1]  # moved up again
    line.done()
    await asyncio.wait_for(a2, 5)  # the worker is a2's
    line.done()
    await asyncio.wait_for(line.turn("c"), 5)  # free again: at once


async def test_the_fair_line_passes_on_a_turn_given_to_a_waiter_as_it_gave_up() -> None:
    line = FairLine()
    await line.turn("a")
    given = asyncio.ensure_future(line.turn("b"))
    after = asyncio.ensure_future(line.turn("c"))
    await asyncio.sleep(0)
    line.done()  # the worker is given's, which is cancelled before it runs again
    given.cancel()
    with pytest.raises(asyncio.CancelledError):
        await given
    await asyncio.wait_for(after, 5)  # not left waiting for a worker nobody holds
    assert len(line) == 0
