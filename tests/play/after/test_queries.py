"""Read-only replies: today's deals, leaderboards, ranks, history."""

from __future__ import annotations

from datetime import timedelta

import pytest

from server.play.clock import ManualClock, utc_day
from server.play.hub import Hub
from server.store import BadCursor


async def test_daily_info_hides_todays_codes_and_shows_yesterdays(
    hub: Hub, clock: ManualClock
) -> None:
    player = (await hub.accounts.register("ivy")).player
    await hub.starts.daily(player, 4)
    info = await hub.queries.daily_info(player)
    assert [(d.suits, d.started, d.finished) for d in info.deals] == [
        (1, False, False),
        (2, False, False),
        (4, True, False),
    ]
    assert info.yesterday == [] and 0 < info.seconds_left <= 86_400
    today = {deal.suits: deal.code for deal in await hub.daily.deals(utc_day(clock.now()))}
    clock.advance(days=1)
    info = await hub.queries.daily_info(None)
    assert {deal.suits: deal.code for deal in info.yesterday} == today
    assert all(deal.par == 42 for deal in info.yesterday)


async def test_history_names_each_game_by_the_id_replay_takes(hub: Hub, clock: ManualClock) -> None:
    player = (await hub.accounts.register("finn")).player
    daily = await hub.starts.daily(player, 1)
    await daily.play("resign", clock.now())
    practice = await hub.starts.practice(player, None, 2)
    clock.advance(seconds=1)
    await practice.play("resign", clock.now())
    history = await hub.queries.history(player, 10)
    assert [game.game for game in history.games] == [practice.id, daily.id]  # newest first


async def test_leaderboard_rank_and_history_of_bot_results(hub: Hub, clock: ManualClock) -> None:
    names = ["bot-a", "bot-b", "bot-c"]
    for name in names:
        player = (await hub.accounts.register(name, bot=True)).player
        game = await hub.starts.daily(player, 1)
        clock.advance(seconds=10)
        await game.play("resign", clock.now())
    first = await hub.queries.leaderboard(day=None, suits=1, limit=2, after=None, board="bots")
    assert first.total == 3 and len(first.rows) == 2 and first.next is not None
    rest = await hub.queries.leaderboard(day=None, suits=1, limit=2, after=first.next, board="bots")
    assert [row.rank for row in first.rows + rest.rows] == [1, 2, 3]
    assert all(row.bot for row in first.rows + rest.rows)
    public = await hub.queries.leaderboard(day=None, suits=1, limit=5, after=None, board="humans")
    assert public.total == 0
    third = rest.rows[0].player
    ranked = await hub.queries.rank(
        day=None, suits=1, player=await hub.accounts.named(third), around=1, board="bots"
    )
    assert ranked.rank == 3 and [row.rank for row in ranked.around] == [2, 3]
    history = await hub.queries.history(await hub.accounts.named(third), 10)
    assert history.stats.games == 1 and history.games[0].rank == 3
    assert history.games[0].code is None  # today's deal stays secret
    clock.advance(days=1)
    history = await hub.queries.history(await hub.accounts.named(third), 10)
    assert history.games[0].code is not None
    with pytest.raises(BadCursor):
        await hub.queries.leaderboard(
            day=utc_day(clock.now()) - timedelta(days=1),
            suits=1,
            limit=2,
            after="garbage",
            board="bots",
        )
