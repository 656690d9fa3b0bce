"""The Redis bus, shared by two nodes (with a reader that reconnects)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest
import redis.asyncio as redis

from server.bus import BusUnavailable, InProcessBus, RedisBus, StandingUpdate
from server.bus.base import COUNT_SECONDS, KEEP_SECONDS
from tests.support.servers import free_port

DAY = date(2031, 5, 17)


@dataclass
class TwoNodes:
    """Two nodes' buses on one Redis prefix; ``got``: the race frames node A receives."""

    prefix: str
    a: RedisBus
    b: RedisBus
    got: asyncio.Queue[str]
    admin: redis.Redis


@asynccontextmanager
async def two_nodes(redis_url: str, prefix: str) -> AsyncIterator[TwoNodes]:
    node_a, node_b = RedisBus(redis_url, prefix=prefix), RedisBus(redis_url, prefix=prefix)
    got: asyncio.Queue[str] = asyncio.Queue()
    node_a.set_standings_handler(lambda day, suits, frame: got.put_nowait(frame))
    await node_a.start()
    await node_b.start()
    admin = redis.Redis.from_url(redis_url)
    try:
        yield TwoNodes(prefix, node_a, node_b, got, admin)
    finally:
        await admin.aclose()
        await node_a.close()
        await node_b.close()


async def test_redis_bus_between_nodes_survives_a_dropped_connection(
    redis_url: str, run_id: str
) -> None:
    prefix = f"simon-test-{run_id}-bus-{uuid.uuid4().hex[:6]}"
    async with two_nodes(redis_url, prefix) as nodes:
        node_a, node_b, got, admin = nodes.a, nodes.b, nodes.got, nodes.admin
        await node_a.join_standings(DAY, 4)
        await node_b.publish_standings([StandingUpdate(DAY, 4, "bo", '{"player":"bo"}', "first")])
        assert await asyncio.wait_for(got.get(), 5) == "first"
        assert await node_a.standings_entries(DAY, 4) == ['{"player":"bo"}']

        readers = [
            c for c in await admin.client_list(_type="pubsub") if c["name"] == f"{prefix}:races"
        ]
        assert len(readers) == 1  # node B joined no race: only node A reads
        assert await admin.client_kill_filter(_id=readers[0]["id"]) == 1
        # messages published while the reader is away are lost: publish until one arrives
        async with asyncio.timeout(15):
            while True:
                await node_b.publish_standings(
                    [StandingUpdate(DAY, 4, "bo", '{"player":"bo"}', "after")]
                )
                try:
                    if await asyncio.wait_for(got.get(), 0.5) == "after":
                        break
                except TimeoutError:
                    continue


async def test_redis_bus_takes_more_callers_at_once_than_it_has_connections(
    redis_url: str, run_id: str
) -> None:
    bus = RedisBus(redis_url, prefix=f"simon-test-{run_id}-many")
    await bus.start()
    try:
        players = [f"player-{n}" for n in range(300)]  # a connection pool of 100 would refuse
        await asyncio.gather(
            *(
                bus.publish_standings([StandingUpdate(DAY, 2, p, f'"{p}"', "moved")])
                for p in players
            )
        )
        assert sorted(await bus.standings_entries(DAY, 2)) == sorted(f'"{p}"' for p in players)
    finally:
        await bus.close()


def batch_of_updates(suits: int) -> list[StandingUpdate]:
    """ann recorded, bo recorded then taken out, ann again: in order, one call."""
    return [
        StandingUpdate(DAY, suits, "ann", '{"player":"ann","moves":1}', "ann-1"),
        StandingUpdate(DAY, suits, "bo", '{"player":"bo"}', "bo-joined"),
        StandingUpdate(DAY, suits, "bo", None, "bo-left"),
        StandingUpdate(DAY, suits, "ann", '{"player":"ann","moves":2}', "ann-2"),
    ]


async def test_in_process_bus_takes_a_batch_in_order() -> None:
    bus = InProcessBus()
    got: list[str] = []
    bus.set_standings_handler(lambda day, suits, frame: got.append(frame))
    await bus.join_standings(DAY, 1)
    await bus.publish_standings(batch_of_updates(1))
    assert got == ["ann-1", "bo-joined", "bo-left", "ann-2"]
    assert await bus.standings_entries(DAY, 1) == ['{"player":"ann","moves":2}']


