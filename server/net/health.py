"""``/healthz``: whether this node's services answer, and how fast.

::

    health = Health(store, redis=client, timeout=2.0)
    report = await health.check()
    # {"database": {"ok": True, "latency_ms": 0.6}, "redis": {"ok": True, "latency_ms": 0.2}}

The database counts as down also while the action log's commits fail (a full disk, say:
the database answers a probe but takes no write), with the commit's error, until one
succeeds.

Each probe runs as a task of its own and is never cancelled: a probe that does not
answer within ``timeout`` counts as down, and goes on until the driver's own timeouts end
it (no second probe of that service is started meanwhile, so a hung service costs one
connection, not one per health check).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as redis
import sqlalchemy as sa

from server.store import Store

Probe = Callable[[], Awaitable[None]]


class Health:
    def __init__(self, store: Store, *, redis: redis.Redis | None, timeout: float) -> None:
        self.timeout = timeout
        self._log = store.log
        self._probes: dict[str, Probe] = {"database": lambda: _database(store)}
        if redis is not None:
            client = redis
            self._probes["redis"] = lambda: _redis(client)
        self._running: dict[str, asyncio.Task[dict[str, Any]]] = {}

    async def check(self) -> dict[str, dict[str, Any]]:
        """Each service's state: ``{"ok": bool, "latency_ms": float}`` (or ``"error"``)."""
        names = list(self._probes)
        reports = dict(
            zip(names, await asyncio.gather(*(self._check(name) for name in names)), strict=True)
        )
        failing = self._log.failing
        if failing is not None and reports["database"]["ok"]:
            reports["database"] = {"ok": False, "error": f"commits fail: {failing}"[:200]}
        return reports

    async def _check(self, name: str) -> dict[str, Any]:
        task = self._running.get(name)
        if task is None or task.done():
            task = self._running[name] = asyncio.create_task(_timed(self._probes[name]))
        done, _ = await asyncio.wait({task}, timeout=self.timeout)
        if not done:
            return {"ok": False, "error": f"no answer within {self.timeout:g} s"}
        return task.result()

    async def close(self) -> None:
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _timed(probe: Probe) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        await probe()
    except Exception as error:  # any failure means down; the report says which
        reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return {"ok": False, "error": f"{type(error).__name__}: {reason}"[:200]}
    return {"ok": True, "latency_ms": round((time.perf_counter() - started) * 1000, 3)}


async def _database(store: Store) -> None:
    async with store.engine.connect() as connection:
        await connection.execute(sa.text("SELECT 1"))


async def _redis(client: redis.Redis) -> None:
    await client.ping()


__all__ = ["Health"]
