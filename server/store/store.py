"""The store: players, daily deals, games and the daily leaderboards.

A session (or, for the leaderboard's hot reads, a Core connection) per operation, so
concurrent tasks never share one; single reads run in autocommit. PostgreSQL (asyncpg) is the
record in production; an SQLite file (aiosqlite) serves a single embedded server.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import dataclasses
import logging
import unicodedata
from collections.abc import AsyncIterator, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

import redis.asyncio as redis
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine

from server.store.action_log import DEFAULT_COMMIT_TIMEOUT, DEFAULT_WINDOW, ActionLog, open_writer
from server.store.models import (
    IS_DAILY,
    LEADERBOARD_KEY,
    NAME_LENGTH,
    ON_LEADERBOARD,
    DailyDeal,
    FairPlay,
    Game,
    GameAction,
    Player,
    ReviewAudit,
)
from server.store.order import ResultKey
from server.store.ranks import (
    BoardKey,
    CacheNotReady,
    Loader,
    LocalRankCache,
    RankCache,
    RedisRankCache,
)
from server.store.records import (
    CLEARED,
    CONFIRMED,
    HELD,
    OFF_THE_BOARD,
    PASSED,
    AttemptExists,
    DailyDealRecord,
    FairPlayRecord,
    GameLog,
    GameRecord,
    LeaderboardEntry,
    LeaderboardSlice,
    LogEntry,
    NameTaken,
    PlayerHistory,
    PlayerRecord,
    RankResult,
    Result,
    StoreError,
)

log = logging.getLogger(__name__)

MODES = ("daily", "practice")
#: Columns of one leaderboard row, in this order.
_ROW_COLUMNS = (
    Game.id,
    Game.score,
    Game.elapsed,
    Game.finished_at,
    Game.moves,
    Game.won,
    Game.removed,
    Game.bot,
    Player.name,
)
_GAME_COLUMNS = (Game, Player.name)


def name_key(name: str) -> str:
    """The form of a name that must be unique: ``Alice``, ``ALICE`` and ``alice`` collide."""
    return unicodedata.normalize("NFKC", name).casefold()


def encode_cursor(key: ResultKey) -> str:
    """An opaque, URL-safe cursor for the leaderboard row after which a page starts: the
    row's rank-cache member, which holds its whole key."""
    return base64.urlsafe_b64encode(key.member().encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> ResultKey:
    """The key in a cursor made by :func:`encode_cursor`; ValueError for anything else."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        key = ResultKey.from_member(base64.urlsafe_b64decode(padded.encode("ascii")).decode())
    except (ValueError, UnicodeError, binascii.Error, OverflowError) as error:
        raise ValueError(f"malformed leaderboard cursor: {cursor!r}") from error
    if not key.id.isprintable():  # never a game id; and PostgreSQL refuses a NUL
        raise ValueError(f"malformed leaderboard cursor: {cursor!r}")
    return key


def _key_params(key: ResultKey) -> dict[str, Any]:
    return {f"k{index}": value for index, value in enumerate(key.sort_key())}


# The leaderboard's statements, built once: bound parameters only, so every call reuses the
# compiled SQL and the connection's prepared statement.
_BOARD = (
    sa.select(*_ROW_COLUMNS)
    .join(Player, Player.id == Game.player_id)
    .where(
        ON_LEADERBOARD,
        Game.day == sa.bindparam("day", type_=sa.Date()),
        Game.suits == sa.bindparam("suits", type_=sa.SmallInteger()),
        Game.bot == sa.bindparam("bots", type_=sa.Boolean()),
    )
)
_ROW = sa.tuple_(*LEADERBOARD_KEY)
# A key's terms as parameters k0, k1, ...: the values of ResultKey.sort_key().
_KEY = sa.tuple_(
    *(sa.bindparam(f"k{index}", type_=term.type) for index, term in enumerate(LEADERBOARD_KEY))
)
# The limit is written into the SQL: a generic plan with an unknown limit expects 10% of the
# rows and joins them all (measured 4 ms instead of 1 ms for the rows around a player).
_LIMIT = sa.bindparam("limit", type_=sa.Integer(), literal_execute=True)
_PAGE = _BOARD.order_by(*LEADERBOARD_KEY).limit(_LIMIT)
_PAGE_AFTER = _BOARD.where(_ROW > _KEY).order_by(*LEADERBOARD_KEY).limit(_LIMIT)
_OWN = _BOARD.where(Game.player_id == sa.bindparam("player_id", type_=sa.Integer()))
# The rows just before and just after a key, in one round trip (in no particular order).
_AROUND = sa.union_all(
    sa.select(
        _BOARD.where(_ROW < _KEY)
        .order_by(*(c.desc() for c in LEADERBOARD_KEY))
        .limit(_LIMIT)
        .subquery()
    ),
    sa.select(_BOARD.where(_ROW > _KEY).order_by(*LEADERBOARD_KEY).limit(_LIMIT).subquery()),
)
_COUNT = (
    sa.select(sa.func.count())
    .select_from(Game)
    .where(
        ON_LEADERBOARD,
        Game.day == sa.bindparam("day", type_=sa.Date()),
        Game.suits == sa.bindparam("suits", type_=sa.SmallInteger()),
        Game.bot == sa.bindparam("bots", type_=sa.Boolean()),
    )
)
_COUNT_BEFORE = _COUNT.where(_ROW < _KEY)
_COUNT_UP_TO = _COUNT.where(_ROW <= _KEY)


def _player(row: Player) -> PlayerRecord:
    return PlayerRecord(
        id=row.id, name=row.name, created_at=row.created_at, bot=row.bot, flagged=row.flagged
    )


def _deal(row: DailyDeal) -> DailyDealRecord:
    solution = None if row.solution is None else tuple(row.solution.split())
    return DailyDealRecord(
        day=row.day, suits=row.suits, code=row.code, par=row.par, solution=solution
    )


def _fair_play(row: FairPlay) -> FairPlayRecord:
    return FairPlayRecord(
        game_id=row.game_id,
        status=row.status,
        reasons=list(row.reasons),
        evidence=dict(row.evidence),
        screened_at=row.screened_at,
        reviewed_at=row.reviewed_at,
    )


def _game(game: Game, player_name: str) -> GameRecord:
    return GameRecord(
        id=game.id,
        player_id=game.player_id,
        player_name=player_name,
        mode=game.mode,
        code=game.code,
        suits=game.suits,
        day=game.day,
        bot=game.bot,
        started_at=game.started_at,
        finished_at=game.finished_at,
        won=game.won,
        resigned=game.resigned,
        moves=game.moves,
        score=game.score,
        removed=game.removed,
        elapsed=game.elapsed,
        held=game.held,
    )


def _entry(rank: int, row: sa.Row[Any]) -> LeaderboardEntry:
    return LeaderboardEntry(
        rank=rank,
        player=row.name,
        score=row.score,
        moves=row.moves,
        elapsed=row.elapsed,
        finished_at=row.finished_at,
        won=row.won,
        removed=row.removed,
        bot=row.bot,
    )


#: The fields of a result's key, as ``games`` columns (the rank cache's loader reads them).
_KEY_FIELDS = tuple(field.name for field in dataclasses.fields(ResultKey))


def _board(day: date, suits: int, bots: bool) -> dict[str, Any]:
    """The parameters that pick one leaderboard."""
    return {"day": day, "suits": suits, "bots": bots}


def _result_member(game_id: str, result: Result) -> str:
    """A result's rank-cache member; refuses what cannot be ranked (a negative or infinite
    elapsed, a score out of range)."""
    elapsed = float(result.elapsed) + 0.0  # -0.0 would sort apart from 0.0 in the cache
    return ResultKey(
        result.won, result.removed, result.score, elapsed, result.finished_at, game_id
    ).member()


def _line(moves: Sequence[str] | None) -> str | None:
    return None if moves is None else " ".join(moves)


def _require_aware(name: str, value: datetime) -> None:
    if value.tzinfo is None:
        raise ValueError(f"{name} must be timezone-aware, got {value!r}")


class Store:
    """Everything the server keeps. Open with :meth:`open`, close with :meth:`close`."""

    def __init__(self, engine: AsyncEngine, ranks: RankCache, log: ActionLog) -> None:
        self.engine = engine
        self.ranks = ranks
        #: Where every accepted action goes before it is answered (see action_log).
        self.log = log
        self._sessions = async_sessionmaker(engine, expire_on_commit=False)
        # Single reads need no transaction: autocommit spares the BEGIN and ROLLBACK round trips.
        self._read_engine = engine.execution_options(isolation_level="AUTOCOMMIT")
        self._reads = async_sessionmaker(self._read_engine, expire_on_commit=False)
        self._insert = postgresql.insert if engine.dialect.name == "postgresql" else sqlite.insert
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
    ) -> Store:
        """Connect to the database at ``url`` (``postgresql+asyncpg://`` or
        ``sqlite+aiosqlite:///``), bring its schema to the newest migration when ``migrate``,
        and keep ranks in Redis sorted sets when ``redis`` is given, else in this process.
        Actions are group-committed every ``commit_window`` seconds (see action_log).
        ``timeouts`` go to :func:`create_engine` (``connect_timeout``, ...); migrations run
        on a connection of their own without them (building an index may take long)."""
        engine = create_engine(url, **(timeouts or {}))
        try:
            if migrate:
                from server.store.migrate import upgrade

                await upgrade(url if timeouts else engine)
        except BaseException:
            await engine.dispose()
            raise
        ranks: RankCache = (
            RedisRankCache(redis, redis_prefix) if redis is not None else LocalRankCache()
        )
        log = ActionLog(open_writer(url, timeout=commit_timeout), window=commit_window)
        store = cls(engine, ranks, log)
        store._redis = redis if owns_redis else None
        return store

    async def close(self) -> None:
        """Write the pending actions, then dispose of the engine; the Redis client stays the
        caller's to close unless the store was opened owning it."""
        await self.log.close()
        await self.engine.dispose()
        if self._redis is not None:
            await self._redis.aclose()

    # -- players --------------------------------------------------------------------------

    async def create_player(
        self, *, name: str, token_hash: str, now: datetime, bot: bool = False
    ) -> PlayerRecord:
        """A new account; ``bot`` declares a bot account (for good: it is never changed)."""
        if not name or len(name) > NAME_LENGTH:
            raise ValueError(f"a name has 1 to {NAME_LENGTH} characters, got {len(name)}")
        if not token_hash:
            raise ValueError("empty token hash")
        _require_aware("now", now)
        player = Player(
            name=name, name_key=name_key(name), token_hash=token_hash, created_at=now, bot=bot
        )
        try:
            async with self._sessions.begin() as session:
                session.add(player)
        except IntegrityError as error:
            if await self.player_by_name(name) is not None:
                raise NameTaken(f"the name {name!r} is taken") from None
            raise StoreError("this token hash belongs to another player") from error
        return _player(player)

    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None:
        return await self._one_player(Player.token_hash == token_hash)

    async def player_by_name(self, name: str) -> PlayerRecord | None:
        return await self._one_player(Player.name_key == name_key(name))

    async def player_by_id(self, player_id: int) -> PlayerRecord | None:
        return await self._one_player(Player.id == player_id)

    async def _one_player(self, where: sa.ColumnElement[bool]) -> PlayerRecord | None:
        async with self._reads() as session:
            player = await session.scalar(sa.select(Player).where(where))
        return None if player is None else _player(player)

    # -- daily deals ----------------------------------------------------------------------

    async def get_daily_deal(self, *, day: date, suits: int) -> DailyDealRecord | None:
        async with self._reads() as session:
            deal = await session.get(DailyDeal, (day, suits))
        return None if deal is None else _deal(deal)

    async def put_daily_deal(
        self,
        *,
        day: date,
        suits: int,
        code: str,
        par: int | None,
        solution: Sequence[str] | None = None,
    ) -> DailyDealRecord:
        """Store the deal unless one exists; either way return the stored one."""
        insert = self._insert(DailyDeal).values(
            day=day, suits=suits, code=code, par=par, solution=_line(solution)
        )
        async with self._sessions.begin() as session:
            await session.execute(insert.on_conflict_do_nothing(index_elements=["day", "suits"]))
            deal = await session.scalar(
                sa.select(DailyDeal).where(DailyDeal.day == day, DailyDeal.suits == suits)
            )
        assert deal is not None  # inserted or already there, in this transaction
        return _deal(deal)

    async def set_daily_solution(self, *, day: date, suits: int, solution: Sequence[str]) -> None:
        """Keep the solver's line of a deal stored without one (found later, once)."""
        update = (
            sa.update(DailyDeal)
            .where(DailyDeal.day == day, DailyDeal.suits == suits, DailyDeal.solution.is_(None))
            .values(solution=_line(solution))
        )
        async with self._sessions.begin() as session:
            await session.execute(update, execution_options={"synchronize_session": False})

    # -- games ----------------------------------------------------------------------------

    async def start_game(
        self,
        *,
        game_id: str,
        player_id: int,
        mode: str,
        code: str,
        suits: int,
        day: date | None,
        started_at: datetime,
    ) -> GameRecord:
        """Record a new game. A daily game is one per (player, day, suits): a second start
        raises :class:`AttemptExists` carrying the first."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if (mode == "daily") != (day is not None):
            raise ValueError("a daily game has a day and a practice game has none")
        if not game_id:
            raise ValueError("empty game id")
        _require_aware("started_at", started_at)
        try:
            async with self._sessions.begin() as session:
                owner = (
                    await session.execute(
                        sa.select(Player.name, Player.bot).where(Player.id == player_id)
                    )
                ).first()
                if owner is None:
                    raise StoreError(f"no player has id {player_id}")
                game = Game(
                    id=game_id,
                    player_id=player_id,
                    mode=mode,
                    code=code,
                    suits=suits,
                    day=day,
                    bot=owner.bot,
                    # a human's daily is off the board until its screening passes it
                    held=mode == "daily" and not owner.bot,
                    started_at=started_at,
                )
                session.add(game)
        except IntegrityError as error:
            if day is not None:
                existing = await self.daily_attempt(player_id=player_id, day=day, suits=suits)
                if existing is not None:
                    raise AttemptExists(existing) from None
            if await self.get_game(game_id) is not None:
                raise StoreError(f"a game with id {game_id!r} exists") from None
            raise StoreError(f"no player has id {player_id}") from error
        return _game(game, owner.name)

    async def get_game(self, game_id: str) -> GameRecord | None:
        return await self._one_game(Game.id == game_id)

    async def daily_attempt(self, *, player_id: int, day: date, suits: int) -> GameRecord | None:
        return await self._one_game(
            Game.player_id == player_id,
            Game.day == day,
            Game.suits == suits,
            Game.mode == sa.literal_column("'daily'"),
        )

    async def daily_progress(self, *, player_id: int, day: date) -> dict[int, bool]:
        """The player's daily attempts of ``day``: by suit count, whether it is finished."""
        query = sa.select(Game.suits, Game.finished_at.is_not(None)).where(
            IS_DAILY, Game.player_id == player_id, Game.day == day
        )
        async with self._reads() as session:
            return {suits: bool(done) for suits, done in await session.execute(query)}

    async def _one_game(self, *where: sa.ColumnElement[bool]) -> GameRecord | None:
        query = sa.select(*_GAME_COLUMNS).join(Player, Player.id == Game.player_id).where(*where)
        async with self._reads() as session:
            row = (await session.execute(query)).first()
        return None if row is None else _game(row[0], row[1])

    async def load_game(self, game_id: str) -> GameLog | None:
        """A game with its whole action log: what rebuilds it on any node."""
        game = await self.get_game(game_id)
        if game is None:
            return None
        query = (
            sa.select(
                GameAction.seq,
                GameAction.action,
                GameAction.at_ms,
                GameAction.request_id,
                GameAction.request,
            )
            .where(GameAction.game_id == game_id)
            .order_by(GameAction.seq)
        )
        async with self._read_engine.connect() as connection:
            rows = list(await connection.execute(query))
        entries = [LogEntry(game_id, *row) for row in rows]
        if [entry.seq for entry in entries] != list(range(1, len(entries) + 1)):
            raise StoreError(f"the action log of game {game_id!r} has gaps")
        return GameLog(game, entries)

    async def last_seq(self, game_id: str) -> int:
        """The seq of the game's newest logged action (0 for none): is a copy up to date?"""
        query = sa.select(sa.func.max(GameAction.seq)).where(GameAction.game_id == game_id)
        async with self._read_engine.connect() as connection:
            return (await connection.scalar(query)) or 0

    async def append(
        self,
        entries: Sequence[LogEntry],
        result: Result | None = None,
        *,
        ranked_on: BoardKey | None = None,
    ) -> None:
        """Commit a game's actions (and its result, with its end entry) through the action
        log; raises :class:`StaleGame` or :class:`StoreUnavailable`, writing nothing.

        A daily's result (``ranked_on`` its board: day, suit count, bots) then goes to the
        rank cache;
        the cache is rebuilt from the database when missing, so a failure there is logged.
        """
        game_id = entries[0].game_id
        member = None
        if result is not None:
            _require_aware("finished_at", result.finished_at)
            # made first: it refuses what cannot be ranked (a negative or infinite elapsed,
            # a score out of range) before anything is written
            member = _result_member(game_id, result)
        await self.log.append(entries, result)
        if member is None or ranked_on is None:
            return
        try:
            await self.ranks.add(ranked_on, member)
        except (redis.RedisError, OSError) as error:
            log.warning("rank cache: could not add game %s: %s", game_id, error)

    # -- leaderboards ---------------------------------------------------------------------
    # Each day and suit count has two boards: the humans' (``bots=False``) and the bots'.

    async def _rows(self, query: sa.Executable, params: dict[str, Any]) -> list[sa.Row[Any]]:
        """Run one prebuilt leaderboard query (Core: these are the hot reads)."""
        async with self._read_engine.connect() as connection:
            return list(await connection.execute(query, params))

    async def leaderboard_page(
        self, *, day: date, suits: int, limit: int, after: str | None = None, bots: bool = False
    ) -> LeaderboardSlice:
        """One page of a daily leaderboard, best first; ``after`` is a page's ``next``."""
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        board = (day, suits, bots)
        params = _board(*board) | {"limit": limit + 1}
        if after is None:
            # The rows and the total do not depend on each other: ask both at once.
            rows, total = await asyncio.gather(self._rows(_PAGE, params), self._total(board))
            first = 0
        else:
            key = decode_cursor(after)
            # The page starts right after the cursor's key: its rank is how many sort up to it.
            rows, (first, total) = await asyncio.gather(
                self._rows(_PAGE_AFTER, params | _key_params(key)),
                self._position(board, key, inclusive=True),
            )
        more = len(rows) > limit
        rows = rows[:limit]
        return LeaderboardSlice(
            rows=[_entry(first + i + 1, row) for i, row in enumerate(rows)],
            next=encode_cursor(ResultKey.of(rows[-1])) if more else None,
            total=total,
        )

    async def rank_of(
        self, *, day: date, suits: int, player_id: int, around: int = 5, bots: bool = False
    ) -> RankResult:
        """The player's rank that day, and up to ``around`` rows either side of their own."""
        if around < 0:
            raise ValueError(f"around must be non-negative, got {around}")
        board = (day, suits, bots)
        own_rows = await self._rows(_OWN, _board(*board) | {"player_id": player_id})
        if not own_rows:
            return RankResult(rank=None, total=await self._total(board), around=[])
        own = own_rows[0]
        key = ResultKey.of(own)
        if around:
            (position, total), others = await asyncio.gather(
                self._position(board, key),
                self._rows(_AROUND, _board(*board) | {"limit": around} | _key_params(key)),
            )
            rows = sorted([own, *others], key=lambda row: ResultKey.of(row).sort_key())
        else:
            position, total = await self._position(board, key)
            rows = [own]
        start = position - rows.index(own)
        return RankResult(
            rank=position + 1,
            total=total,
            around=[_entry(start + i + 1, row) for i, row in enumerate(rows)],
        )

    async def _position(
        self, board: BoardKey, key: ResultKey, *, inclusive: bool = False
    ) -> tuple[int, int]:
        """How many results sort before ``key`` (or at it, if ``inclusive``), and how many
        there are: from the rank cache, else counted in the database."""
        try:
            position = await self.ranks.position(
                board, key.member(), self._loader(board), inclusive=inclusive
            )
            # Asked about a result the cache lacks (its add has not landed yet): count.
            if position.present or inclusive:
                return position.before, position.total
            log.info("rank cache: game %s not in %s yet; counting", key.id, board)
        except (CacheNotReady, redis.RedisError) as error:
            log.warning("rank cache unavailable (%s); counting", error)
        params = _board(*board) | _key_params(key)
        (counted,) = await self._rows(_COUNT_UP_TO if inclusive else _COUNT_BEFORE, params)
        return int(counted[0]), await self._count(board)

    async def _total(self, board: BoardKey) -> int:
        try:
            return await self.ranks.total(board, self._loader(board))
        except (CacheNotReady, redis.RedisError) as error:
            log.warning("rank cache unavailable (%s); counting", error)
        return await self._count(board)

    async def _count(self, board: BoardKey) -> int:
        (counted,) = await self._rows(_COUNT, _board(*board))
        return int(counted[0])

    def _loader(self, board: BoardKey, batch: int = 10_000) -> Loader:
        """Reads one leaderboard's rank-cache members from the database, in batches (in a
        transaction: one snapshot, and asyncpg streams only inside one)."""
        day, suits, bots = board

        async def load() -> AsyncIterator[list[str]]:
            query = (
                sa.select(*(getattr(Game, name) for name in _KEY_FIELDS))
                .where(ON_LEADERBOARD, Game.day == day, Game.suits == suits, Game.bot == bots)
                .execution_options(yield_per=batch)
            )
            async with self._sessions() as session:
                result = await session.stream(query)
                async for rows in result.partitions(batch):
                    yield [ResultKey.of(row).member() for row in rows]

        return load

    # -- the end of a day ---------------------------------------------------------------

    async def unfinished_dailies(self, *, before: date) -> list[str]:
        """The ids of daily games of days before ``before`` still unfinished (to close them
        as they stand, through the action log, when their day is over)."""
        query = (
            sa.select(Game.id)
            .where(IS_DAILY, Game.day < before, Game.finished_at.is_(None))
            .order_by(Game.id)
        )
        async with self._reads() as session:
            return list((await session.scalars(query)).all())

    # -- fair play ------------------------------------------------------------------------

    async def record_screening(
        self,
        *,
        game_id: str,
        held: bool,
        reasons: Sequence[str],
        evidence: dict[str, Any],
        at: datetime,
    ) -> FairPlayRecord:
        """Keep a finished human daily's screening, once (a second screening of the same
        game returns the first), and put the result on the board unless it is held."""
        _require_aware("at", at)
        values = {
            "game_id": game_id,
            "status": HELD if held else PASSED,
            "reasons": list(reasons),
            "evidence": evidence,
            "screened_at": at,
        }
        async with self._sessions.begin() as session:
            await session.execute(
                self._insert(FairPlay)
                .values(**values)
                .on_conflict_do_nothing(index_elements=["game_id"])
            )
            stored = await session.get(FairPlay, game_id)
            assert stored is not None  # inserted or already there, in this transaction
            await session.execute(
                sa.update(Game)
                .where(Game.id == game_id)
                .values(held=stored.status in OFF_THE_BOARD),
                execution_options={"synchronize_session": False},
            )
        return _fair_play(stored)

    async def unscreened(self) -> list[str]:
        """Finished human dailies waiting for their screening (one was under way when a
        node stopped): the ids, oldest first."""
        query = (
            sa.select(Game.id)
            .outerjoin(FairPlay, FairPlay.game_id == Game.id)
            .where(IS_DAILY, Game.finished_at.is_not(None), Game.held, FairPlay.game_id.is_(None))
            .order_by(Game.finished_at)
        )
        async with self._reads() as session:
            return list((await session.scalars(query)).all())

    async def screening(self, game_id: str) -> FairPlayRecord | None:
        async with self._reads() as session:
            row = await session.get(FairPlay, game_id)
        return None if row is None else _fair_play(row)

    async def held_results(self) -> list[tuple[GameRecord, FairPlayRecord]]:
        """Results held for review, oldest first, with their screening."""
        query = (
            sa.select(Game, Player.name, FairPlay)
            .join(Player, Player.id == Game.player_id)
            .join(FairPlay, FairPlay.game_id == Game.id)
            .where(FairPlay.status == HELD)
            .order_by(FairPlay.screened_at, Game.id)
        )
        async with self._reads() as session:
            rows = list(await session.execute(query))
        return [(_game(game, name), _fair_play(row)) for game, name, row in rows]

    async def review(
        self, *, game_id: str, decision: str, note: str | None, at: datetime
    ) -> GameRecord:
        """A reviewer's decision on a held result: ``cleared`` ranks it; ``confirmed`` keeps
        it off the board and flags the account (its later dailies are held). Writes an
        audit row. Raises :class:`StoreError` for a game that is not held for review."""
        if decision not in (CLEARED, CONFIRMED):
            raise ValueError(f"a review clears or confirms, not {decision!r}")
        _require_aware("at", at)
        async with self._sessions.begin() as session:
            screened = await session.get(FairPlay, game_id)
            if screened is None or screened.status != HELD:
                raise StoreError(f"game {game_id!r} is not held for review")
            screened.status = decision
            screened.reviewed_at = at
            game = await session.get(Game, game_id)
            assert game is not None  # the foreign key holds
            game.held = decision == CONFIRMED
            if decision == CONFIRMED:
                await session.execute(
                    sa.update(Player).where(Player.id == game.player_id).values(flagged=True)
                )
            session.add(ReviewAudit(game_id=game_id, decision=decision, note=note, at=at))
        record = await self.get_game(game_id)
        assert record is not None
        return record

    async def audit(self, game_id: str) -> list[tuple[str, str | None, datetime]]:
        """The review decisions on a game, oldest first: (decision, note, when)."""
        query = (
            sa.select(ReviewAudit.decision, ReviewAudit.note, ReviewAudit.at)
            .where(ReviewAudit.game_id == game_id)
            .order_by(ReviewAudit.id)
        )
        async with self._reads() as session:
            return [(row[0], row[1], row[2]) for row in await session.execute(query)]

    async def rank_again(self, record: GameRecord) -> None:
        """Put a finished daily back in the rank cache (after a review cleared it)."""
        result = record.result
        if result is None or record.day is None:
            return
        member = _result_member(record.id, result)
        try:
            await self.ranks.add((record.day, record.suits, record.bot), member)
        except (redis.RedisError, OSError) as error:
            log.warning("rank cache: could not add game %s: %s", record.id, error)

    # -- history --------------------------------------------------------------------------

    async def history(self, *, player_id: int, limit: int = 20) -> PlayerHistory:
        """The player's finished games, newest first, and all-time figures over every
        finished game (daily and practice): games, wins, best score per suit count."""
        if limit < 0:
            raise ValueError(f"limit must be non-negative, got {limit}")
        finished = sa.and_(Game.player_id == player_id, Game.finished_at.is_not(None))
        games_query = (
            sa.select(*_GAME_COLUMNS)
            .join(Player, Player.id == Game.player_id)
            .where(finished)
            .order_by(Game.finished_at.desc(), Game.id.desc())
            .limit(limit)
        )
        figures_query = (
            sa.select(
                Game.suits,
                sa.func.count(),
                sa.func.sum(sa.case((Game.won.is_(True), 1), else_=0)),
                sa.func.max(Game.score),
            )
            .where(finished)
            .group_by(Game.suits)
        )
        async with self._reads() as session:
            games = [_game(game, name) for game, name in await session.execute(games_query)]
            figures: list[tuple[Any, ...]] = [
                tuple(row) for row in await session.execute(figures_query)
            ]
        return PlayerHistory(
            games=games,
            games_total=sum(row[1] for row in figures),
            won=sum(int(row[2] or 0) for row in figures),
            best_score={row[0]: row[3] for row in figures},
        )

    async def finished_games(self, *, batch: int = 1000) -> AsyncIterator[GameLog]:
        """Every finished game with its action log, in game id order, read in batches."""
        if batch < 1:
            raise ValueError(f"batch must be at least 1, got {batch}")
        last: str | None = None
        while True:
            query = (
                sa.select(*_GAME_COLUMNS)
                .join(Player, Player.id == Game.player_id)
                .where(Game.finished_at.is_not(None))
                .order_by(Game.id)
                .limit(batch)
            )
            if last is not None:
                query = query.where(Game.id > last)
            async with self._reads() as session:
                games = [_game(game, name) for game, name in await session.execute(query)]
                entries: dict[str, list[LogEntry]] = {game.id: [] for game in games}
                logged = await session.execute(
                    sa.select(
                        GameAction.game_id,
                        GameAction.seq,
                        GameAction.action,
                        GameAction.at_ms,
                        GameAction.request_id,
                        GameAction.request,
                    )
                    .where(GameAction.game_id.in_(list(entries)))
                    .order_by(GameAction.game_id, GameAction.seq)
                )
                for row in logged:
                    entries[row.game_id].append(LogEntry(*row))
            for game in games:
                yield GameLog(game, entries[game.id])
            if len(games) < batch:
                return
            last = games[-1].id


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
