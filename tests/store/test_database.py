"""Opening the database: the engine's per-backend setup and the sessions the store uses."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from server.store.database import Database, create_engine
from tests.conftest import Backend
from tests.store.conftest import fresh_database
from tests.support.proxy import TcpProxy, proxied_database_url, target_of


async def test_sqlite_makes_its_folder_and_sets_its_pragmas_on_every_connection(
    tmp_path: Path,
) -> None:
    path = tmp_path / "not" / "yet" / "there.sqlite3"
    database = Database(create_engine(f"sqlite+aiosqlite:///{path}"))
    try:
        for _ in range(2):  # a second connection gets them too, not only the first
            async with database.engine.connect() as connection:
                pragmas = {
                    name: (await connection.exec_driver_sql(f"PRAGMA {name}")).scalar()
                    for name in ("foreign_keys", "busy_timeout", "journal_mode", "synchronous")
                }
                await connection.invalidate()  # the next connect opens a new one
            assert pragmas == {
                "foreign_keys": 1,
                "busy_timeout": 10000,
                "journal_mode": "wal",
                "synchronous": 2,  # FULL: a commit survives a power cut
            }
        assert path.exists()
    finally:
        await database.dispose()


async def test_sqlite_syncs_only_at_checkpoints_when_told_normal(tmp_path: Path) -> None:
    path = tmp_path / "normal.sqlite3"
    database = Database(create_engine(f"sqlite+aiosqlite:///{path}", synchronous="normal"))
    try:
        async with database.engine.connect() as connection:
            mode = (await connection.exec_driver_sql("PRAGMA synchronous")).scalar()
        assert mode == 1  # NORMAL: a commit survives a killed process, not a power cut
    finally:
        await database.dispose()
    with pytest.raises(ValueError, match="normal or full"):
        create_engine(f"sqlite+aiosqlite:///{path}", synchronous="off")  # type: ignore[arg-type]


async def _loop_turns(turns: int = 20) -> None:
    """Let the event loop run a few times (no time passes): enough for asyncpg to see the
    reset of a connection the proxy closed on this host."""
    for _ in range(turns):
        await asyncio.sleep(0)


@asynccontextmanager
async def _database_behind_a_proxy(postgres_url: str) -> AsyncIterator[tuple[Database, TcpProxy]]:
    async with TcpProxy(*target_of(postgres_url, 5432)) as proxy:
        database = Database(create_engine(proxied_database_url(postgres_url, proxy)))
        try:
            yield database, proxy
        finally:
            await database.dispose()


async def test_a_pooled_connection_an_outage_closed_is_replaced_at_checkout(
    postgres_url: str,
) -> None:
    async with _database_behind_a_proxy(postgres_url) as (database, proxy):
        assert (await database.rows(sa.text("SELECT 1"), {}))[0][0] == 1
        assert proxy.accepted == 1
        proxy.cut()  # the pooled connection is reset
        await _loop_turns()
        proxy.restore()
        # a write in a transaction (not tried again by anyone) gets a new connection
        async with database.sessions.begin() as session:
            assert await session.scalar(sa.text("SELECT 2")) == 2
        assert proxy.accepted == 2
        assert (await database.rows(sa.text("SELECT 3"), {}))[0][0] == 3
        assert proxy.accepted == 2  # and it is pooled in turn


async def test_a_read_on_a_connection_found_dead_as_it_is_sent_is_tried_again(
    postgres_url: str,
) -> None:
    async with _database_behind_a_proxy(postgres_url) as (database, proxy):
        assert (await database.rows(sa.text("SELECT 1"), {}))[0][0] == 1
        proxy.cut()
        proxy.restore()  # at once: the loop has not seen the reset when the read is sent
        assert (await database.rows(sa.text("SELECT 2"), {}))[0][0] == 2
        assert proxy.accepted == 2


async def test_a_read_is_tried_again_once_only(postgres_url: str) -> None:
    async with _database_behind_a_proxy(postgres_url) as (database, proxy):
        assert (await database.rows(sa.text("SELECT 1"), {}))[0][0] == 1
        proxy.cut()  # and it stays down: the second try cannot connect either
        with pytest.raises((sa.exc.DBAPIError, OSError)):
            await database.rows(sa.text("SELECT 2"), {})
        assert proxy.accepted == 2  # the first connection, then one try (the proxy cuts it)


async def test_single_reads_run_in_autocommit_and_writes_in_transactions(
    backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> None:
    async with fresh_database(backend, tmp_path_factory.mktemp("database")) as url:
        database = Database(create_engine(url))
        try:
            options = database.read_engine.get_execution_options()
            # SQLite's driver begins no transaction for a read: the setting would only cost
            assert options.get("isolation_level") == (
                None if backend.name == "embedded" else "AUTOCOMMIT"
            )
            async with database.sessions.begin() as session:
                await session.execute(sa.text("CREATE TABLE numbers (n INTEGER)"))
                await session.execute(sa.text("INSERT INTO numbers VALUES (1), (2)"))
            (total,) = await database.rows(sa.text("SELECT sum(n) FROM numbers"), {})
            assert total[0] == 3
            async with database.reads() as session:
                assert await session.scalar(sa.text("SELECT count(*) FROM numbers")) == 2
                raw = (await (await session.connection()).get_raw_connection()).driver_connection
                assert raw is not None
                open_transaction = (
                    raw.in_transaction if backend.name == "embedded" else raw.is_in_transaction()
                )
                assert not open_transaction  # a read holds nothing open (nor a WAL snapshot)
            expected = sqlite.insert if backend.name == "embedded" else postgresql.insert
            assert database.insert is expected
        finally:
            await database.dispose()
