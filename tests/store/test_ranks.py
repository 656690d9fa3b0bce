"""The leaderboard order's encodings (members, cursors), the rank cache's warming, and both
of its implementations."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta

import pytest
import redis.asyncio as redis
from hypothesis import given
from hypothesis import strategies as st

from server.store.leaderboard import decode_cursor, encode_cursor
from server.store.order import ResultKey
from server.store.ranks import COMPLETE, LocalRankCache, RankCache, RedisRankCache
from tests.conftest import Backend

MOMENT = datetime(2026, 1, 1, tzinfo=UTC)

keys = st.builds(
    ResultKey,
    won=st.booleans(),
    removed=st.integers(min_value=0, max_value=4),
    score=st.integers(min_value=-(2**31) + 1, max_value=2**31 - 1),  # -score fits an int4 too
    elapsed=st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False),
    finished_at=st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.just(UTC)
    ),
    id=st.text(alphabet="0123456789abcdefABCDEF-_", min_size=1, max_size=64),
)


def _by_the_rules(key: ResultKey) -> tuple[object, ...]:
    """The order as docs/protocol.md states it, written out here independently of ORDER."""
    if key.won:
        return (0, -key.score, key.elapsed, key.finished_at, key.id)
    return (1, -key.removed, -key.score, key.elapsed, key.finished_at, key.id)


def _win(key: ResultKey) -> ResultKey:
    """A won game has removed all four runs."""
    return dataclasses.replace(key, removed=4) if key.won else key


@given(st.lists(keys.map(_win), min_size=2, max_size=20))
def test_sort_keys_and_members_sort_like_the_stated_order(rows: list[ResultKey]) -> None:
    expected = sorted(rows, key=_by_the_rules)
    assert [_by_the_rules(k) for k in sorted(rows, key=ResultKey.sort_key)] == [
        _by_the_rules(k) for k in expected
    ]
    assert [_by_the_rules(k) for k in sorted(rows, key=ResultKey.member)] == [
        _by_the_rules(k) for k in expected
    ]


def test_wins_first_then_runs_removed_then_score() -> None:
    def key(won: bool, removed: int, score: int, elapsed: float, name: str) -> ResultKey:
        return ResultKey(won, removed, score, elapsed, MOMENT, name)

    rows = [
        key(False, 3, 700, 10.0, "three-runs"),
        key(True, 4, 800, 90.0, "slow-win"),
        key(False, 1, 720, 5.0, "one-run-high-score"),
        key(True, 4, 800, 60.0, "fast-win"),
        key(False, 3, 750, 20.0, "three-runs-better"),
        key(True, 4, 810, 300.0, "best-win"),
    ]
    order = ["best-win", "fast-win", "slow-win", "three-runs-better", "three-runs"]
    order.append("one-run-high-score")
    assert [k.id for k in sorted(rows, key=ResultKey.sort_key)] == order
    assert [k.id for k in sorted(rows, key=ResultKey.member)] == order


@given(keys)
def test_cursors_and_members_round_trip(key: ResultKey) -> None:
    assert decode_cursor(encode_cursor(key)) == key
    assert ResultKey.from_member(key.member()) == key
    assert len(encode_cursor(key)) <= 256  # the protocol's limit on a cursor
    assert key.member().endswith(key.id) and len(key.member()) == 56 + len(key.id)


def test_negative_zero_elapsed_is_zero_and_bad_values_are_refused() -> None:
    key = ResultKey(True, 4, 851, 0.0, MOMENT, "g")
    assert dataclasses.replace(key, elapsed=-0.0).member() == key.member()
    bad = [
        *(dataclasses.replace(key, elapsed=e) for e in (-1.0, float("nan"), float("inf"))),
        dataclasses.replace(key, score=2**31),
        dataclasses.replace(key, id=""),
        dataclasses.replace(key, finished_at=datetime(2026, 1, 1)),  # naive
    ]
    for wrong in bad:
        with pytest.raises(ValueError):
            wrong.member()
    for text in ("", key.member()[:-1], key.member().upper(), "x" * 60):
        with pytest.raises(ValueError):
            ResultKey.from_member(text)


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

    async def load() -> AsyncIterator[list[str]]:
        nonlocal loads
        loads += 1
        await asyncio.sleep(0.05)  # slow enough for the readers to overlap
        yield members[:6]
        yield members[6:]

    board = (date(2031, 1, 1), 1, False, False)
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
    board = (date(2031, 1, 2), 1, False, False)

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

    humans, bots = (date(2031, 1, 3), 1, False, False), (date(2031, 1, 3), 1, True, False)
    await cache.position(humans, COMPLETE, load)
    await cache.position(bots, COMPLETE, load)
    await cache.add(bots, members[0])
    await cache.add(humans, members[1])
    await cache.add(humans, members[2])
    assert await cache.total(humans, load) == 2
    assert await cache.total(bots, load) == 1
    assert await cache.position(humans, members[0], load) == (0, 2, False)
    newcomers = (date(2031, 1, 3), 1, False, True)
    await cache.position(newcomers, COMPLETE, load)
    await cache.add(newcomers, members[0])
    assert await cache.total(newcomers, load) == 1 and await cache.total(humans, load) == 2
    if isinstance(cache, RedisRankCache):
        assert len({cache.key(humans), cache.key(bots), cache.key(newcomers)}) == 3
