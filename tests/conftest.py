"""Shared fixtures: the real services the integration tests talk to.

Integration tests run twice: against the embedded defaults (an SQLite file, the
in-process bus) and against the real PostgreSQL and Redis (``SIMON_TEST_POSTGRES``, an
admin DSN, and ``SIMON_TEST_REDIS``; by default the machine's own on 127.0.0.1). Each
test process (each pytest-xdist worker too) makes a database of its own and a Redis key
prefix of its own, and removes them afterwards. A service that does not answer fails the
run: it never skips.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.services import POSTGRES_ADMIN_DSN, REDIS_URL


@dataclass(frozen=True)
class Backend:
    """Where a test's server keeps its data."""

    name: str  # "embedded" or "services"
    database_url: str
    redis_url: str | None
    redis_prefix: str


@pytest.fixture(autouse=True)
def _fresh_review_worker() -> Iterator[None]:
    """Each test starts with the review worker's deal tables empty, as a new worker does:
    the searches one test's reviews keep would answer another's (a 0 s budget finds them)."""
    from server.play.after.judging import _known_by_deal

    _known_by_deal.clear()
    yield
    _known_by_deal.clear()


@pytest.fixture(scope="session")
def run_id() -> str:
    return uuid.uuid4().hex[:12]


@pytest.fixture(scope="session")
async def postgres_url(run_id: str) -> AsyncIterator[str]:
    """A fresh PostgreSQL database for this test run, dropped at the end."""
    import asyncpg

    name = f"simon_test_{run_id}"
    try:
        admin = await asyncpg.connect(POSTGRES_ADMIN_DSN, timeout=10)
    except (OSError, asyncpg.PostgresError) as error:
        pytest.fail(f"PostgreSQL does not answer at {POSTGRES_ADMIN_DSN}: {error}", pytrace=False)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    base = POSTGRES_ADMIN_DSN.rsplit("/", 1)[0]
    yield f"{base.replace('postgresql://', 'postgresql+asyncpg://', 1)}/{name}"
    admin = await asyncpg.connect(POSTGRES_ADMIN_DSN, timeout=10)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@pytest.fixture(scope="session")
async def redis_url(run_id: str) -> AsyncIterator[str]:
    """The real Redis; this run's keys (prefix ``simon-test-<run>``) are deleted at the end."""
    import redis.asyncio as redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        await client.ping()
    except (OSError, redis.RedisError) as error:
        await client.aclose()
        pytest.fail(f"Redis does not answer at {REDIS_URL}: {error}", pytrace=False)
    yield REDIS_URL
    keys = [key async for key in client.scan_iter(match=f"simon-test-{run_id}*")]
    if keys:
        await client.delete(*keys)
    await client.aclose()


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tmp_path_factory.mktemp("simon-data")


@pytest.fixture(scope="session", params=["embedded", "services"])
def backend(request: pytest.FixtureRequest, data_dir: Path, run_id: str) -> Backend:
    """Each integration test runs against both the embedded defaults and the real services."""
    if request.param == "embedded":
        return Backend(
            name="embedded",
            database_url=f"sqlite+aiosqlite:///{data_dir / f'simon-{run_id}.sqlite3'}",
            redis_url=None,
            redis_prefix=f"simon-test-{run_id}",
        )
    return Backend(
        name="services",
        database_url=request.getfixturevalue("postgres_url"),
        redis_url=request.getfixturevalue("redis_url"),
        redis_prefix=f"simon-test-{run_id}",
    )
