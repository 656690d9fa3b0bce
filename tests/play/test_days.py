"""The day ticker: a new day closes yesterday's attempts and is announced once."""

from __future__ import annotations

import json

from server.play.clock import ManualClock
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
