"""A game's end: rank and par in ``finished``, a human's daily held until screened."""

from __future__ import annotations

from server.play.clock import ManualClock
from server.play.games.player_game import PlayerGame
from server.play.hub import Hub


async def resigned_daily(
    hub: Hub, clock: ManualClock, name: str, *, bot: bool = False
) -> PlayerGame:
    player = (await hub.accounts.register(name, bot=bot)).player
    game = await hub.starts.daily(player, 1)
    await game.play("resign", clock.now())
    return game


async def test_a_bot_daily_is_ranked_at_once_without_par_until_the_day_is_over(
    hub: Hub, clock: ManualClock
) -> None:
    game = await resigned_daily(hub, clock, "robo", bot=True)
    finished = await hub.endings.finished_message(game)
    assert finished.resigned and finished.rank == 1 and finished.review is None
    assert finished.par is None  # today's par stays secret
    clock.advance(days=1)
    assert (await hub.endings.finished_message(game)).par == 42


async def test_a_human_daily_is_held_until_screened_then_ranked(
    hub: Hub, clock: ManualClock
) -> None:
    game = await resigned_daily(hub, clock, "hana")
    assert await hub.endings.under_review(game)  # not screened yet
    held = await hub.endings.finished_message(game)
    assert held.review == "held" and held.rank is None
    await hub.endings.screen(game)  # a resignation with no moves: nothing to hold
    assert not await hub.endings.under_review(game)
    assert (await hub.endings.finished_message(game)).rank == 1


async def test_practice_games_are_never_under_review(hub: Hub, clock: ManualClock) -> None:
    player = (await hub.accounts.register("pia")).player
    game = await hub.starts.practice(player, None, 1)
    await game.play("resign", clock.now())
    finished = await hub.endings.finished_message(game)
    assert not await hub.endings.under_review(game)
    assert finished.rank is None and finished.par is None and finished.review is None
