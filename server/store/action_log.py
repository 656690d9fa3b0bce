"""The action log: every accepted action of every game, group-committed before its reply.

A game applies an action in memory, then awaits the future :meth:`ActionLog.append` gives,
and the session answers only once it is done: nothing is acknowledged that is not in the
database of record. Appends that arrive within one short window (or while the previous
commit is under way) are written in one transaction, so the cost of a commit is shared by
every action in it::

    log = ActionLog(writer, window=0.005)
    await log.append([LogEntry("g1", 7, "3-7x2", now_ms)])        # committed when it is done
    await log.append([LogEntry("g1", 8, "resign", now_ms)], result)  # the games row too

``(game_id, seq)`` is the log's primary key, so a writer whose copy of a game is stale (it
appends a seq another node already wrote) fails with :class:`StaleGame` and never forks the
game; one stale append in a batch does not fail the others. A database that does not answer
fails the batch with :class:`StoreUnavailable`, and the callers undo those actions.

Writers speak to the driver directly (asyncpg; the standard library's sqlite3): through
SQLAlchemy, a commit costs several times the CPU, and the move path has little to spare.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import asyncpg
import sqlalchemy as sa

from server.kinds import Result
from server.store.database import DEFAULT_SYNCHRONOUS, CommitThread, Synchronous
from server.store.errors import InvalidRequest, StaleGame, StoreUnavailable
from server.store.records import LogEntry

log = logging.getLogger(__name__)

#: How long the first action of a batch waits for others before the batch is written.
DEFAULT_WINDOW = 0.005
#: A commit that takes longer than this fails as unavailable (its actions are not applied).
DEFAULT_COMMIT_TIMEOUT = 5.0


class LogWriter(Protocol):
    """Writes one batch in one transaction: all of it, or nothing and an error."""

    async def write(self, entries: Sequence[LogEntry], results: Sequence[GameEnd]) -> None:
        """Raise :class:`StaleGame` if a (game, seq) exists or a result's game is already
        finished, :class:`StoreUnavailable` if the database failed."""
        ...

    async def close(self) -> None: ...


class Waits(Protocol):
    """The time the group commit's window is measured on (the server's ``Clock`` fits)."""

    def monotonic(self) -> float: ...

    async def sleep(self, delay: float) -> None: ...


class RealTime:
    """The window in real time, as the server runs it: it groups real writes, whatever day
    a test's clock shows."""

    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, delay: float) -> None:
        await asyncio.sleep(delay)


@dataclass(frozen=True, slots=True)
class GameEnd:
    """A game's result, written to its ``games`` row with its last log entry."""

    game_id: str
    result: Result


@dataclass(slots=True)
class _Append:
    entries: Sequence[LogEntry]
    end: GameEnd | None
    done: asyncio.Future[None]


