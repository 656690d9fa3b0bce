"""The rank cache's member encoding, its warming, and both of its implementations."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta

import pytest
import redis.asyncio as redis
from hypothesis import given
from hypothesis import strategies as st

from server.store.ranks import (
    COMPLETE,
    LocalRankCache,
    RankCache,
    RedisRankCache,
    rank_member,
)
from server.store.store import decode_cursor, encode_cursor
from tests.conftest import Backend

results = st.tuples(
    st.integers(min_value=-(2**31) + 1, max_value=2**31 - 1),  # -score fits an int4 too
    st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False),
    st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
    ),
    st.text(alphabet="0123456789abcdefABCDEF-_", min_size=1, max_size=64),
)


@given(st.lists(results, min_size=2, max_size=20))
def test_members_sort_like_leaderboard_rows(rows: list[tuple[int, float, datetime, str]]) -> None:
    by_row = sorted(rows, key=lambda r: (-r[0], r[1], r[2], r[3]))
    by_member = sorted(rows, key=lambda r: rank_member(*r))
    assert [(-r[0], r[1], r[2], r[3]) for r in by_member] == [
        (-r[0], r[1], r[2], r[3]) for r in by_row
    ]


@given(results)
def test_cursors_and_members_round_trip(row: tuple[int, float, datetime, str]) -> None:
    score, elapsed, finished_at, game_id = row
    key = (-score, elapsed, finished_at, game_id)
    assert decode_cursor(encode_cursor(key)) == key
    assert len(encode_cursor(key)) <= 256  # the protocol's limit on a cursor
    assert rank_member(*row).endswith(game_id) and len(rank_member(*row)) == 48 + len(game_id)


def test_negative_zero_elapsed_is_zero_and_bad_values_are_refused() -> None:
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    assert rank_member(1, -0.0, moment, "g") == rank_member(1, 0.0, moment, "g")
    for elapsed in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError):
            rank_member(1, elapsed, moment, "g")


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
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    return [rank_member(900 - n, 1.0, moment + timedelta(seconds=n), f"g{n}") for n in range(count)]


async def test_one_warmer_loads_and_concurrent_readers_wait_for_it(cache: RankCache) -> None:
    members = _members(10)
    loads = 0

    async def load() -> AsyncIterator[list[str]]:
        nonlocal loads
        loads += 1
        await asyncio.sleep(0.05)  # slow enough for the readers to overlap
        yield members[:6]
        yield members[6:]

    board = (date(2031, 1, 1), 1)
    found = await asyncio.gather(*(cache.position(board, member, load) for member in members))
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
    board = (date(2031, 1, 2), 1)

    async def load() -> AsyncIterator[list[str]]:
        yield members[:5]  # the database's snapshot misses the last three
        for member in members[5:]:
            await cache.add(board, member)  # written meanwhile, added as committed
        yield []

    await cache.add(board, members[6])  # added before anyone warmed: kept too
    assert await cache.position(board, members[7], load) == (7, 8, True)
    assert await cache.position(board, members[0], load) == (0, 8, True)
    new = rank_member(2000, 0.0, datetime(2026, 1, 1, tzinfo=UTC), "best")
    await cache.add(board, new)
    assert await cache.position(board, new, load) == (0, 9, True)
