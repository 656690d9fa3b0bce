"""The store: players, daily deals, games and their action log, behind one object.

:class:`Store` is what the layers above use (:class:`server.store.api.PlayStore` lists what
the play layer needs of it, as the union of narrow protocols, one per job). Its methods are
those of its parts (:mod:`server.store.parts`), one mixin per protocol, which check their
callers' arguments and answer players, deals and games themselves; they hand leaderboard
pages and ranks to :class:`Leaderboard`, screenings and reviews to :class:`FairPlayRecords`.
The store itself opens and closes what they share. Every error it raises is a
:class:`~server.store.errors.StoreError`: a driver's failure leaves it as
:class:`~server.store.errors.StoreUnavailable` (see :mod:`server.store.boundary`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import redis.asyncio as redis
from sqlalchemy.ext.asyncio import AsyncEngine

from server.breaker import OPEN_SECONDS
from server.names import look_key
from server.store.accounts import CredentialPart, ExportPart
from server.store.action_log import DEFAULT_COMMIT_TIMEOUT, DEFAULT_WINDOW, ActionLog, open_writer
from server.store.boundary import store_boundary
from server.store.database import DEFAULT_SYNCHRONOUS, Database, Synchronous, create_engine
from server.store.games import AfterDayRecords, FairPlayRecords, GameRecords
from server.store.leaderboard import Leaderboard
from server.store.lease import leases_for
from server.store.migrate import upgrade
from server.store.parts import (
    AfterDayPart,
    BoardPart,
    DealPart,
    FairPlayPart,
    GamePart,
    PlayerPart,
)
from server.store.ranks import LocalRankCache, RankCache, RedisRankCache


@store_boundary
class Store(
    PlayerPart,
    CredentialPart,
    ExportPart,
    DealPart,
    GamePart,
    BoardPart,
    FairPlayPart,
    AfterDayPart,
):
    """Everything the server keeps. Open with :meth:`open`, close with :meth:`close`; its
    methods are its parts' (:mod:`server.store.parts`)."""

    def __init__(self, engine: AsyncEngine, ranks: RankCache, log: ActionLog) -> None:
        self.engine = engine
        self.ranks = ranks
        #: Where every accepted action goes before it is answered (see action_log).
        self.log = log
        self._database = Database(engine)
        self._leaderboard = Leaderboard(self._database, ranks)
        self._games = GameRecords(self._database)
        self._fair_play = FairPlayRecords(self._database)
        self._after = AfterDayRecords(self._database)
        #: Work one node does at a time, for all that share this database.
        self.leases = leases_for(engine)
        #: A Redis client to close with the store (``open(..., owns_redis=True)``).
        self._redis: redis.Redis | None = None

    @classmethod
    async def open(
        cls,
        url: str,
        *,
        redis: redis.Redis | None = None,
        redis_prefix: str = "simon",
        migrate: bool = True,
        commit_window: float = DEFAULT_WINDOW,
        commit_timeout: float = DEFAULT_COMMIT_TIMEOUT,
        owns_redis: bool = False,
        timeouts: dict[str, float] | None = None,
        breaker_seconds: float = OPEN_SECONDS,
        monotonic: Callable[[], float] | None = None,
        sqlite_synchronous: Synchronous = DEFAULT_SYNCHRONOUS,
    ) -> Store:
        """Connect to the database at ``url`` (``postgresql+asyncpg://`` or
        ``sqlite+aiosqlite:///``), bring its schema to the newest migration when ``migrate``,
        and keep ranks in Redis sorted sets when ``redis`` is given, else in this process.
        Actions are group-committed every ``commit_window`` seconds (see action_log).
        ``timeouts`` go to :func:`create_engine` (``connect_timeout``, ...); migrations run
        on a connection of their own without them (building an index may take long).
        Redis is skipped for ``breaker_seconds`` after it fails (on the ``monotonic``
        clock; see :mod:`server.store.ranks`).
        ``sqlite_synchronous`` is how durably an SQLite file commits (see
        :data:`~server.store.database.Synchronous`); PostgreSQL's is the server's own."""
        engine = create_engine(url, synchronous=sqlite_synchronous, **(timeouts or {}))
        try:
            if migrate:
                await upgrade(url if timeouts else engine)
        except BaseException:
            await engine.dispose()
            raise
        ranks: RankCache = (
            RedisRankCache(
                redis, redis_prefix, breaker_seconds=breaker_seconds, monotonic=monotonic
            )
            if redis is not None
            else LocalRankCache()
        )
        writer = open_writer(url, timeout=commit_timeout, synchronous=sqlite_synchronous)
        log = ActionLog(writer, window=commit_window)
        # the confusables' data (a fifth of a second to read), off the loop, before the first
        # registration needs it
        await asyncio.to_thread(look_key, "")
        store = cls(engine, ranks, log)
        store._redis = redis if owns_redis else None
        return store

    async def close(self) -> None:
        """Write the pending actions, then dispose of the engine; the Redis client stays the
        caller's to close unless the store was opened owning it."""
        await self.log.close()
        await self._database.dispose()
        if self._redis is not None:
            await self._redis.aclose()