class ActionLog:
    """The group committer in front of a :class:`LogWriter`."""

    def __init__(
        self, writer: LogWriter, *, window: float = DEFAULT_WINDOW, clock: Waits | None = None
    ) -> None:
        self._writer = writer
        self._window = window
        self._clock = clock or RealTime()
        self._pending: list[_Append] = []
        self._first_at = 0.0
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop of the first append
        self._closed = False
        #: Batches committed and actions in them, for the benchmark and metrics.
        self.batches = 0
        self.appended = 0
        #: Called after each commit with its seconds and whether it succeeded (metrics).
        self.on_commit: Callable[[float, bool], None] | None = None
        #: Why the last commit failed, until one succeeds (None: the last one did). The
        #: database may answer a probe and still take no write (its disk full): ``/healthz``
        #: reads this.
        self.failing: str | None = None
        #: Actions refused since commits began to fail.
        self.refused = 0

    def append(
        self, entries: Sequence[LogEntry], result: Result | None = None
    ) -> asyncio.Future[None]:
        """Write the actions of one game (and its result, if it ended): the future is done
        once they are committed.

        It fails with :class:`StaleGame` or :class:`StoreUnavailable`; then nothing was
        written. A future, not a coroutine: awaited straight from the game, it saves a frame
        on every action's way down and back up.
        """
        # Looked up once: on Python 3.11 each lookup of the running loop is a getpid()
        # system call, a microsecond or two on a virtual machine.
        loop = self._loop or self._first_loop()
        done: asyncio.Future[None] = loop.create_future()
        if not entries:
            done.set_exception(InvalidRequest("nothing to append"))
            return done
        if self._closed:
            done.set_exception(StoreUnavailable("the action log is closed"))
            return done
        pending = self._pending
        end = None if result is None else GameEnd(entries[0].game_id, result)
        pending.append(_Append(entries, end, done))
        if len(pending) == 1:  # the first of a batch: its window starts, the writer wakes
            self._first_at = self._clock.monotonic()
            if self._task is None or self._task.done():
                self._task = asyncio.create_task(self._run(), name="action-log")
            self._wake.set()
        return done

    def _first_loop(self) -> asyncio.AbstractEventLoop:
        self._loop = asyncio.get_running_loop()
        return self._loop

    async def close(self) -> None:
        """Write what is pending, then close the writer."""
        self._closed = True
        self._wake.set()
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
        await self._writer.close()

    async def _run(self) -> None:
        while True:
            if not self._pending:
                if self._closed:
                    return
                self._wake.clear()
                await self._wake.wait()
                continue
            # The oldest pending action waits out the window (it may have waited already,
            # behind the previous commit); actions that arrive meanwhile join the batch.
            wait = self._first_at + self._window - self._clock.monotonic()
            if wait > 0 and not self._closed:
                await self._clock.sleep(wait)
            batch, self._pending = self._pending, []
            try:
                await self._commit(batch)
            except Exception as error:  # never leave a caller waiting forever
                log.exception("the action log failed to commit a batch")
                self._failed(batch, StoreUnavailable(f"the action log failed: {error}"))

    async def _commit(self, batch: list[_Append]) -> None:
        started = time.perf_counter()
        try:
            await self._writer.write(_entries(batch), _ends(batch))
        except StoreUnavailable as error:
            if self.on_commit is not None:
                self.on_commit(time.perf_counter() - started, False)
            self._failed(batch, error)
            return
        except StaleGame:
            # Some append in the batch is stale: write each apart, in order, so that only
            # the stale ones fail.
            await self._commit_each(batch)
            return
        self.batches += 1
        self.appended += len(batch)
        if self.on_commit is not None:
            self.on_commit(time.perf_counter() - started, True)
        self._committed()
        _succeed(batch)

    async def _commit_each(self, batch: list[_Append]) -> None:
        for append in batch:
            try:
                await self._writer.write(append.entries, _ends([append]))
            except StaleGame as error:
                _fail([append], error)
            except StoreUnavailable as error:
                self._failed([append], error)
            else:
                self.batches += 1
                self.appended += 1
                self._committed()
                _succeed([append])

    def _failed(self, batch: list[_Append], error: StoreUnavailable) -> None:
        """Refuse ``batch`` for ``error``: commits fail until one succeeds (the callers log
        their refusals)."""
        self.failing = str(error) or type(error).__name__
        self.refused += len(batch)
        _fail(batch, error)

    def _committed(self) -> None:
        if self.failing is not None:
            log.info(
                "the action log commits again (%d actions refused while it could not)",
                self.refused,
            )
            self.failing = None
            self.refused = 0


def _entries(batch: list[_Append]) -> list[LogEntry]:
    return [entry for append in batch for entry in append.entries]


def _ends(batch: list[_Append]) -> list[GameEnd]:
    return [append.end for append in batch if append.end is not None]


def _succeed(batch: list[_Append]) -> None:
    for append in batch:
        if not append.done.done():
            append.done.set_result(None)


def _fail(batch: list[_Append], error: Exception) -> None:
    for append in batch:
        if not append.done.done():
            append.done.set_exception(error)


# -- PostgreSQL ----------------------------------------------------------------------------

# One statement for a whole batch: arrays in, rows out (about 3 us a row on top of the
# statement's own cost, against one statement per row).
_PG_APPEND = """
INSERT INTO game_actions (game_id, seq, action, at_ms, request_id, request)
SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::bigint[], $5::text[], $6::text[])
"""
_PG_FINISH = """
UPDATE games SET won = r.won, resigned = r.resigned, moves = r.moves, score = r.score,
    removed = r.removed, elapsed = r.elapsed, finished_at = r.finished_at
FROM unnest($1::text[], $2::bool[], $3::bool[], $4::int[], $5::int[], $6::smallint[],
            $7::float8[], $8::timestamptz[])
    AS r(id, won, resigned, moves, score, removed, elapsed, finished_at)
WHERE games.id = r.id AND games.finished_at IS NULL
RETURNING games.id
"""


def _columns(entries: Sequence[LogEntry]) -> list[tuple[Any, ...]]:
    """The entries' six columns (a LogEntry is a row in column order), in one pass."""
    return list(zip(*entries, strict=True))


def _result_columns(ends: Sequence[GameEnd]) -> list[list[Any]]:
    return [
        [end.game_id for end in ends],
        [end.result.won for end in ends],
        [end.result.resigned for end in ends],
        [end.result.moves for end in ends],
        [end.result.score for end in ends],
        [end.result.removed for end in ends],
        [float(end.result.elapsed) + 0.0 for end in ends],  # -0.0 would sort apart from 0.0
        [end.result.finished_at for end in ends],
    ]


