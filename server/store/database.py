"""Opening the database: the engine (with SQLite's pragmas) and the sessions the store uses;
and the thread an embedded server's durable commit waits on the disk in (:class:`CommitThread`).

PostgreSQL (asyncpg) is the record in production; an SQLite file (aiosqlite) serves a single
embedded server. A session (or, for the hot reads, a Core connection) per operation, so
concurrent tasks never share one::

    database = Database(create_engine("sqlite+aiosqlite:///simon.sqlite3"))
    async with database.reads() as session: ...          # one read, in no transaction
    async with database.sessions.begin() as session: ...  # a transaction
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import queue
import threading
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine

log = logging.getLogger(__name__)

#: SQLite's ``synchronous`` in WAL mode, for every connection of an embedded server:
#: ``full`` syncs the write-ahead log at each commit, so a commit survives a power cut or an
#: operating system crash; ``normal`` syncs it only at checkpoints, so a commit survives a
#: killed process but a power cut may take the commits since the last checkpoint.
Synchronous = Literal["normal", "full"]
DEFAULT_SYNCHRONOUS: Synchronous = "full"


def create_engine(
    url: str,
    *,
    connect_timeout: float | None = None,
    statement_timeout: float | None = None,
    busy_timeout: float = 10.0,
    synchronous: Synchronous = DEFAULT_SYNCHRONOUS,
    **options: Any,
) -> AsyncEngine:
    """An async engine for ``url``; on SQLite, the file's folder is made and every connection
    enforces foreign keys, waits up to ``busy_timeout`` seconds for a busy database
    instead of failing, and commits as durably as ``synchronous`` says (WAL mode). On
    PostgreSQL a pooled connection an outage closed is replaced at checkout
    (:func:`_replace_closed`), and :meth:`Database.rows` tries a read once more on a new
    connection if its own turns out dead; ``connect_timeout`` bounds a
    connection's opening (and the wait for a pooled one) and ``statement_timeout`` every
    statement, on both sides (asyncpg's ``command_timeout``, the server's
    ``statement_timeout``): a database that hangs fails requests, not holds them."""
    parsed = sa.make_url(url)
    if parsed.get_backend_name() != "sqlite":
        timed: dict[str, Any] = {}
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
        engine = create_async_engine(url, **{**timed, **options})
        sa.event.listen(engine.sync_engine, "checkout", _replace_closed)
        return engine
    if synchronous not in ("normal", "full"):
        raise ValueError(f"synchronous is normal or full, not {synchronous!r}")
    database = parsed.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        private_files(Path(database).expanduser())
    engine = create_async_engine(url, **options)

    @sa.event.listens_for(engine.sync_engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={max(0, round(busy_timeout * 1000))}")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous.upper()}")
        cursor.close()

    return engine


def _replace_closed(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """Refuse a pooled connection the database or the network closed, so the pool opens a
    new one. asyncpg knows it once the event loop has seen the reset; it costs nothing,
    where SQLAlchemy's ``pool_pre_ping`` spends three round trips on every checkout
    (BEGIN, a query, ROLLBACK: 0.25 ms, a quarter of a leaderboard page)."""
    if dbapi_connection.driver_connection.is_closed():
        raise sa.exc.DisconnectionError("the pooled connection was closed")


#: What SQLite keeps beside a database file (its write-ahead log and shared memory).
SQLITE_COMPANIONS = ("-wal", "-shm")


def private_folder(folder: Path) -> None:
    """Make ``folder`` (and its parents) if need be, readable by this user alone (0700): the
    data folder holds today's deals and the solver's lines."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)


