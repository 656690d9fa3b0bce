"""A finished daily reviewed ahead of its asking, over a real websocket on both backends: made
while its day goes on (and shown to nobody before the day is over), found made by the first
asker once the day is over, at no cost to the asker's reviews of the day; the day's CPU budget
for reviews ahead, past which a daily is left to be reviewed when asked."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.net import RunningServer
from tests.conftest import Backend
from tests.support.fakes import HeldReviews
from tests.support.players import SolvingProver, finished_of, registered
from tests.support.servers import (
    HOLD_NOTHING,
    Client,
    database_of_its_own,
    fresh_clock,
    server_settings,
    serving,
    unique_name,
)


@pytest.fixture
def own(backend: Backend, tmp_path: Path) -> Iterator[Backend]:
    """The backend with a database of the test's own: a node closes the unfinished dailies
    of earlier days it finds at its start, and reviews them ahead too, so the counts of
    reviews made and left are the test's only where no other test's games lie."""
    with database_of_its_own(backend, tmp_path) as database:
        yield dataclasses.replace(backend, database_url=database)


async def _won_daily(client: Client, prover: SolvingProver) -> tuple[str, str]:
    """A 1-suit daily won along the solver's line: its game id and code."""
    start = await client.request({"type": "start", "mode": "daily", "suits": 1})
    state = start["state"]
    for text in prover.solutions[state["code"]]:
        reply = await client.request({"type": "move", "move": text})
        assert reply["type"] == "moved", reply
    finished = await finished_of(client, state["game"])
    assert finished["won"], finished
    return str(state["game"]), str(state["code"])


async def _settled(server: RunningServer, made: int, left: int = 0) -> None:
    """Wait until the node has made ``made`` reviews ahead and left ``left``."""
    reviews = server.hub.reviews
    for _ in range(600):
        if (reviews.ahead.made, reviews.ahead.left) == (made, left):
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"made {reviews.ahead.made} ahead and left {reviews.ahead.left}")


async def test_a_finished_daily_is_reviewed_ahead_and_its_first_asker_pays_nothing(
    own: Backend,
) -> None:
    prover = SolvingProver(shorten=True)
    clock = fresh_clock()
    settings = server_settings(own, fairplay=HOLD_NOTHING, review_ahead_seconds=600)
    async with serving(settings, clock=clock, prover=prover) as server:
        async with Client.connect(server.url) as alice:
            await registered(alice, unique_name("ahead"))
            game, code = await _won_daily(alice, prover)
            await _settled(server, made=1)
            assert server.hub.reviews.ahead.spent > 0  # its CPU, counted against the day's

            # made, and kept: still nobody's before the day is over, the player's own included
            early = await alice.request({"type": "review", "game": game})
            assert early["type"] == "error" and early["code"] == "not-visible", early

            clock.advance(days=1)
            server.hub.reviews.per_day = 0  # a review asked anew would be refused now
            review = await alice.request({"type": "review", "game": game}, timeout=30)
            assert review["type"] == "review" and review["game"] == game, review
            assert review["won"] and review["par"] == len(prover.solutions[code])
            assert review["positions"][0]["distance"] == review["par"]
            assert review["unknown"] == 0

        # another node (or this one after a restart) finds it in the store, made
        server.hub.reviews._done.clear()
        async with Client.connect(server.url) as bob:
            await registered(bob, unique_name("reader"))
            again = await bob.request({"type": "review", "game": game}, timeout=30)
            assert again["type"] == "review" and again["positions"] == review["positions"]


async def test_past_the_days_budget_a_daily_is_left_to_be_reviewed_when_asked(
    own: Backend,
) -> None:
    prover = SolvingProver(shorten=True)
    clock = fresh_clock()
    # room for one review at the full budget a review has, not for two
    settings = server_settings(own, fairplay=HOLD_NOTHING, review_seconds=5, review_ahead_seconds=5)
    async with (
        serving(settings, clock=clock, prover=prover) as server,
        Client.connect(server.url) as alice,
        Client.connect(server.url) as bob,
    ):
        await registered(alice, unique_name("first"))
        await registered(bob, unique_name("second"))
        await _won_daily(alice, prover)
        await _settled(server, made=1)
        left, _ = await _won_daily(bob, prover)
        await _settled(server, made=1, left=1)

        clock.advance(days=1)
        review = await bob.request({"type": "review", "game": left}, timeout=60)
        assert review["type"] == "review" and review["game"] == left, review


async def test_an_ask_while_the_review_is_made_ahead_waits_for_that_one(
    own: Backend,
) -> None:
    prover = SolvingProver(shorten=True)
    clock = fresh_clock()
    settings = server_settings(own, fairplay=HOLD_NOTHING, review_ahead_seconds=600)
    async with (
        serving(settings, clock=clock, prover=prover) as server,
        Client.connect(server.url) as alice,
    ):
        reviews = server.hub.reviews
        assert reviews.ahead.worker is not None
        held = HeldReviews(reviews.ahead.worker)
        reviews.ahead.worker = held  # type: ignore[assignment]
        await registered(alice, unique_name("waits"))
        game, _ = await _won_daily(alice, prover)
        await asyncio.wait_for(held.asked.wait(), 30)

        clock.advance(days=1)
        reviews.per_day = 0  # a review made anew for the asker would be refused
        await alice.send({"id": "review", "type": "review", "game": game})
        await asyncio.sleep(0.2)
        held.release.set()
        review = await alice.reply_to("review", timeout=60)
        assert review["type"] == "review" and review["game"] == game, review
        await _settled(server, made=1)