class PostgresLogWriter:
    """Writes batches on one asyncpg connection of its own, reconnecting after a failure."""

    def __init__(self, url: str, *, timeout: float = DEFAULT_COMMIT_TIMEOUT) -> None:
        parsed = sa.make_url(url).set(drivername="postgresql")
        self._dsn = parsed.render_as_string(hide_password=False)
        self._timeout = timeout
        self._connection: Any = None

    async def _connect(self) -> Any:
        if self._connection is None or self._connection.is_closed():
            self._connection = await asyncpg.connect(
                self._dsn,
                timeout=self._timeout,
                command_timeout=self._timeout,
                server_settings={"statement_timeout": str(max(1, round(self._timeout * 1000)))},
            )
        return self._connection

    async def write(self, entries: Sequence[LogEntry], results: Sequence[GameEnd]) -> None:
        try:
            connection = await self._connect()
            if not results:  # one statement: atomic without a transaction of its own
                await connection.execute(_PG_APPEND, *_columns(entries))
                return
            async with connection.transaction():
                await connection.execute(_PG_APPEND, *_columns(entries))
                finished = await connection.fetch(_PG_FINISH, *_result_columns(results))
                if len(finished) != len(results):
                    raise StaleGame("a game in the batch is already finished")
        except asyncpg.UniqueViolationError as error:
            raise StaleGame(str(error)) from None
        except StaleGame:
            raise
        except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
            await self._drop()
            raise StoreUnavailable(f"the database did not take the actions: {error}") from None

    async def _drop(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.terminate()

    async def close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(connection.close(), self._timeout)


# -- SQLite --------------------------------------------------------------------------------

_SQLITE_APPEND = (
    "INSERT INTO game_actions (game_id, seq, action, at_ms, request_id, request) "
    "VALUES (?, ?, ?, ?, ?, ?)"
)
_SQLITE_FINISH = (
    "UPDATE games SET won = ?, resigned = ?, moves = ?, score = ?, removed = ?, elapsed = ?, "
    "finished_at = ? WHERE id = ? AND finished_at IS NULL"
)


def sqlite_time(moment: datetime) -> str:
    """A datetime as SQLAlchemy stores it in SQLite (in UTC, see ``models.UTCDateTime``)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


class SqliteLogWriter:
    """Writes batches on the event loop's own thread, on one sqlite3 connection.

    A batch's statements cost well under a millisecond and never wait on the disk, so they
    run inline. In a thread of its own the batch would wait for the interpreter lock at
    every step of the statement while the loop is busy: measured at 10,000 players, that
    made a commit take tens of milliseconds. Three things would block the loop, so they
    happen elsewhere: another connection's write transaction (the lock is tried without
    waiting, and the batch tried again shortly); with ``synchronous="full"`` (the default)
    the ``COMMIT`` itself, which syncs the write-ahead log so that the batch survives a
    power cut (run in a worker thread of its own, where SQLite lets go of the interpreter
    lock while it waits on the disk; one sync per batch, however many actions it holds);
    and checkpoints, which sync the database file (run every ``CHECKPOINT_EVERY`` seconds
    in another worker thread on a connection of their own). With ``synchronous="normal"``
    the commit is inline and syncs nothing: it survives a killed process, not a power cut.
    """

    #: A checkpoint copies each page changed since the last one once, however often it
    #: changed: at 2,000 moves a second over 1,000 games, every 5 s rather than every second
    #: cuts its cost from about 6 to 2 us a move, for a WAL of some 60 MB (reused each time).
    CHECKPOINT_EVERY = 5.0
    #: The longest a checkpoint holds writers off waiting for readers to leave the log.
    RESTART_WAIT = 0.1
    _BUSY_RETRY = 0.002

    def __init__(
        self,
        path: str | Path,
        *,
        timeout: float = DEFAULT_COMMIT_TIMEOUT,
        synchronous: Synchronous = DEFAULT_SYNCHRONOUS,
    ) -> None:
        if synchronous not in ("normal", "full"):
            raise ValueError(f"synchronous is normal or full, not {synchronous!r}")
        self._path = str(path)
        self._timeout = timeout
        self._synchronous = synchronous
        self._db: sqlite3.Connection | None = None
        #: Where a durable commit waits on the disk, off the loop (None: commits inline).
        self._commits = CommitThread("wal-commit") if synchronous == "full" else None
        self._checkpoints = ThreadPoolExecutor(1, thread_name_prefix="wal-checkpoint")
        self._checkpoint: asyncio.Future[None] | None = None
        self._checkpointed_at = 0.0
        self._checkpointer: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            # its COMMIT may run in the commit thread, never while the loop uses it
            db = sqlite3.connect(
                self._path, timeout=0, isolation_level=None, check_same_thread=False
            )
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(f"PRAGMA synchronous={self._synchronous.upper()}")
            db.execute("PRAGMA wal_autocheckpoint=0")  # see _checkpoint_soon
            self._db = db
        return self._db

    def _write(self, entries: Sequence[LogEntry], results: Sequence[GameEnd]) -> None:
        db = self._connect()
        db.execute("BEGIN IMMEDIATE")  # fails at once if another connection is writing
        try:
            db.executemany(_SQLITE_APPEND, entries)  # a LogEntry is the row, in column order
            for end in results:
                r = end.result
                finished = db.execute(
                    _SQLITE_FINISH,
                    (
                        r.won,
                        r.resigned,
                        r.moves,
                        r.score,
                        r.removed,
                        float(r.elapsed) + 0.0,
                        sqlite_time(r.finished_at),
                        end.game_id,
                    ),
                )
                if finished.rowcount != 1:
                    raise StaleGame(f"game {end.game_id!r} is already finished")
        except BaseException:
            if db.in_transaction:  # SQLite rolls back by itself after some errors (disk full)
                db.execute("ROLLBACK")
            raise
        if self._commits is None:
            db.execute("COMMIT")

    def _commit(self) -> None:
        """The durable ``COMMIT`` of the open transaction (in the commit thread)."""
        db = self._connect()
        try:
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    async def write(self, entries: Sequence[LogEntry], results: Sequence[GameEnd]) -> None:
        deadline: float | None = None  # set at the first busy try: nearly every write has none
        while True:
            try:
                self._write(entries, results)
                if self._commits is not None:
                    await self._commits.run(self._commit)
            except sqlite3.IntegrityError as error:
                if "UNIQUE" in str(error):
                    raise StaleGame(str(error)) from None
                raise StoreUnavailable(f"the database refused the actions: {error}") from None
            except sqlite3.OperationalError as error:
                busy = "locked" in str(error) or "busy" in str(error)
                if deadline is None:
                    deadline = time.monotonic() + self._timeout
                if not busy or time.monotonic() > deadline:
                    raise StoreUnavailable(
                        f"the database did not take the actions: {error}"
                    ) from None
                await asyncio.sleep(self._BUSY_RETRY)  # another writer holds the lock briefly
                continue
            except sqlite3.Error as error:
                raise StoreUnavailable(f"the database did not take the actions: {error}") from None
            break
        self._checkpoint_soon()

    def _checkpoint_soon(self) -> None:
        """Copy the WAL into the database now and then, off the loop (a checkpoint fsyncs)."""
        if self._checkpoint is not None and not self._checkpoint.done():
            return
        now = time.monotonic()
        if now - self._checkpointed_at < self.CHECKPOINT_EVERY:
            return
        self._checkpointed_at = now
        self._checkpoint = asyncio.get_running_loop().run_in_executor(
            self._checkpoints, self._run_checkpoint
        )
        self._checkpoint.add_done_callback(_log_checkpoint_failure)

    def _run_checkpoint(self) -> None:
        if self._checkpointer is None:
            # its busy timeout bounds how long RESTART holds writers off, waiting for readers
            self._checkpointer = sqlite3.connect(
                self._path,
                timeout=self.RESTART_WAIT,
                isolation_level=None,
                check_same_thread=False,
            )
        # The bulk of the copy, beside the writes, which go on meanwhile. The log starts over
        # from its beginning only once every frame in it is copied, which with writes never
        # pausing never happens: it would grow without end (at 2,000 moves a second, some
        # 10 MB a second, each new page zeroed by the file system). So the few frames written
        # during the copy are copied with writers held off (they retry), and the next write
        # begins the log again. Busy (a reader is slow to let go), it is tried next time.
        self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")
        self._checkpointer.execute("PRAGMA wal_checkpoint(RESTART)")

    async def close(self) -> None:
        if self._checkpoint is not None:
            await asyncio.gather(self._checkpoint, return_exceptions=True)
        if self._checkpointer is not None:
            self._checkpointer.close()
        self._checkpoints.shutdown(wait=True)
        if self._commits is not None:
            self._commits.close()
        if self._db is not None:
            self._db.close()
            self._db = None


def _log_checkpoint_failure(future: asyncio.Future[None]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("a WAL checkpoint failed: %s", future.exception())


def open_writer(
    url: str,
    *,
    timeout: float = DEFAULT_COMMIT_TIMEOUT,
    synchronous: Synchronous = DEFAULT_SYNCHRONOUS,
) -> LogWriter:
    """The writer for a database URL (``postgresql+asyncpg://`` or ``sqlite+aiosqlite:///``);
    ``synchronous`` is SQLite's (see :class:`SqliteLogWriter`)."""
    parsed = sa.make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            raise InvalidRequest("the action log needs an SQLite file, not an in-memory database")
        return SqliteLogWriter(parsed.database, timeout=timeout, synchronous=synchronous)
    return PostgresLogWriter(url, timeout=timeout)
