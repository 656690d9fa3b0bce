"""Redis hangs (it keeps its connections open and answers nothing): ``leaderboard``,
``rank`` and the home page answer from the database, and after the first failure none of
them asks Redis again until its breaker lets a trial call through; once Redis answers the
rank cache is used again, and a result written meanwhile is on it.

The server runs in the test process on the real PostgreSQL and on the real Redis reached
through a TCP proxy the test freezes (it holds every byte) and restores.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import urllib.request
from typing import TYPE_CHECKING

import redis.asyncio as redis
from prometheus_client.parser import text_string_to_metric_families

from server.net import RunningServer
from server.store.ranks import RedisRankCache
from tests.conftest import Backend
from tests.support.players import registered, resume, signed_in, started, step
from tests.support.proxy import TcpProxy, proxied_redis_url, target_of
from tests.support.servers import (
    Client,
    fresh_clock,
    server_settings,
    serving,
    store_of,
    unique_name,
)
from tests.support.web import no_cache, page

if TYPE_CHECKING:
    from server.breaker import State

#: How long a request may take on a loaded machine (the hung Redis' own cost included).
REPLY_SECONDS = 30.0
#: Reads made while the breaker is open: each would wait the cache's timeout on Redis.
READS = 5
#: A racer's moves reach the race at most twice a second, the last one always following
#: (docs/protocol.md, Races): once the clock moved this far, a move's event has gone.
RACE_EVENTS_SETTLED = 1.1
#: In the name of the bus's pub/sub client: its connections are not the rank cache's.
PUBSUB = b":races"


async def started_bot(client: Client) -> str:
    """A new bot starts today's 1-suit daily (its result goes on the bots' board)."""
    name = unique_name("b")
    reply = await client.request({"type": "register", "name": name, "bot": True})
    assert reply["type"] == "registered", reply
    started = await client.request({"type": "start", "suits": 1}, timeout=REPLY_SECONDS)
    assert started["type"] == "state", started
    return name


async def resigned(client: Client) -> None:
    reply = await client.request({"type": "resign"}, timeout=REPLY_SECONDS)
    assert reply["type"] == "state" and reply["state"]["finished"], reply


async def finished_bot(url: str) -> str:
    """A bot starts today's 1-suit daily and resigns at once: a result on the bots' board."""
    async with Client.connect(url) as client:
        name = await started_bot(client)
        await resigned(client)
        return name


async def board_and_ranks(client: Client, names: list[str]) -> tuple[list[str], set[int]]:
    """The 1-suit bots' board (its players, best first) and the totals every answer gave,
    each rank checked against the board."""
    board = await client.request(
        {"type": "leaderboard", "suits": 1, "board": "bots", "limit": 50}, timeout=REPLY_SECONDS
    )
    assert board["type"] == "leaderboard", board
    order = [row["player"] for row in board["rows"]]
    totals = {board["total"]}
    for name in names:
        rank = await client.request(
            {"type": "rank", "suits": 1, "board": "bots", "player": name, "around": 1},
            timeout=REPLY_SECONDS,
        )
        assert rank["type"] == "rank", rank
        assert rank["rank"] == order.index(name) + 1, (name, rank, order)
        assert [row["player"] for row in rank["around"]] == order[
            max(0, rank["rank"] - 2) : rank["rank"] + 1
        ], rank
        totals.add(rank["total"])
    return order, totals


def own_ids(client: Client, first: int) -> None:
    """Number the client's messages from ``first``: a game's moves on a new connection
    must not reuse its earlier connections' ids (the same move at the same id would be
    answered as a resend of that one)."""
    client._ids = itertools.count(first)


def state_of(ranks: RedisRankCache) -> State:
    return ranks.breaker.state  # read afresh (a check of the property narrows nothing)


async def breaker_samples(server: RunningServer, service: str = "rank-cache") -> dict[str, float]:
    """A breaker's figures on ``/metrics``."""

    def get() -> str:
        with urllib.request.urlopen(server.http_url + "/metrics", timeout=REPLY_SECONDS) as got:
            text: str = got.read().decode()
            return text

    text = await asyncio.to_thread(get)
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name.startswith("simon_breaker") and sample.labels == {"service": service}
    }


