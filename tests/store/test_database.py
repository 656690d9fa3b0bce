"""Opening the database: the engine's per-backend setup and the sessions the store uses."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from server.store.database import Database, create_engine
from tests.conftest import Backend
from tests.store.conftest import fresh_database


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
                "synchronous": 1,  # NORMAL: a commit survives a killed process
            }
        assert path.exists()
    finally:
        await database.dispose()


def test_postgresql_checks_a_pooled_connection_before_using_it() -> None:
    engine = create_engine("postgresql+asyncpg://postgres@127.0.0.1:5432/none")
    assert engine.sync_engine.pool._pre_ping  # replaces a connection an outage closed
    assert Database(engine).insert is postgresql.insert


def test_options_given_override_the_defaults() -> None:
    engine = create_engine("postgresql+asyncpg://postgres@127.0.0.1:5432/none", pool_pre_ping=False)
    assert not engine.sync_engine.pool._pre_ping


async def test_single_reads_run_in_autocommit_and_writes_in_transactions(
    backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> None:
    async with fresh_database(backend, tmp_path_factory.mktemp("database")) as url:
        database = Database(create_engine(url))
        try:
            assert database.read_engine.get_execution_options()["isolation_level"] == "AUTOCOMMIT"
            async with database.sessions.begin() as session:
                await session.execute(sa.text("CREATE TABLE numbers (n INTEGER)"))
                await session.execute(sa.text("INSERT INTO numbers VALUES (1), (2)"))
            (total,) = await database.rows(sa.text("SELECT sum(n) FROM numbers"), {})
            assert total[0] == 3
            async with database.reads() as session:
                assert await session.scalar(sa.text("SELECT count(*) FROM numbers")) == 2
            expected = sqlite.insert if backend.name == "embedded" else postgresql.insert
            assert database.insert is expected
        finally:
            await database.dispose()