async def test_redis_bus_takes_a_batch_in_order_and_keeps_the_standings_expiring(
    redis_url: str, run_id: str
) -> None:
    prefix = f"simon-test-{run_id}-batch-{uuid.uuid4().hex[:6]}"
    async with two_nodes(redis_url, prefix) as nodes:
        await nodes.a.join_standings(DAY, 2)
        await nodes.b.publish_standings(batch_of_updates(2))
        frames = [await asyncio.wait_for(nodes.got.get(), 5) for _ in range(4)]
        assert frames == ["ann-1", "bo-joined", "bo-left", "ann-2"]
        assert await nodes.a.standings_entries(DAY, 2) == ['{"player":"ann","moves":2}']
        ttl = await nodes.admin.ttl(f"{prefix}:race:{DAY.isoformat()}:2:players")
        assert 0 < ttl <= KEEP_SECONDS  # the standings still expire


async def test_redis_bus_sends_each_race_of_a_batch_as_one_message(
    redis_url: str, run_id: str
) -> None:
    """Two races' events interleaved in one batch: each race's events arrive in order (one
    race's after the other's: races are independent), and Redis carried one message per
    race (its events a line each), not one per event."""
    prefix = f"simon-test-{run_id}-lines-{uuid.uuid4().hex[:6]}"
    async with two_nodes(redis_url, prefix) as nodes:
        channels = [f"{prefix}:race:{DAY.isoformat()}:{suits}" for suits in (1, 2)]
        watcher = nodes.admin.pubsub(ignore_subscribe_messages=True)
        await watcher.subscribe(*channels)
        for suits in (1, 2):
            await nodes.a.join_standings(DAY, suits)
        mixed = [
            update
            for pair in zip(batch_of_updates(1), batch_of_updates(2), strict=True)
            for update in pair
        ]
        await nodes.b.publish_standings(mixed)
        frames = [await asyncio.wait_for(nodes.got.get(), 5) for _ in mixed]
        assert frames == ["ann-1", "bo-joined", "bo-left", "ann-2"] * 2
        messages: list[dict[str, Any]] = []
        deadline = asyncio.get_running_loop().time() + 5
        while len(messages) < 2:  # None: nothing yet, or a subscription's confirmation
            assert asyncio.get_running_loop().time() < deadline, "fewer messages than races"
            message = await watcher.get_message(timeout=0.5)
            if message is not None:
                messages.append(message)
        assert [m["data"].decode().split("\n") for m in messages] == [
            ["ann-1", "bo-joined", "bo-left", "ann-2"]
        ] * 2
        assert {m["channel"].decode() for m in messages} == set(channels)
        assert await watcher.get_message(timeout=0.3) is None  # no more than one each
        for suits in (1, 2):
            assert await nodes.a.standings_entries(DAY, suits) == ['{"player":"ann","moves":2}']
        await watcher.aclose()  # type: ignore[no-untyped-call,unused-ignore]  # untyped before redis-py 8.2


async def test_a_days_counts_are_one_for_every_node_and_expire(redis_url: str, run_id: str) -> None:
    prefix = f"simon-test-{run_id}-count-{uuid.uuid4().hex[:6]}"
    async with two_nodes(redis_url, prefix) as nodes:
        assert await nodes.a.count_for_day(DAY, "reviews:7") == 1
        assert await nodes.b.count_for_day(DAY, "reviews:7") == 2  # the other node's too
        assert await nodes.a.count_for_day(date(2031, 5, 18), "reviews:7") == 1
        assert await nodes.b.count_for_day(DAY, "reviews:8") == 1
        key = f"{prefix}:count:{DAY.isoformat()}:reviews:7"
        assert 0 < await nodes.admin.ttl(key) <= COUNT_SECONDS
        await nodes.admin.delete(*[k async for k in nodes.admin.scan_iter(f"{prefix}:count:*")])


async def test_a_count_with_redis_out_is_the_bus_being_unavailable() -> None:
    # what the reviews' own count stands in for (server/play/after/review.py)
    bus = RedisBus(f"redis://127.0.0.1:{free_port()}/0", connect_timeout=0.5, timeout=0.5)
    try:
        with pytest.raises(BusUnavailable):
            await bus.count_for_day(DAY, "reviews:1")
    finally:
        await bus.close()
