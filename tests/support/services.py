"""Where the real services are, and small helpers around them for the durability tests."""

from __future__ import annotations

import os
from typing import Final

import redis.asyncio as redis

#: The PostgreSQL the tests (and benchmarks) make their databases on, as an admin DSN, and
#: the Redis they use: ``SIMON_TEST_POSTGRES`` and ``SIMON_TEST_REDIS``, by default the
#: machine's own on 127.0.0.1 (``scripts/test`` sets both to instances of its own).
POSTGRES_ADMIN_DSN: Final = os.environ.get(
    "SIMON_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL: Final = os.environ.get("SIMON_TEST_REDIS", "redis://127.0.0.1:6379/0")


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


__all__ = ["POSTGRES_ADMIN_DSN", "REDIS_URL", "delete_redis_prefix"]
