"""Daily deals made ahead, once: two real nodes on one database, a clock the test moves.

One node proves a day's deals (the holder of the database's lease) and the other waits for
the stored rows; ``daily`` always lists the day's three deals, each ``ready: false`` while
it is being proven, and the new day's announcement carries all three. Each daily opens as
soon as its own deal is proven, and every connection is told when one does.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta

import pytest

from server.logs import QUIET_LIBRARIES, quiet_libraries
from server.play.clock import utc_day
from server.play.daily.deals import Proof
from tests.conftest import Backend
from tests.support.fakes import FourSuitsHeld
from tests.support.players import SolvingProver
from tests.support.servers import (
    Client,
    fresh_clock,
    get_json,
    quick_prover,
    server_settings,
    serving,
    unique_name,
)


async def test_two_nodes_prove_each_day_once_ahead_of_midnight(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("server.play.after.queries.DAILY_WAIT", 0.1)
    settings = server_settings(backend)  # one database, Redis prefix and secret for both
    clock = fresh_clock()  # noon
    today = utc_day(clock.now())
    go = asyncio.Event()
    proofs: Counter[str] = Counter()

    async def prover(code: str) -> Proof:
        proofs[code] += 1
        await go.wait()  # both nodes are up and want the deals before any is proven
        return await quick_prover(code)

    async with (
        serving(settings, clock=clock, prover=prover, ready=False) as node_a,
        serving(settings, clock=clock, prover=prover, ready=False) as node_b,
    ):
        status, health = await get_json(node_b.http_url + "/healthz")
        # serving from the first: only the daily waits for its deals
        assert status == 200 and health["ok"] and health["daily"] == "proving"
        assert health["dailies"] == {"1": "proving", "2": "proving", "4": "proving"}
        async with Client.connect(node_a.url) as alice, Client.connect(node_b.url) as bob:
            daily = await alice.request({"type": "daily"})  # answered: each deal's state
            assert [deal.get("ready") for deal in daily["deals"]] == [False, False, False]
            await alice.request({"type": "register", "name": unique_name()})
            refused = await alice.request({"type": "start", "suits": 1})
            assert refused["type"] == "error" and refused["code"] == "proving"
            assert (await bob.request({"type": "ping"}))["type"] == "pong"
            go.set()
            deals_a, deals_b = await asyncio.gather(
                node_a.hub.daily.deals(today), node_b.hub.daily.deals(today)
            )
            for client in (alice, bob):  # told by the node that proved them, and the other
                await client.pushed_event(
                    lambda frame: (
                        frame["type"] == "daily_changed"
                        and all("ready" not in deal for deal in frame["deals"])
                    )
                )
        assert [deal.code for deal in deals_a] == [deal.code for deal in deals_b]
        assert set(proofs.values()) == {1}  # every candidate proven by one node only
        proven_today = sum(proofs.values())
        status, health = await get_json(node_b.http_url + "/healthz")
        assert status == 200 and health["daily"] == "ready"
        assert set(health["dailies"].values()) == {"ready"}

        clock.advance(hours=9, minutes=30)  # 21:30: tomorrow's deals are due to be proven
        await asyncio.gather(node_a.hub.days.tick(), node_b.hub.days.tick())
        tomorrow = today + timedelta(days=1)
        deals_a, deals_b = await asyncio.gather(
            node_a.hub.daily.deals(tomorrow), node_b.hub.daily.deals(tomorrow)
        )
        assert [deal.code for deal in deals_a] == [deal.code for deal in deals_b]
        assert set(proofs.values()) == {1} and sum(proofs.values()) > proven_today

        async with Client.connect(node_a.url) as on_a, Client.connect(node_b.url) as on_b:
            for client in (on_a, on_b):
                await client.request({"type": "register", "name": unique_name()})
            clock.advance(hours=3)  # past midnight
            await asyncio.gather(node_a.hub.days.check_day(), node_b.hub.days.check_day())
            for client in (on_a, on_b):
                changed = await client.pushed_event(lambda f: f["type"] == "daily_changed")
                assert changed["day"] == tomorrow.isoformat()
                assert [deal["suits"] for deal in changed["deals"]] == [1, 2, 4]
                assert [deal["suits"] for deal in changed["yesterday"]] == [1, 2, 4]
                daily = await client.request({"type": "daily"})
                assert [deal["suits"] for deal in daily["deals"]] == [1, 2, 4]


async def test_each_daily_opens_as_soon_as_its_own_deal_is_proven(backend: Backend) -> None:
    """The 4-suit proof held: the 1-suit daily starts and is played to its end meanwhile, the
    4-suit one is refused ``proving`` (with ``retry_after``), and once its proof is done
    every connection is told and it starts."""
    solving = SolvingProver()
    prover = FourSuitsHeld(solving)  # the longest proof, held

    settings = server_settings(backend)
    async with serving(settings, clock=fresh_clock(), prover=prover, ready=False) as server:
        today = server.hub.today()
        await asyncio.gather(server.hub.daily.deal(today, 1), server.hub.daily.deal(today, 2))
        status, health = await get_json(server.http_url + "/healthz")
        assert status == 200 and health["daily"] == "proving"
        assert health["dailies"] == {"1": "ready", "2": "ready", "4": "proving"}
        async with Client.connect(server.url) as alice, Client.connect(server.url) as bob:
            for client in (alice, bob):
                await client.request({"type": "register", "name": unique_name()})
            daily = await alice.request({"type": "daily"})
            states = [(deal["suits"], deal.get("ready")) for deal in daily["deals"]]
            assert states == [(1, None), (2, None), (4, False)]

            refused = await alice.request({"type": "start", "suits": 4})
            assert refused["type"] == "error" and refused["code"] == "proving"
            assert refused["detail"]["retry_after"] >= 1
            state = (await alice.request({"type": "start", "suits": 1}))["state"]
            assert state["mode"] == "daily" and state["suits"] == 1
            for move in solving.solutions[state["code"]]:
                reply = await alice.request({"type": "move", "move": move})
                assert reply["type"] == "moved", reply
            assert reply["won"]
            refused = await alice.request({"type": "start", "suits": 4})
            assert refused["code"] == "proving"  # still: the proof is held

            prover.release.set()
            for client in (alice, bob):
                changed = await client.pushed_event(
                    lambda frame: (
                        frame["type"] == "daily_changed"
                        and all("ready" not in deal for deal in frame["deals"])
                    )
                )
                assert changed["day"] == today.isoformat()
                assert [deal["suits"] for deal in changed["deals"]] == [1, 2, 4]
            state = (await alice.request({"type": "start", "suits": 4}))["state"]
            assert state["mode"] == "daily" and state["suits"] == 4
            daily = await alice.request({"type": "daily"})
            assert [deal.get("ready") for deal in daily["deals"]] == [None, None, None]
            assert [deal["finished"] for deal in daily["deals"]] == [True, False, False]
        status, health = await get_json(server.http_url + "/healthz")
        assert health["daily"] == "ready" and set(health["dailies"].values()) == {"ready"}


@pytest.fixture
def library_levels() -> Iterator[None]:
    """The libraries' log levels put back after the test."""
    levels = {name: logging.getLogger(name).level for name in QUIET_LIBRARIES}
    yield
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


@pytest.mark.usefixtures("library_levels")
async def test_no_daily_code_is_logged_before_its_day_ends(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)  # even at DEBUG, as the server configures it
    quiet_libraries()
    clock = fresh_clock()
    clock.advance(hours=10)  # 22:00: tomorrow's deals are proven too
    async with serving(server_settings(backend), clock=clock) as server:
        await server.hub.days.tick()
        tomorrow = utc_day(clock.now()) + timedelta(days=1)
        deals = [
            *await server.hub.daily.deals(server.hub.today()),
            *await server.hub.daily.deals(tomorrow),
        ]
        async with Client.connect(server.url) as client:
            await client.request({"type": "register", "name": unique_name()})
            for suits in (1, 2, 4):
                assert (await client.request({"type": "start", "suits": suits}))["type"] == "state"
    # all but the websocket library's DEBUG lines, which carry every frame (documented)
    logged = "\n".join(
        record.getMessage()
        for record in caplog.records
        if not (record.name.startswith("websockets") and record.levelno < logging.INFO)
    )
    for deal in deals:
        assert deal.code not in logged
        assert deal.code.rsplit("-", 1)[1] not in logged  # nor its deal number's letters
    assert "candidate 0 proven" in logged  # the proving was logged, by number
