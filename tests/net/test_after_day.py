"""After the daily, end to end over a real websocket and HTTP, on both backends: the
``finished`` of a won daily, the day's statistics, a replay before and after the day
closes, a report and a review."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

from tests.conftest import Backend
from tests.support.fakes import HeldReviews
from tests.support.players import (
    SolvingProver,
    finished_of,
    registered,
    resigned_practice_games,
    review_share_spent,
    signed_in,
)
from tests.support.servers import (
    HOLD_NOTHING,
    Client,
    fresh_clock,
    get_json,
    server_settings,
    serving,
    unique_name,
)


def _get(url: str, headers: dict[str, str]) -> tuple[int, Any]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def test_a_won_daily_its_stats_replay_report_and_review(backend: Backend) -> None:
    prover = SolvingProver(shorten=True)  # the review's own line: reviewed in about a second
    clock = fresh_clock()
    settings = server_settings(backend, fairplay=HOLD_NOTHING, public_url="https://simon.test")
    async with (
        serving(settings, clock=clock, prover=prover) as server,
        Client.connect(server.url) as alice,
        Client.connect(server.url) as bob,
    ):
        alice_name = unique_name("alice")
        token = await registered(alice, alice_name)
        await registered(bob, unique_name("bob"))
        start = await alice.request({"type": "start", "mode": "daily", "suits": 1})
        state = start["state"]
        game, code, day = state["game"], state["code"], state["day"]
        for text in prover.solutions[code]:
            reply = await alice.request({"type": "move", "move": text})
            assert reply["type"] == "moved", reply
        finished = await finished_of(alice, game)
        assert finished["won"] and finished["rank"] == 1 and finished["percentile"] == 100.0
        assert finished["streak"] == {"current": 1, "best": 1}
        share = finished["share"]
        assert code not in share and "first of 1" in share
        assert share.endswith(f"https://simon.test/day/{day}?suits=1")

        stats = await alice.request({"type": "day_stats", "suits": 1, "player": alice_name})
        assert stats["type"] == "day_stats" and (stats["finished"], stats["won"]) == (1, 1)
        assert stats["you"]["rank"] == 1 and "par" not in stats
        status, body = await get_json(f"{server.http_url}/day/{day}/stats?suits=1")
        assert status == 200 and body["moves_histogram"] == stats["moves_histogram"]

        # before the day closes: the owner's alone
        mine = await alice.request({"type": "replay", "game": game})
        assert mine["type"] == "replay" and mine["code"] == code
        assert [step["action"] for step in mine["moves"]][-1] == "won"
        hidden = await bob.request({"type": "replay", "game": game})
        assert hidden["type"] == "error" and hidden["code"] == "not-visible"
        status, body = await get_json(f"{server.http_url}/replay/{game}")
        assert status == 403 and body["error"]["code"] == "not-visible"
        auth = {"Authorization": f"Bearer {token}"}
        status, body = await asyncio.to_thread(_get, f"{server.http_url}/replay/{game}", auth)
        assert status == 200 and body["game"] == game
        early = await bob.request({"type": "report", "game": game, "reason": "too good"})
        assert early["type"] == "error" and early["code"] == "not-visible"
        not_yet = await alice.request({"type": "review", "game": game})
        assert not_yet["type"] == "error" and not_yet["code"] == "not-visible"

        clock.advance(days=1)
        status, body = await get_json(f"{server.http_url}/replay/{game}")
        assert status == 200 and len(body["moves"]) == len(mine["moves"])
        public = await bob.request({"type": "replay", "game": game})
        assert public["type"] == "replay" and public["player"] == alice_name
        reported = await bob.request({"type": "report", "game": game, "reason": "too good"})
        assert reported == {"type": "reported", "id": reported["id"], "game": game}
        again = await bob.request({"type": "report", "game": game, "reason": "really"})
        assert again["type"] == "error" and again["code"] == "already-reported"

        review = await alice.request({"type": "review", "game": game}, timeout=120)
        assert review["type"] == "review", review
        assert review["won"] and review["positions"][-1]["distance"] == 0
        assert all(position["winnable"] for position in review["positions"]), review
        assert review["par"] == len(prover.solutions[code])
        assert review["positions"][0]["distance"] == review["par"]  # the daily's own line
        assert review["against_par"] == 0  # the par's own line
        history = await alice.request({"type": "history"})
        assert history["streak"] == {"current": 1, "best": 1}


async def test_a_reconnection_does_not_reset_an_accounts_reviews_of_the_day(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend), clock=fresh_clock()) as server:
        server.hub.reviews.per_day = 2
        async with Client.connect(server.url) as first:
            token, games = await review_share_spent(first, 2)
            over = await first.request({"type": "review", "game": games[2]})
            assert over["type"] == "error" and over["code"] == "rate-limited", over
        # a new connection of the same account starts no new share
        async with Client.connect(server.url) as again:
            await signed_in(again, token)
            still = await again.request({"type": "review", "game": games[2]})
            assert still["type"] == "error" and still["code"] == "rate-limited", still
            kept = await again.request({"type": "review", "game": games[0]})
            assert kept["type"] == "review"  # made already: answered, not counted


async def test_a_review_under_way_holds_up_nothing_else_of_its_connection(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend), clock=fresh_clock()) as server:
        reviews = server.hub.reviews
        held = HeldReviews(reviews._worker)
        reviews._worker = held  # type: ignore[assignment]
        async with Client.connect(server.url) as alice:
            await registered(alice, unique_name("aside"))
            [game] = await resigned_practice_games(alice, 1)
            await alice.send({"id": "review", "type": "review", "game": game})
            await asyncio.wait_for(held.asked.wait(), 10)
            try:  # the solver is busy with alice's review: her connection plays on meanwhile
                assert (await alice.request({"type": "ping"}, timeout=5))["type"] == "pong"
                started = await alice.request({"type": "start", "mode": "practice", "suits": 2})
                assert started["type"] == "state"
                again = await alice.request({"type": "review", "game": game})
                assert again["type"] == "error" and again["code"] == "busy", again
            finally:
                held.release.set()
            review = await alice.reply_to("review", timeout=120)
            assert review["type"] == "review" and review["game"] == game, review
