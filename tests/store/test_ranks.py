"""Cursors and members round trip, the rank cache's warming, and both of its
implementations (the order itself: test_order)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta

import pytest
import redis.asyncio as redis
from hypothesis import given

from server.kinds import DayBoard
from server.store.leaderboard import decode_cursor, encode_cursor
from server.store.order import ResultKey
from server.store.ranks import COMPLETE, LocalRankCache, RankCache, RedisRankCache
from tests.conftest import Backend
from tests.store.test_order import keys

MOMENT = datetime(2026, 1, 1, tzinfo=UTC)


@given(keys)
def test_cursors_and_members_round_trip(key: ResultKey) -> None:
    assert decode_cursor(encode_cursor(key)) == key
    assert ResultKey.from_member(key.member()) == key
    assert len(encode_cursor(key)) <= 256  # the protocol's limit on a cursor
    assert key.member().endswith(key.id) and len(key.member()) == 56 + len(key.id)


@pytest.fixture
async def cache(backend: Backend) -> AsyncIterator[RankCache]:
    """The backend's cache: in-process when embedded, Redis sorted sets with the services."""
    if backend.redis_url is None:
        yield LocalRankCache()
        return
    client = redis.Redis.from_url(backend.redis_url)
    prefix = f"{backend.redis_prefix}:ranks-{uuid.uuid4().hex[:8]}"
    try:
        yield RedisRankCache(client, prefix, warm_wait_seconds=2.0, batch=3)
    finally:
        keys = [key async for key in client.scan_iter(match=f"{prefix}:*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()


def _members(count: int) -> list[str]:
    return [
        ResultKey(True, 4, 900 - n, 1.0, MOMENT + timedelta(seconds=n), f"g{n}").member()
        for n in range(count)
    ]


async def test_one_warmer_loads_and_concurrent_readers_wait_for_it(cache: RankCache) -> None:
    members = _members(10)
    loads = 0

    release = asyncio.Event()

    async def load() -> AsyncIterator[list[str]]:
        nonlocal loads
        loads += 1
        await release.wait()  # the warming holds until the readers have come to the cache
        yield members[:6]
        yield members[6:]

    board = DayBoard(date(2031, 1, 1), 1)
    readers = asyncio.gather(*(cache.position(board, member, load) for member in members))
    for _ in range(20):
        await asyncio.sleep(0)  # every in-process reader reaches the cache in a few turns
    if isinstance(cache, RedisRankCache):
        await asyncio.sleep(0.05)  # its readers' round trips to Redis take real time
    release.set()
    found = await readers
    assert found == [(n, 10, True) for n in range(10)]
    assert loads == 1
    assert await cache.total(board, load) == 10
    assert await cache.position(board, members[3], load, inclusive=True) == (4, 10, True)
    between = members[3] + "0"  # sorts right after members[3]; not a result
    assert await cache.position(board, between, load) == (4, 10, False)
    assert await cache.position(board, between, load, inclusive=True) == (4, 10, False)
    assert (await cache.position(board, COMPLETE, load))[:2] == (10, 10)


async def test_results_added_while_warming_are_kept(cache: RankCache) -> None:
    members = _members(8)
    board = DayBoard(date(2031, 1, 2), 1)

    async def load() -> AsyncIterator[list[str]]:
        yield members[:5]  # the database's snapshot misses the last three
        for member in members[5:]:
            await cache.add(board, member)  # written meanwhile, added as committed
        yield []

    await cache.add(board, members[6])  # added before anyone warmed: kept too
    assert await cache.position(board, members[7], load) == (7, 8, True)
    assert await cache.position(board, members[0], load) == (0, 8, True)
    new = ResultKey(True, 4, 2000, 0.0, MOMENT, "best").member()
    await cache.add(board, new)
    assert await cache.position(board, new, load) == (0, 9, True)


async def test_the_boards_of_a_day_are_apart(cache: RankCache) -> None:
    members = _members(3)

    async def load() -> AsyncIterator[list[str]]:
        yield []

    humans, bots = DayBoard(date(2031, 1, 3), 1), DayBoard(date(2031, 1, 3), 1, "bots")
    await cache.position(humans, COMPLETE, load)
    await cache.position(bots, COMPLETE, load)
    await cache.add(bots, members[0])
    await cache.add(humans, members[1])
    await cache.add(humans, members[2])
    assert await cache.total(humans, load) == 2
    assert await cache.total(bots, load) == 1
    assert await cache.position(humans, members[0], load) == (0, 2, False)
    newcomers = DayBoard(date(2031, 1, 3), 1, "new")
    await cache.position(newcomers, COMPLETE, load)
    await cache.add(newcomers, members[0])
    assert await cache.total(newcomers, load) == 1 and await cache.total(humans, load) == 2
    if isinstance(cache, RedisRankCache):
        # the keys as they were named before a board was one value (sets already in Redis)
        keys = [cache.key(board).rsplit(":ranks:", 1)[1] for board in (humans, bots, newcomers)]
        assert keys == ["2031-01-03:1:humans", "2031-01-03:1:bots", "2031-01-03:1:new"]
