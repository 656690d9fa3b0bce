"""Store fixtures: every test module gets a database of its own (a fresh SQLite file, or a
fresh PostgreSQL database), so no test sees another module's rows."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import redis.asyncio as redis

from server.store import Store
from tests.conftest import Backend
from tests.support.services import admin_execute, database_beside


@asynccontextmanager
async def fresh_database(backend: Backend, folder: Path) -> AsyncIterator[str]:
    """The URL of an empty database on the backend, removed afterwards."""
    label = uuid.uuid4().hex[:10]
    if backend.name == "embedded":
        yield f"sqlite+aiosqlite:///{folder / f'store-{label}.sqlite3'}"
        return
    name = f"simon_test_store_{label}"
    await admin_execute(f'CREATE DATABASE "{name}"')
    try:
        yield database_beside(backend.database_url, name)
    finally:
        await admin_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@asynccontextmanager
async def open_store(backend: Backend, url: str) -> AsyncIterator[Store]:
    """A store on ``url`` with the backend's rank cache (a key prefix of its own in Redis)."""
    client = redis.Redis.from_url(backend.redis_url) if backend.redis_url else None
    prefix = f"{backend.redis_prefix}:{uuid.uuid4().hex[:10]}"
    store = await Store.open(url, redis=client, redis_prefix=prefix)
    try:
        yield store
    finally:
        await store.close()
        if client is not None:
            keys = [key async for key in client.scan_iter(match=f"{prefix}:*")]
            if keys:
                await client.delete(*keys)
            await client.aclose()


@pytest.fixture(scope="module")
async def store(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Store]:
    """A store on a database of this module's own."""
    async with (
        fresh_database(backend, tmp_path_factory.mktemp("store")) as url,
        open_store(backend, url) as opened,
    ):
        yield opened
