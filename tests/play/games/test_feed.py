"""The race feed: a racer's moves thinned out on the injected clock, other events at once."""

from __future__ import annotations

from datetime import date
from typing import Any

from server.engine.actions import parse_move
from server.play.clock import ManualClock, utc_day
from server.play.games.player_game import PlayerGame
from server.play.hub import Hub
from server.protocol import RaceEntry
from tests.support.servers import first_legal


async def racing(hub: Hub, name: str) -> tuple[PlayerGame, list[dict[str, Any]]]:
    """``name``'s daily 1-suit game, and what the feed announces to its race."""
    player = (await hub.accounts.register(name)).player
    game = await hub.starts.daily(player, 1)
    seen: list[dict[str, Any]] = []

    def announce(day: date, suits: int, event: str, entry: RaceEntry) -> None:
        assert (day, suits) == (utc_day(hub.now()), 1)
        seen.append({"event": event, "entry": entry.model_dump()})

    hub.standings.announce = announce  # type: ignore[method-assign]
    return game, seen


def events(seen: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(event["event"], event["entry"]["moves"]) for event in seen]


async def test_moves_are_thinned_to_one_per_interval_with_a_trailing_one(
    hub: Hub, clock: ManualClock
) -> None:
    game, seen = await racing(hub, "ann")
    move = parse_move(first_legal(game.code))
    hub.feed.tell(game, "joined")
    for _ in range(3):
        game.move(move)
        hub.feed.tell(game, "moved")
        game.undo()
        hub.feed.tell(game, "moved")
    game.move(move)
    game.move(parse_move(first_legal(game.code, [move.text()])))  # not yet sent
    hub.feed.tell(game, "moved")
    assert events(seen) == [("joined", 0), ("moved", 1)]
    clock.advance(seconds=0.49)
    assert events(seen) == [("joined", 0), ("moved", 1)]
    clock.advance(seconds=0.02)  # the interval is over: the latest figures, once
    latest = ("moved", game.engine.moves)
    assert events(seen) == [("joined", 0), ("moved", 1), latest]
    clock.advance(seconds=5)
    assert len(seen) == 3


async def test_an_ending_goes_at_once_and_drops_the_trailing_move(
    hub: Hub, clock: ManualClock
) -> None:
    game, seen = await racing(hub, "ben")
    move = parse_move(first_legal(game.code))
    game.move(move)
    hub.feed.tell(game, "moved")
    game.undo()
    hub.feed.tell(game, "moved")  # held back
    hub.feed.tell(game, "left")
    clock.advance(seconds=1)
    assert [event for event, _ in events(seen)] == ["moved", "left"]


async def test_practice_games_have_no_race(hub: Hub) -> None:
    player = (await hub.accounts.register("cat")).player
    practice = await hub.starts.practice(player, None, 1)
    _, seen = await racing(hub, "dan")
    hub.feed.tell(practice, "moved")
    assert seen == []
