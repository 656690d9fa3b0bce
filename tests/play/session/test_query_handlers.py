"""The session's answers to ``daily``, ``race``, ``leaderboard``, ``rank`` and ``history``
(server/play/session/query_handlers.py)."""

from __future__ import annotations

import asyncio
import json

import pytest

from server.bus import InProcessBus
from server.play.clock import ManualClock
from server.play.daily.deals import Proof
from server.play.daily.standings import FOLLOWS_PER_ACCOUNT
from server.play.hub import Hub
from tests.play.talk import Talk, signed_in
from tests.support.fakes import FakeStore, NoRaceRooms, NoSocial

SECRET = "unit-test-secret"


async def test_following_needs_an_account_and_is_capped_per_account(hub: Hub) -> None:
    stranger = Talk(hub)
    refused = await stranger.one(type="race", suits=1)
    assert refused["type"] == "error" and refused["code"] == "not-authenticated"
    registered = await Talk(hub).one(type="register", name="fan")
    followers = [Talk(hub) for _ in range(FOLLOWS_PER_ACCOUNT + 1)]
    for talk in followers:
        await talk.one(type="auth", token=registered["token"])
    for talk in followers[:-1]:
        assert (await talk.one(type="race", suits=2))["type"] == "race"
    refused = await followers[-1].one(type="race", suits=2)
    assert refused["type"] == "error" and refused["code"] == "too-many-follows"
    await followers[0].session.close()  # one lets go: another may follow
    assert (await followers[-1].one(type="race", suits=2))["type"] == "race"


async def test_daily_says_each_deal_being_proven_and_start_refuses_it_proving(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("server.play.after.queries.DAILY_WAIT", 0.05)
    monkeypatch.setattr("server.play.games.starts.DAILY_START_WAIT", 0.05)
    hard = asyncio.Event()

    async def prover(code: str) -> Proof:
        if code.startswith("SS1-S4"):
            await hard.wait()  # a 4-suit search that takes its time
        return Proof(True, 50)

    hub = Hub(
        store=FakeStore(),
        bus=InProcessBus(),
        clock=ManualClock(),
        secret=SECRET,
        prover=prover,
        race_store=NoRaceRooms(),  # type: ignore[arg-type]
        social_store=NoSocial(),  # type: ignore[arg-type]
    )
    await hub.daily.deal(hub.today(), 1)
    await hub.daily.deal(hub.today(), 2)
    talk = await signed_in(hub, "ada")
    info = await talk.one(type="daily", id=1)
    assert [(deal["suits"], deal.get("ready")) for deal in info["deals"]] == [
        (1, None),
        (2, None),
        (4, False),
    ]
    refused = await talk.one(type="start", suits=4)
    assert refused["type"] == "error" and refused["code"] == "proving"
    assert refused["detail"] == {"retry_after": 3} and "4-suit" in refused["message"]
    assert (await talk.one(type="start", suits=1))["type"] == "state"
    hard.set()
    await hub.daily.deals(hub.today())
    info = await talk.one(type="daily")
    assert [deal.get("ready") for deal in info["deals"]] == [None, None, None]
    assert (await talk.one(type="start", suits=4))["type"] == "state"
    await hub.close()


async def test_daily_lists_todays_deals_without_codes_and_the_players_progress(hub: Hub) -> None:
    anonymous = await Talk(hub).one(type="daily", id=1)
    assert anonymous["deals"] == [{"suits": 1}, {"suits": 2}, {"suits": 4}]
    talk = await signed_in(hub, "kim")
    fresh = await talk.one(type="daily")
    assert [(d["suits"], d["started"], d["finished"]) for d in fresh["deals"]] == [
        (1, False, False),
        (2, False, False),
        (4, False, False),
    ]
    await talk.one(type="start", suits=2)
    await talk.one(type="start", suits=4)
    await talk(type="resign")
    info = await talk.one(type="daily")
    assert [(d["suits"], d["started"], d["finished"]) for d in info["deals"]] == [
        (1, False, False),
        (2, True, False),
        (4, True, True),
    ]
    assert "code" not in json.dumps(info["deals"])


async def test_the_clock_starts_when_the_board_is_sent_not_when_the_daily_is_asked(
    hub: Hub,
) -> None:
    clock = hub.clock
    assert isinstance(clock, ManualClock)
    talk = await signed_in(hub, "lou")
    await talk.one(type="daily")
    clock.advance(seconds=300)  # reading the list of deals starts nothing
    state = (await talk.one(type="start", suits=1))["state"]
    assert state["elapsed"] == 0.0 and state["board"]
    record = await hub.store.get_game(state["game"])
    assert record is not None and record.started_at == clock.now()
