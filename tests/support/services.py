"""Where the real services are, and small helpers around them: databases of a test's own,
and Redis keys deleted as if Redis had lost them."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Final

import redis.asyncio as redis

#: The PostgreSQL the tests (and benchmarks) make their databases on, as an admin DSN, and
#: the Redis they use: ``SIMON_TEST_POSTGRES`` and ``SIMON_TEST_REDIS``, by default the
#: machine's own on 127.0.0.1 (``scripts/test`` sets both to instances of its own).
POSTGRES_ADMIN_DSN: Final = os.environ.get(
    "SIMON_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL: Final = os.environ.get("SIMON_TEST_REDIS", "redis://127.0.0.1:6379/0")


async def admin_execute(statement: str) -> None:
    """Run one statement as the PostgreSQL admin (``CREATE DATABASE``, ``DROP DATABASE``)."""
    import asyncpg

    admin = await asyncpg.connect(POSTGRES_ADMIN_DSN, timeout=10)
    try:
        await admin.execute(statement)
    finally:
        await admin.close()


def database_beside(database_url: str, name: str) -> str:
    """The URL of database ``name`` on the PostgreSQL server of ``database_url``."""
    return f"{database_url.rsplit('/', 1)[0]}/{name}"


@contextmanager
def postgres_database_of_its_own(database_url: str) -> Iterator[str]:
    """A fresh PostgreSQL database on the server of ``database_url``, dropped afterwards;
    for synchronous fixtures (the statements run on an event loop in a thread of their own,
    whether or not one runs here)."""
    name = f"simon_test_own_{uuid.uuid4().hex[:10]}"

    def admin(statement: str) -> None:
        with ThreadPoolExecutor(1) as thread:
            thread.submit(asyncio.run, admin_execute(statement)).result()

    admin(f'CREATE DATABASE "{name}"')
    try:
        yield database_beside(database_url, name)
    finally:
        admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def delete_redis_prefix(redis_url: str, prefix: str) -> int:
    """Delete every key of a server's Redis prefix (as if Redis had lost its data);
    returns how many were deleted."""
    client = redis.Redis.from_url(redis_url)
    try:
        keys = [key async for key in client.scan_iter(match=f"{prefix}:*", count=1000)]
        if keys:
            await client.delete(*keys)
        return len(keys)
    finally:
        await client.aclose()


__all__ = [
    "POSTGRES_ADMIN_DSN",
    "REDIS_URL",
    "admin_execute",
    "database_beside",
    "delete_redis_prefix",
    "postgres_database_of_its_own",
]
