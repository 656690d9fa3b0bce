"""A racer's standing, built once for a daily race's row and a race room's line: ``won``
is the game's result, so a board cleared after the day's end (closed, not won) is no win."""

from __future__ import annotations

from datetime import timedelta

from server.engine import Game, Move
from server.play.clock import ManualClock, day_end, utc_day
from server.play.games.player_game import PlayerGame
from server.play.games.standing import race_entry, room_entry
from server.play.hub import Hub
from server.solver import solve


async def cleared(hub: Hub, name: str) -> PlayerGame:
    """``name``'s 1-suit daily with its board cleared by the solver's line, not yet ended."""
    player = (await hub.accounts.register(name)).player
    game = await hub.starts.daily(player, 1)
    solution = solve(Game.from_code(game.code), shorten=False)
    for move in solution.moves:
        game.move(Move.from_text(move.text()))
    assert game.engine.is_won and game.result is None
    return game


async def test_a_cleared_board_is_no_win_until_its_game_ends_won(hub: Hub) -> None:
    game = await cleared(hub, "ann")
    row, line = race_entry(game), room_entry(game)
    assert (row.won, row.finished) == (False, False)
    assert (line.won, line.finished, line.elapsed) == (False, False, None)
    game.end(now=hub.now())
    row, line = race_entry(game), room_entry(game)
    assert (row.won, row.finished) == (True, True)
    assert (line.won, line.finished) == (True, True) and line.elapsed is not None


async def test_a_daily_closed_at_its_days_end_is_not_won_in_either(
    hub: Hub, clock: ManualClock
) -> None:
    game = await cleared(hub, "ben")
    late = day_end(utc_day(clock.now())) + timedelta(seconds=1)
    result = game.end(now=late)
    assert not result.won  # closed as it stood at the day's end
    row, line = race_entry(game), room_entry(game)
    assert (row.won, row.finished, row.removed) == (False, True, game.engine.removed_count)
    assert (line.won, line.finished, line.elapsed) == (False, True, None)
    assert row.model_dump(include=set(line.model_dump())) == line.model_dump(
        include=set(row.model_dump())
    )
