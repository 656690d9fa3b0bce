"""The migrations: up, down and up again on both backends, and in step with the models."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from server.store import Store, migrate
from server.store.store import create_engine
from tests.conftest import Backend
from tests.store.conftest import fresh_database

TABLES = {"players", "daily_deals", "games"}


async def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            names = await connection.run_sync(lambda sync: sa.inspect(sync).get_table_names())
    finally:
        await engine.dispose()
    return set(names) - {"alembic_version"}


async def test_up_down_and_up_again(
    backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> None:
    async with fresh_database(backend, tmp_path_factory.mktemp("migrations")) as url:
        assert await migrate.current(url) is None
        await migrate.upgrade(url)
        assert await migrate.current(url) == "0001"
        assert await _tables(url) == TABLES
        await migrate.downgrade(url, "base")
        assert await migrate.current(url) is None
        assert await _tables(url) == set()
        await migrate.upgrade(url, "head")
        assert await _tables(url) == TABLES
        assert await migrate.check(url) == []


async def test_check_reports_what_the_migrations_lack(
    backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> None:
    async with fresh_database(backend, tmp_path_factory.mktemp("migrations")) as url:
        store = await Store.open(url)  # migrates
        try:
            assert await migrate.check(store.engine) == []
            async with store.engine.begin() as connection:
                await connection.execute(sa.text("DROP INDEX ix_games_player_finished"))
            diffs = await migrate.check(store.engine)
        finally:
            await store.close()
        assert len(diffs) == 1 and "ix_games_player_finished" in diffs[0]


async def test_opening_twice_migrates_once(
    backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> None:
    async with fresh_database(backend, tmp_path_factory.mktemp("migrations")) as url:
        for _ in range(2):
            store = await Store.open(url)
            await store.close()
        assert await migrate.current(url) == "0001"
        unmigrated = await Store.open(url, migrate=False)
        await unmigrated.close()


async def test_foreign_keys_hold_after_migrating_sqlite(tmp_path: Path) -> None:
    """Migrations run with SQLite's foreign keys off; the pooled connection gets them back."""
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'fk.sqlite3'}")
    try:
        async with store.engine.connect() as connection:
            assert (await connection.exec_driver_sql("PRAGMA foreign_keys")).scalar() == 1
    finally:
        await store.close()


async def test_the_sqlite_file_folder_is_made(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'new' / 'folder' / 'simon.sqlite3'}"
    store = await Store.open(url)
    try:
        player = await store.create_player(name="Ann", token_hash="t", now=datetime.now(UTC))
        assert await store.player_by_name("ANN") == player
    finally:
        await store.close()
    assert (tmp_path / "new" / "folder" / "simon.sqlite3").is_file()
