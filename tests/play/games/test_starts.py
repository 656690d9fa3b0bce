"""Starting, resuming and letting go of games."""

from __future__ import annotations

import secrets

import pytest

from server.engine import GameCode
from server.engine.actions import parse_move
from server.play.clock import ManualClock, utc_day
from server.play.errors import Refused
from server.play.hub import Hub
from server.protocol import ErrorCode
from tests.support.servers import first_legal


async def test_one_daily_attempt_a_day_resumed_while_under_way(
    hub: Hub, clock: ManualClock
) -> None:
    player = (await hub.accounts.register("amy")).player
    game = await hub.starts.daily(player, 2)
    assert game.day == utc_day(clock.now()) and game.suits == 2 and game.mode == "daily"
    await game.play(parse_move(first_legal(game.code)), clock.now())
    again = await hub.starts.daily(player, 2)
    assert again is game and again.seq == 1  # the same attempt, held once more
    await game.play("resign", clock.now())
    with pytest.raises(Refused) as played:
        await hub.starts.daily(player, 2)
    assert played.value.code is ErrorCode.ALREADY_PLAYED


async def test_practice_of_a_code_random_practice_and_todays_daily_refused(hub: Hub) -> None:
    player = (await hub.accounts.register("bea")).player
    chosen = await hub.starts.practice(player, "SS1-S2-AAAAABD", 1)  # the code's count
    assert chosen.code == "SS1-S2-AAAAABD" and chosen.day is None and chosen.suits == 2
    random = await hub.starts.practice(player, None, 4)
    assert random.suits == 4 and random.code.startswith("SS1-S4-")
    with pytest.raises(Refused) as bad:
        await hub.starts.practice(player, "SS1-S9-XXXX", 1)
    assert bad.value.code is ErrorCode.BAD_CODE
    daily = await hub.starts.daily(player, 1)
    with pytest.raises(Refused) as not_over:
        await hub.starts.practice(player, daily.code, 1)
    assert not_over.value.code is ErrorCode.DAILY_NOT_OVER


async def test_a_random_practice_deal_has_a_move_to_make(
    hub: Hub, monkeypatch: pytest.MonkeyPatch
) -> None:
    player = (await hub.accounts.register("dee")).player
    draws = iter([224, 5])  # the first, SS1-S1-AAAAAIQ, has no legal move at all
    monkeypatch.setattr(secrets, "randbelow", lambda below: next(draws))
    game = await hub.starts.practice(player, None, 1)
    assert game.code == str(GameCode(1, 5))
    assert next(game.engine.legal_moves(), None) is not None


async def test_resume_only_ones_own_game_and_release_lets_go(hub: Hub) -> None:
    owner = (await hub.accounts.register("cid")).player
    other = (await hub.accounts.register("dot")).player
    game = await hub.starts.practice(owner, None, 1)
    with pytest.raises(Refused) as refused:
        await hub.starts.resume(other, game.id)
    assert refused.value.code is ErrorCode.NOT_FOUND
    assert await hub.starts.resume(owner, game.id) is game  # held twice now
    hub.starts.release(game)
    assert game.id in hub.live
    hub.starts.release(game)
    assert game.id not in hub.live
