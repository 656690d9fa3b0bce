"""Opening the database: the engine (with SQLite's pragmas) and the sessions the store uses.

PostgreSQL (asyncpg) is the record in production; an SQLite file (aiosqlite) serves a single
embedded server. A session (or, for the hot reads, a Core connection) per operation, so
concurrent tasks never share one::

    database = Database(create_engine("sqlite+aiosqlite:///simon.sqlite3"))
    async with database.reads() as session: ...          # one read, autocommit
    async with database.sessions.begin() as session: ...  # a transaction
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine


def create_engine(
    url: str,
    *,
    connect_timeout: float | None = None,
    statement_timeout: float | None = None,
    busy_timeout: float = 10.0,
    **options: Any,
) -> AsyncEngine:
    """An async engine for ``url``; on SQLite, the file's folder is made and every connection
    enforces foreign keys and waits up to ``busy_timeout`` seconds for a busy database
    instead of failing. On PostgreSQL a pooled connection is checked before use, so one
    closed by an outage is replaced rather than failing the first request after it;
    ``connect_timeout`` bounds a connection's opening (and the wait for a pooled one) and
    ``statement_timeout`` every statement, on both sides (asyncpg's ``command_timeout``, the
    server's ``statement_timeout``): a database that hangs fails requests, not holds them."""
    parsed = sa.make_url(url)
    if parsed.get_backend_name() != "sqlite":
        timed: dict[str, Any] = {"pool_pre_ping": True}
        connect_args: dict[str, Any] = {}
        if connect_timeout is not None:
            connect_args["timeout"] = connect_timeout
            timed["pool_timeout"] = connect_timeout
        if statement_timeout is not None:
            connect_args["command_timeout"] = statement_timeout
            milliseconds = str(max(1, round(statement_timeout * 1000)))
            connect_args["server_settings"] = {"statement_timeout": milliseconds}
        if connect_args:
            timed["connect_args"] = connect_args
        return create_async_engine(url, **{**timed, **options})
    database = parsed.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_async_engine(url, **options)

    @sa.event.listens_for(engine.sync_engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={max(0, round(busy_timeout * 1000))}")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    return engine


class Database:
    """One engine and the ways the store talks through it."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        #: Sessions for writes and for streams: ``sessions.begin()`` is one transaction.
        self.sessions = async_sessionmaker(engine, expire_on_commit=False)
        # Single reads need no transaction: autocommit spares the BEGIN and ROLLBACK round trips.
        self.read_engine = engine.execution_options(isolation_level="AUTOCOMMIT")
        #: Sessions for single reads, in autocommit.
        self.reads = async_sessionmaker(self.read_engine, expire_on_commit=False)
        #: ``insert(table)`` in the engine's dialect: both have ``on_conflict_do_nothing``.
        self.insert = postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert

    async def rows(self, query: sa.Executable, params: dict[str, Any]) -> list[sa.Row[Any]]:
        """Run one prebuilt Core query in autocommit (the hot reads: no ORM objects)."""
        async with self.read_engine.connect() as connection:
            return list(await connection.execute(query, params))

    async def dispose(self) -> None:
        """Close the pooled connections (an engine cannot move to another event loop)."""
        await self.engine.dispose()