def private_files(database: Path) -> None:
    """An SQLite database's files readable by this user alone (0600), made so before
    SQLite opens them: a new database file is created empty with that mode, and SQLite
    gives its log and shared memory files the database's mode. Its folder is made 0700
    if it is made here."""
    if not database.parent.exists():
        private_folder(database.parent)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(database, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    for path in (database, *(Path(f"{database}{end}") for end in SQLITE_COMPANIONS)):
        try:
            if path.exists() and path.stat().st_mode & 0o077:
                path.chmod(0o600)
        except OSError as error:  # another user's file: SQLite may still open it
            log.warning("could not make %s private: %s", path, error)


class Database:
    """One engine and the ways the store talks through it."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        #: Sessions for writes and for streams: ``sessions.begin()`` is one transaction.
        self.sessions = async_sessionmaker(engine, expire_on_commit=False)
        # Single reads need no transaction: on PostgreSQL autocommit spares the BEGIN and
        # ROLLBACK round trips. SQLite's driver begins none for a read anyway, and there the
        # setting would cost three more trips to aiosqlite's thread (a pragma on each way).
        self.read_engine = (
            engine
            if engine.dialect.name == "sqlite"
            else engine.execution_options(isolation_level="AUTOCOMMIT")
        )
        #: Sessions for single reads, in no transaction.
        self.reads = async_sessionmaker(self.read_engine, expire_on_commit=False)
        #: ``insert(table)`` in the engine's dialect: both have ``on_conflict_do_nothing`` and
        #: ``on_conflict_do_update``.
        self.insert = postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert

    async def rows(self, query: sa.Executable, params: dict[str, Any]) -> list[sa.Row[Any]]:
        """Run one prebuilt Core query in no transaction (the hot reads: no ORM objects).

        A connection found dead as the query is sent (closed by an outage just before,
        which the event loop has not seen yet) is invalidated with the rest of the pool,
        and the read, which changes nothing, is tried once more on a new connection."""
        try:
            return await self._read(query, params)
        except sa.exc.DBAPIError as error:
            if not error.connection_invalidated:
                raise
        return await self._read(query, params)

    async def first(self, query: sa.Executable, params: dict[str, Any]) -> sa.Row[Any] | None:
        """The first row of :meth:`rows`, or None (a read by key)."""
        found = await self.rows(query, params)
        return found[0] if found else None

    async def _read(self, query: sa.Executable, params: dict[str, Any]) -> list[sa.Row[Any]]:
        async with self.read_engine.connect() as connection:
            return list(await connection.execute(query, params))

    async def dispose(self) -> None:
        """Close the pooled connections (an engine cannot move to another event loop)."""
        await self.engine.dispose()


#: A call for the commit thread: what to run, and the loop and future of its caller.
_Call = tuple[Callable[[], None], asyncio.AbstractEventLoop, "asyncio.Future[None]"]


class CommitThread:
    """One thread that runs calls (the durable ``COMMIT``) one at a time, each awaited as a
    future of the caller's loop: what ``run_in_executor`` on an executor of one thread did,
    with less on the way (it chained a second future to the first, took the executor's lock
    and semaphore, and looked the running loop up, on Python 3.11 a ``getpid()`` system
    call, at every commit). As with the executor, a call whose future is cancelled before
    its turn does not run, one under way runs to its end, and the thread, started at the
    first call, ends once its owner is closed or collected; it is a daemon, so a writer
    never closed does not hold the interpreter's exit.
    """

    def __init__(self, name: str) -> None:
        self._name = name
        self._calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: Ends the thread (after the calls queued): at ``close``, or once this is collected.
        self._end: Callable[[], object] | None = None

    def run(self, call: Callable[[], None]) -> asyncio.Future[None]:
        """Queue ``call``: the future is done (or failed with its error) once it ran."""
        loop = self._loop
        if loop is None or loop.is_closed():
            loop = self._loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        if self._thread is None:
            calls = self._calls
            self._thread = threading.Thread(
                target=_run_calls, args=(calls,), name=self._name, daemon=True
            )
            self._thread.start()
            self._end = weakref.finalize(self, calls.put, None)
        self._calls.put((call, loop, done))
        return done

    def close(self) -> None:
        """Let the calls queued finish, then end the thread."""
        if self._thread is not None and self._end is not None:
            self._end()
            self._thread.join()
            self._thread = self._end = None


def _run_calls(calls: queue.SimpleQueue[_Call | None]) -> None:
    """The commit thread: each call in turn, until None."""
    while (item := calls.get()) is not None:
        call, loop, done = item
        if done.cancelled():  # its caller is gone: not begun, as an executor's
            continue
        error: BaseException | None = None
        try:
            call()
        except BaseException as raised:
            error = raised
        with contextlib.suppress(RuntimeError):  # its loop closed meanwhile
            loop.call_soon_threadsafe(_settle, done, error)
        del item, call, done, error  # nothing held while it waits for the next


def _settle(done: asyncio.Future[None], error: BaseException | None) -> None:
    """Tell a :class:`CommitThread` call's caller how it went (on the caller's loop)."""
    if done.cancelled():
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)