async def test_reads_skip_a_hung_redis_and_use_it_again_once_it_answers(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    prefix = f"simon-test-{run_id}"
    async with TcpProxy(*target_of(redis_url, 6379)) as proxy:
        backend = Backend("services", postgres_url, proxied_redis_url(redis_url, proxy), prefix)
        settings = server_settings(backend)
        clock = fresh_clock(real_intervals=False)  # the breaker's seconds pass when told
        direct = redis.Redis.from_url(redis_url)
        async with (
            serving(settings, clock=clock) as server,
            Client.connect(server.url) as asking,
            Client.connect(server.url) as playing,
        ):
            no_cache(server)  # every page is made afresh
            # signed in: a connection that only reads stays open however long it reads
            reply = await asking.request({"type": "register", "name": unique_name("a")})
            assert reply["type"] == "registered", reply
            names = [await finished_bot(server.url) for _ in range(3)]
            late = await started_bot(playing)  # finishes while Redis hangs
            order, totals = await board_and_ranks(asking, names)  # the rank cache is warmed
            assert sorted(order) == sorted(names) and totals == {3}, (order, totals)
            day = clock.now().date().isoformat()
            key = f"{settings.redis_prefix}:ranks:{day}:1:bots"
            assert await direct.zcard(key) == 4  # the three, and the marker of a whole set

            proxy.freeze()
            try:
                # the first read meets the hung Redis, waits out the cache's short timeout
                # and is answered from the database
                assert await board_and_ranks(asking, []) == (order, {3})
                # a result written now is not added to Redis (and must not be lost there);
                # the move is answered at once, Redis skipped
                await resigned(playing)
                await server.hub.standings.flush()  # its race events have met Redis too
                asked = proxy.bytes_asked(excluding=PUBSUB)

                def nothing_asked(reads: str) -> None:
                    more = proxy.bytes_asked(excluding=PUBSUB) - asked
                    assert more == 0, f"{reads} asked the hung Redis again ({more} bytes)"

                seen, totals = await board_and_ranks(asking, [])
                nothing_asked("a leaderboard read after its first failure")
                assert sorted(seen) == sorted([*names, late]) and totals == {4}, seen
                for _ in range(READS):
                    again, totals = await board_and_ranks(asking, [*names, late])
                    assert again == seen and totals == {4}, (again, totals)
                nothing_asked(f"{READS} leaderboard reads and {READS * 4} rank reads")
                home = await page(server.http_url + "/?board=bots")
                assert home.status == 200, home.status
                assert all(name in home.text for name in seen), home.text
                nothing_asked("the home page")
                ranks = store_of(server).ranks
                assert isinstance(ranks, RedisRankCache)
                assert state_of(ranks) == "open"
                figures = await breaker_samples(server)
                assert figures["simon_breaker_open"] == 1, figures
                assert figures["simon_breaker_skipped_total"] > READS, figures
            finally:
                proxy.restore()  # also when the test fails: the server must stop

            # still open: nothing goes to Redis until its seconds are over ...
            assert await direct.zcard(key) == 4  # the late result is not there
            clock.advance(seconds=ranks.breaker.open_seconds)
            # ... then one read tries it, drops the set that missed a result, warms it again
            assert await board_and_ranks(asking, [*names, late]) == (seen, {4})
            assert state_of(ranks) == "closed"
            assert await direct.zcard(key) == 5  # the rank cache is whole again, in Redis
            asked = proxy.bytes_asked(excluding=PUBSUB)
            assert await board_and_ranks(asking, [late]) == (seen, {4})
            assert proxy.bytes_asked(excluding=PUBSUB) > asked  # and Redis is asked again
            assert (await breaker_samples(server))["simon_breaker_open"] == 0
        await direct.aclose()


async def test_dailies_start_and_resume_while_redis_hangs(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    rng = random.Random(41)
    async with TcpProxy(*target_of(redis_url, 6379)) as proxy:
        backend = Backend(
            "services", postgres_url, proxied_redis_url(redis_url, proxy), f"simon-test-{run_id}"
        )
        settings = server_settings(backend, redis_socket_timeout_seconds=2.0)
        clock = fresh_clock(real_intervals=False)  # the breakers' seconds pass when told
        async with serving(settings, clock=clock) as server:
            async with Client.connect(server.url) as client:
                token = await registered(client, racer := unique_name("r"))
                ledger = await started(client, {"mode": "daily", "suits": 1})
                await step(client, ledger, rng)

            proxy.freeze()
            try:
                # the first start of a race this node follows meets the hung Redis (its
                # standings are read from the bus), waits out the timeout, and is answered
                async with Client.connect(server.url) as first:
                    await registered(first, unique_name("f"))
                    reply = await first.request(
                        {"type": "start", "mode": "daily", "suits": 2}, timeout=REPLY_SECONDS
                    )
                    assert reply["type"] == "state", reply
                asked = proxy.bytes_asked(excluding=PUBSUB)
            except BaseException:
                proxy.restore()  # the server must stop
                raise
            # then a daily is resumed and played, and another started, without a wait
            async with Client.connect(server.url) as client:
                try:
                    own_ids(client, 200)
                    await signed_in(client, token)
                    state = await resume(client, ledger.game_id, ledger.seq)
                    assert ledger.check(state) == [] and state["seq"] == ledger.seq
                    for _ in range(3):
                        await step(client, ledger, rng)
                    race = await client.request({"type": "race", "suits": 1})
                    assert race["type"] == "race", race  # (its events wait for Redis)
                    async with Client.connect(server.url) as other:
                        await registered(other, unique_name("o"))
                        await started(other, {"mode": "daily", "suits": 4})
                    more = proxy.bytes_asked(excluding=PUBSUB) - asked
                    assert more == 0, f"the bus asked the hung Redis again ({more} bytes)"
                    figures = await breaker_samples(server, "bus")
                    assert figures["simon_breaker_open"] == 1, figures
                finally:
                    proxy.restore()  # also when the test fails: the server must stop

                # once its seconds are over, the bus is used again: the race's standings
                # Redis held are read (missed when the race was followed) ...
                clock.advance(seconds=settings.redis_breaker_seconds)
                race = await client.request({"type": "race", "suits": 1})
                assert racer in [row["player"] for row in race["players"]], race
                # ... and a move's race event goes out and comes back through the reader
                asked = proxy.bytes_asked(excluding=PUBSUB)
                await step(client, ledger, rng)
                clock.advance(seconds=RACE_EVENTS_SETTLED)  # its race event is due
                await server.hub.standings.flush()
                assert proxy.bytes_asked(excluding=PUBSUB) > asked
                deadline = asyncio.get_running_loop().time() + REPLY_SECONDS
                while True:
                    race = await client.request({"type": "race", "suits": 1})
                    rows = {row["player"]: row for row in race["players"]}
                    if rows[racer]["moves"] == ledger.engine.moves:
                        break
                    assert asyncio.get_running_loop().time() < deadline, (race, ledger.engine)
                    await asyncio.sleep(0.05)
                assert (await breaker_samples(server, "bus"))["simon_breaker_open"] == 0
