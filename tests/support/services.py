"""Small helpers around the real services the durability tests use."""

from __future__ import annotations

import redis.asyncio as redis


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


__all__ = ["delete_redis_prefix"]
