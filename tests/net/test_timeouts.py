"""A backend that hangs (PostgreSQL or Redis frozen behind a proxy the test owns: the
proxy keeps every connection open and forwards nothing) costs a request its timeout, not
forever: the request answers ``unavailable`` (or, for Redis, is served without it) within
the configured timeouts, and ``/healthz`` says which service is down and answers 503
while the database is. Elapsed times are measured, never waited for."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import Any, TypeVar

import sqlalchemy as sa

from tests.conftest import Backend
from tests.support.proxy import TcpProxy, proxied_database_url, proxied_redis_url, target_of
from tests.support.servers import (
    Client,
    fresh_clock,
    get_json,
    server_settings,
    serving,
    store_of,
    unique_name,
)

T = TypeVar("T")

#: The timeouts the tests set (seconds), and the slack for the rest of the work.
TIMEOUT = 1.0
SLACK = 2.5
#: Health back after an outage within this, or it is hung (seconds).
HUNG = 10 * TIMEOUT + SLACK
TIMEOUTS: dict[str, Any] = {
    "database_connect_timeout_seconds": TIMEOUT,
    "database_statement_timeout_seconds": TIMEOUT,
    "commit_timeout_seconds": TIMEOUT,
    "redis_connect_timeout_seconds": TIMEOUT,
    "redis_socket_timeout_seconds": TIMEOUT,
    "health_timeout_seconds": TIMEOUT,
}


async def timed(call: Awaitable[T]) -> tuple[T, float]:
    started = time.monotonic()
    result = await call
    return result, time.monotonic() - started


async def test_a_frozen_postgresql_answers_unavailable_within_the_timeouts(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    async with TcpProxy(*target_of(postgres_url, 5432)) as database:
        backend = Backend(
            "services",
            proxied_database_url(postgres_url, database),
            redis_url,
            f"simon-test-{run_id}",
        )
        async with (
            serving(server_settings(backend, **TIMEOUTS), clock=fresh_clock()) as server,
            Client.connect(server.url) as client,
        ):
            await client.request({"type": "register", "name": unique_name("frozen")})
            started = await client.request({"type": "start", "mode": "practice", "suits": 1})
            game = started["state"]["game"]
            status, health = await get_json(server.http_url + "/healthz")
            assert status == 200 and health["database"]["ok"], health
            assert health["database"]["latency_ms"] > 0 and health["redis"]["ok"], health

            database.freeze()
            try:
                # A read: one pooled connection's check plus a new connection at most.
                page, elapsed = await timed(
                    client.request({"type": "leaderboard", "limit": 5}, timeout=30)
                )
                assert page["type"] == "error" and page["code"] == "unavailable", page
                assert elapsed < 2 * TIMEOUT + SLACK, elapsed
                # An action: the action log's commit.
                moved, elapsed = await timed(
                    client.request({"type": "auto", "column": 1, "id": "a1"}, timeout=30)
                )
                assert moved["type"] == "error" and moved["code"] in (
                    "unavailable",
                    "illegal-move",
                ), moved
                assert elapsed < 2 * TIMEOUT + SLACK, elapsed
                (status, health), elapsed = await timed(get_json(server.http_url + "/healthz"))
                assert status == 503 and not health["ok"], health
                assert not health["database"]["ok"] and "error" in health["database"], health
                assert health["redis"]["ok"], health  # Redis is fine
                assert elapsed < TIMEOUT + SLACK, elapsed
            finally:
                database.restore()
            resumed = await client.request({"type": "resume", "game": game}, timeout=30)
            # A commit cut off by the timeout may still land once the database answers again
            # (its bytes were on their way): the resend with the same id tells which.
            assert resumed["type"] == "state" and resumed["state"]["seq"] in (0, 1), resumed
            if moved["code"] == "unavailable":
                again = await client.request({"type": "auto", "column": 1, "id": "a1"})
                landed = resumed["state"]["seq"] == 1
                assert again["type"] in ("moved", "error"), again
                if again["type"] == "moved":
                    assert again["seq"] == 1, again  # played once, whether it landed or not
                after = await client.request({"type": "resume", "game": game}, timeout=30)
                assert after["state"]["seq"] == (1 if again["type"] == "moved" or landed else 0)
            # A probe still hung from the outage runs out its timeouts before the next one
            # starts (the pooled connection's ping, a new connection, its statement): health
            # is back within a few timeouts, not hung. A deadline against a hang, not a speed
            # (loaded CI runs took 4.5, 5.5 and 7.0 s, each past the tighter bound of then).
            back = time.monotonic()
            while (status := (await get_json(server.http_url + "/healthz"))[0]) != 200:
                assert time.monotonic() - back < HUNG, status
                await asyncio.sleep(0.05)


async def test_a_frozen_redis_costs_its_timeout_and_health_says_so(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    async with TcpProxy(*target_of(redis_url, 6379)) as cache:
        backend = Backend(
            "services", postgres_url, proxied_redis_url(redis_url, cache), f"simon-test-{run_id}"
        )
        async with (
            serving(server_settings(backend, **TIMEOUTS), clock=fresh_clock()) as server,
            Client.connect(server.url) as client,
        ):
            name = unique_name("cache")
            await client.request({"type": "register", "name": name})
            cache.freeze()
            try:
                rank, elapsed = await timed(client.request({"type": "rank"}, timeout=30))
                assert rank["type"] in ("rank", "error"), rank
                assert rank.get("code") != "internal", rank
                assert elapsed < 2 * TIMEOUT + SLACK, elapsed
                (status, health), elapsed = await timed(get_json(server.http_url + "/healthz"))
                assert status == 200 and health["ok"], health  # play goes on without Redis
                assert health["database"]["ok"] and not health["redis"]["ok"], health
                assert elapsed < TIMEOUT + SLACK, elapsed
            finally:
                cache.restore()


async def test_the_database_timeouts_are_set_on_every_connection(backend: Backend) -> None:
    settings = server_settings(
        backend, database_statement_timeout_seconds=1.5, sqlite_busy_timeout_seconds=7
    )
    async with serving(settings) as server, store_of(server).engine.connect() as connection:
        if backend.name == "embedded":
            busy = (await connection.execute(sa.text("PRAGMA busy_timeout"))).scalar()
            assert busy == 7000
        else:  # PostgreSQL's own statement_timeout, beside asyncpg's
            shown = (await connection.execute(sa.text("SHOW statement_timeout"))).scalar()
            assert shown == "1500ms"
