"""The daily leaderboards: keyset pages with opaque cursors, a player's rank and the rows
around it, and the rank cache kept in step with the database.

Each day and suit count has three boards (a :class:`~server.kinds.DayBoard` names one): the
humans', the new players' (human accounts with too few earlier days) and the bots'. The order
is :data:`server.store.order.ORDER`; here it is only used, through ``LEADERBOARD_KEY`` (SQL)
and :class:`~server.store.order.ResultKey` (Python, cursors, rank-cache members)::

    page = await leaderboard.page(DayBoard(day, 4), limit=20)
    more = await leaderboard.page(DayBoard(day, 4), limit=20, after=page.next)
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import dataclasses
import logging
import time
from collections.abc import AsyncIterator
from typing import Any, Final

import redis
import sqlalchemy as sa

from server.kinds import DayBoard, Result
from server.store.database import Database
from server.store.errors import BadCursor, CacheNotReady, CacheSkipped, InvalidRequest
from server.store.models import (
    IS_DAILY,
    LEADERBOARD_KEY,
    OF_BOARD,
    ON_BOARD,
    ON_LEADERBOARD,
    GameRow,
    Player,
    ReviewAudit,
    board_params,
    leaderboard_key,
    on_leaderboard,
)
from server.store.order import ResultKey
from server.store.ranks import Loader, LocalRankCache, RankCache
from server.store.records import (
    CLEARED,
    CONFIRMED,
    LeaderboardEntry,
    LeaderboardSlice,
    RankResult,
    record_of,
)

log = logging.getLogger(__name__)

#: What a failing rank cache raises: the store then counts in the database (the record).
#: A skipped cache (:class:`CacheSkipped`: its breaker logged that it opened) is not logged
#: again at each call.
CACHE_FAILURES: Final = (CacheNotReady, CacheSkipped, redis.RedisError, OSError)
#: How often an in-process rank cache looks for reviews decided by another process
#: (seconds): a result a review cleared is counted at most this late.
REVIEW_CHECK_SECONDS: Final = 1.0


def encode_cursor(key: ResultKey) -> str:
    """An opaque, URL-safe cursor for the leaderboard row after which a page starts: the
    row's rank-cache member, which holds its whole key."""
    return base64.urlsafe_b64encode(key.member().encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> ResultKey:
    """The key in a cursor made by :func:`encode_cursor`; :class:`BadCursor` for
    anything else."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        key = ResultKey.from_member(base64.urlsafe_b64decode(padded.encode("ascii")).decode())
    except (InvalidRequest, UnicodeError, binascii.Error) as error:
        raise BadCursor(f"malformed leaderboard cursor: {cursor!r}") from error
    if not key.id.isprintable():  # never a game id; and PostgreSQL refuses a NUL
        raise BadCursor(f"malformed leaderboard cursor: {cursor!r}")
    return key


def leaderboard_entry(rank: int, result: Any) -> LeaderboardEntry:
    """The row at ``rank`` for anything with a finished game's result attributes and its
    ``player_name``: a leaderboard query's row, or a :class:`GameRecord`."""
    return record_of(
        LeaderboardEntry, result, rank=rank, player=result.player_name, game_id=result.id
    )


def result_key(game_id: str, result: Result) -> ResultKey:
    """Where a result stands; :class:`InvalidRequest` for what cannot be ranked (a negative
    or infinite elapsed, a score out of range, a naive time)."""
    key = ResultKey(
        result.won, result.removed, result.score, result.elapsed, result.finished_at, game_id
    )
    try:
        key.member()
    except InvalidRequest as error:
        raise InvalidRequest(f"game {game_id!r} cannot be ranked: {error}") from error
    return key


def _key_params(key: ResultKey) -> dict[str, Any]:
    return {f"k{index}": value for index, value in enumerate(key.sort_key())}


# The statements, built once: bound parameters only, so every call reuses the compiled SQL
# and the connection's prepared statement.
# One leaderboard row: a result's key (for ResultKey.of) and what an entry shows (for
# leaderboard_entry), so a field added to either is read with no other change.
_ROW_FIELDS = dict.fromkeys(
    field.name
    for field in (*dataclasses.fields(ResultKey), *dataclasses.fields(LeaderboardEntry))
    if field.name not in ("rank", "player", "game_id")
)
_ROW_COLUMNS = (*(getattr(GameRow, name) for name in _ROW_FIELDS), Player.name.label("player_name"))
_BOARD = sa.select(*_ROW_COLUMNS).join(Player, Player.id == GameRow.player_id).where(*ON_BOARD)
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
_OWN = _BOARD.where(GameRow.player_id == sa.bindparam("player_id", type_=sa.Integer()))
# The player's finished daily on that board held off it (for review): why they have no rank.
_HELD = sa.select(GameRow.id).where(
    IS_DAILY,
    GameRow.finished_at.is_not(None),
    GameRow.held,
    *OF_BOARD,
    GameRow.player_id == sa.bindparam("player_id", type_=sa.Integer()),
)
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
# The last review decision: it moves when a review may have put a result on a board, or
# taken one off (the audit's lines for results held or queued by a screening do not count).
_LAST_REVIEW = sa.select(sa.func.max(ReviewAudit.id)).where(
    ReviewAudit.decision.in_((CLEARED, CONFIRMED))
)
_COUNT = sa.select(sa.func.count()).select_from(GameRow).where(*ON_BOARD)
_COUNT_BEFORE = _COUNT.where(_ROW < _KEY)
_COUNT_UP_TO = _COUNT.where(_ROW <= _KEY)
# The ranks of given games on their own boards, in one statement: each one's count of the
# rows before it on its board (a range of the leaderboard index), plus one.
_AHEAD = sa.orm.aliased(GameRow)
_RANKS = sa.select(
    GameRow.id,
    sa.select(sa.func.count())
    .select_from(_AHEAD)
    .where(
        on_leaderboard(_AHEAD),
        _AHEAD.day == GameRow.day,
        _AHEAD.suits == GameRow.suits,
        _AHEAD.bot == GameRow.bot,
        _AHEAD.newcomer == GameRow.newcomer,
        sa.tuple_(*leaderboard_key(_AHEAD)) < _ROW,
    )
    .scalar_subquery()
    + 1,
).where(ON_LEADERBOARD, GameRow.id.in_(sa.bindparam("ids", expanding=True)))
#: A result's key as ``games`` columns (the rank cache's loader reads them).
_KEY_COLUMNS = tuple(getattr(GameRow, field.name) for field in dataclasses.fields(ResultKey))
_MEMBERS = sa.select(*_KEY_COLUMNS).where(*ON_BOARD)


class Leaderboard:
    """Pages and ranks of the daily leaderboards: ranks from the rank cache when it answers,
    else counted in the database."""

    def __init__(self, database: Database, ranks: RankCache) -> None:
        self._database = database
        self.ranks = ranks
        self._last_review: int | None = None
        self._reviews_checked = -REVIEW_CHECK_SECONDS  # monotonic time of the last look

    async def _notice_reviews(self) -> None:
        """Start an in-process rank cache over when a review was decided since it last
        looked: ``simon-server review`` runs in a process of its own and cannot add a result
        it clears to this one (a cache in Redis is shared, and the review adds it there)."""
        if not isinstance(self.ranks, LocalRankCache):
            return
        now = time.monotonic()  # real time: it spaces out queries to the database
        if now - self._reviews_checked < REVIEW_CHECK_SECONDS:
            return
        self._reviews_checked = now
        ((last,),) = await self._database.rows(_LAST_REVIEW, {})
        if last != self._last_review:
            self._last_review = last
            self.ranks.clear()

    async def page(
        self, board: DayBoard, *, limit: int, after: str | None = None
    ) -> LeaderboardSlice:
        """One page of a daily leaderboard, best first; ``after`` is a page's ``next``."""
        if limit < 1:
            raise InvalidRequest(f"limit must be at least 1, got {limit}")
        params = board_params(board) | {"limit": limit + 1}
        rows = self._database.rows
        if after is None:
            # The rows and the total do not depend on each other: ask both at once.
            found, total = await asyncio.gather(rows(_PAGE, params), self._total(board))
            first = 0
        else:
            key = decode_cursor(after)
            # The page starts right after the cursor's key: its rank is how many sort up to it.
            found, (first, total) = await asyncio.gather(
                rows(_PAGE_AFTER, params | _key_params(key)),
                self._position(board, key, inclusive=True),
            )
        more = len(found) > limit
        found = found[:limit]
        return LeaderboardSlice(
            rows=[leaderboard_entry(first + i + 1, row) for i, row in enumerate(found)],
            next=encode_cursor(ResultKey.of(found[-1])) if more else None,
            total=total,
        )

    async def rank_of(self, board: DayBoard, *, player_id: int, around: int = 5) -> RankResult:
        """The player's rank that day, and up to ``around`` rows either side of their own."""
        if around < 0:
            raise InvalidRequest(f"around must be non-negative, got {around}")
        players = board_params(board) | {"player_id": player_id}
        own_rows = await self._database.rows(_OWN, players)
        if not own_rows:
            total, held = await asyncio.gather(
                self._total(board), self._database.rows(_HELD, players)
            )
            return RankResult(rank=None, total=total, around=[], held=bool(held))
        own = own_rows[0]
        key = ResultKey.of(own)
        if around:
            params = board_params(board) | {"limit": around} | _key_params(key)
            (position, total), others = await asyncio.gather(
                self._position(board, key), self._database.rows(_AROUND, params)
            )
            rows = sorted([own, *others], key=lambda row: ResultKey.of(row).sort_key())
        else:
            position, total = await self._position(board, key)
            rows = [own]
        start = position - rows.index(own)
        return RankResult(
            rank=position + 1,
            total=total,
            around=[leaderboard_entry(start + i + 1, row) for i, row in enumerate(rows)],
        )

    async def ranks_of(self, game_ids: list[str]) -> dict[str, int]:
        """The rank of each of these games on its own board, in one query; games not on a
        board (practice, unfinished, held for review) are left out."""
        if not game_ids:
            return {}
        rows = await self._database.rows(_RANKS, {"ids": list(game_ids)})
        return {str(row[0]): int(row[-1]) for row in rows}

    async def remove(self, board: DayBoard, key: ResultKey) -> None:
        """Take a result off the rank cache (the database took it off its board first); a
        failure is only logged, as for :meth:`add`."""
        try:
            await self.ranks.remove(board, key.member())
        except CacheSkipped:
            pass
        except CACHE_FAILURES as error:
            log.warning("rank cache: could not remove game %s: %s", key.id, error)

    async def place(self, board: DayBoard, key: ResultKey) -> tuple[int, int]:
        """Where ``key`` stands or would stand on a board (counted in the database): its
        1-based rank, and the results there other than itself."""
        params = board_params(board) | _key_params(key)
        (before,) = await self._database.rows(_COUNT_BEFORE, params)
        (counted,) = await self._database.rows(_COUNT, board_params(board))
        total = int(counted[0])
        (present,) = await self._database.rows(_COUNT_UP_TO, params)
        return int(before[0]) + 1, total - (int(present[0]) - int(before[0]))

    async def add(self, board: DayBoard, key: ResultKey) -> None:
        """Put a result the database holds in the rank cache. The cache is rebuilt from the
        database when missing, so a failure here is only logged."""
        try:
            await self.ranks.add(board, key.member())
        except CacheSkipped:
            pass
        except CACHE_FAILURES as error:
            log.warning("rank cache: could not add game %s: %s", key.id, error)

    async def _position(
        self, board: DayBoard, key: ResultKey, *, inclusive: bool = False
    ) -> tuple[int, int]:
        """How many results sort before ``key`` (or at it, if ``inclusive``), and how many
        there are: from the rank cache, else counted in the database."""
        try:
            await self._notice_reviews()
            position = await self.ranks.position(
                board, key.member(), self._loader(board), inclusive=inclusive
            )
            # Asked about a result the cache lacks (its add has not landed yet): count.
            if position.present or inclusive:
                return position.before, position.total
            log.info("rank cache: game %s not in %s yet; counting", key.id, board)
        except CacheSkipped:
            pass
        except CACHE_FAILURES as error:
            log.warning("rank cache unavailable (%s); counting", error)
        params = board_params(board) | _key_params(key)
        counting = _COUNT_UP_TO if inclusive else _COUNT_BEFORE
        (counted,) = await self._database.rows(counting, params)
        return int(counted[0]), await self._count(board)

    async def _total(self, board: DayBoard) -> int:
        try:
            await self._notice_reviews()
            return await self.ranks.total(board, self._loader(board))
        except CacheSkipped:
            pass
        except CACHE_FAILURES as error:
            log.warning("rank cache unavailable (%s); counting", error)
        return await self._count(board)

    async def _count(self, board: DayBoard) -> int:
        (counted,) = await self._database.rows(_COUNT, board_params(board))
        return int(counted[0])

    def _loader(self, board: DayBoard, batch: int = 10_000) -> Loader:
        """Reads one leaderboard's rank-cache members from the database, in batches (in a
        transaction: one snapshot, and asyncpg streams only inside one)."""
        query = _MEMBERS.execution_options(yield_per=batch)
        params = board_params(board)

        async def load() -> AsyncIterator[list[str]]:
            async with self._database.sessions() as session:
                result = await session.stream(query, params)
                async for rows in result.partitions(batch):
                    yield [ResultKey.of(row).member() for row in rows]

        return load
