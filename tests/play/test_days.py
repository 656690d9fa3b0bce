"""The day ticker: a new day closes yesterday's attempts and is announced once."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from server.play.clock import ManualClock
from server.play.errors import SolverStopped
from server.play.hub import Hub


async def test_a_new_day_closes_unfinished_attempts_and_tells_listeners(
    hub: Hub, clock: ManualClock
) -> None:
    player = (await hub.accounts.register("owl", bot=True)).player
    game = await hub.starts.daily(player, 1)
    heard: list[dict[str, object]] = []
    hub.days.listen(lambda frame: heard.append(json.loads(frame)))
    assert not await hub.days.check_day()
    clock.advance(days=1)
    assert await hub.days.check_day()
    assert not await hub.days.check_day()  # once a day
    assert [message["type"] for message in heard] == ["daily_changed"]
    assert game.finished and game.result is not None and not game.result.won
    record = await hub.store.get_game(game.id)
    assert record is not None and record.finished_at is not None


async def test_a_listener_that_stops_hears_nothing(hub: Hub, clock: ManualClock) -> None:
    heard: list[str] = []
    hub.days.listen(heard.append)
    hub.days.stop_listening(heard.append)
    assert hub.days.listener_count == 0
    clock.advance(days=1)
    assert await hub.days.check_day()
    assert heard == []


async def test_the_ticker_ends_quietly_when_the_solver_is_stopped(
    hub: Hub, clock: ManualClock, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A node stopping closes its solvers before the ticker: a day's proof cut short then
    ends the ticker, with no error in the log."""
    ticks: list[int] = []

    async def proving_when_stopped() -> bool:
        ticks.append(1)
        raise SolverStopped("the solver (daily deals) was stopped")

    monkeypatch.setattr(hub.days, "tick", proving_when_stopped)
    with caplog.at_level(logging.ERROR):
        await asyncio.wait_for(hub.days._tick(), 5)
    assert ticks == [1]  # ended at once, not ticking again
    assert "the day ticker failed" not in caplog.text
