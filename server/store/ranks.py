"""The rank cache: a player's position on a daily leaderboard without counting rows.

One ordered set per leaderboard (day, suit count, and board: humans, new players or bots)
holds a member per finished daily game. Every member has the same score, so the set is
ordered by the member itself: :meth:`server.store.order.ResultKey.member`, a fixed-width
text whose byte order is the leaderboard's order (the game id last; ids sort bytewise in the
database too), so a member's 0-based rank in the set is its rank on the leaderboard. With
Redis the set is a sorted set (``ZLEXCOUNT``, ``ZCARD``); without, a sorted list in this
process.

The database stays the record: a set is filled ("warmed") from it the first time its
leaderboard is asked for, new results are added as they are written, and a set can be dropped
at any time. A set is complete once it holds the ``COMPLETE`` marker (Redis) or flag
(in-process); until then it is not used. In Redis the marker is a member of the set itself
(sorting after every result), so the set and its marker expire together.

Redis is asked through a :class:`~server.breaker.Breaker`: after a failure (a timeout, a
refused connection) it is skipped for a few seconds (:class:`CacheSkipped`), and the store
counts in the database, so a hung Redis costs one short timeout, not one per request. A
result this node could not add (or remove) leaves its set behind the database: the set is
dropped the next time Redis answers, and warmed again from the database.
"""

from __future__ import annotations

import asyncio
import bisect
import uuid
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import redis.asyncio as redis
from redis.exceptions import RedisError

from server.breaker import OPEN_SECONDS, Breaker
from server.kinds import DayBoard
from server.store.errors import CacheNotReady, CacheSkipped

#: Marks a Redis set as complete; "~" sorts after the hex digit that starts every result.
COMPLETE = "~complete"

#: Reads every member of one leaderboard from the database, in batches.
Loader = Callable[[], AsyncIterator[list[str]]]


class Position(NamedTuple):
    #: Results that sort before the member (or at it too, when asked ``inclusive``): for a
    #: result, its 0-based rank.
    before: int
    #: Results on the leaderboard.
    total: int
    #: Whether the member is one of the results.
    present: bool


class RankCache(ABC):
    """Positions on the daily leaderboards. Each read warms its set first if needed."""

    @abstractmethod
    async def position(
        self, board: DayBoard, member: str, load: Loader, *, inclusive: bool = False
    ) -> Position:
        """Where ``member`` stands (it need not be a result): see :class:`Position`."""

    async def total(self, board: DayBoard, load: Loader) -> int:
        """The number of results on the leaderboard."""
        return (await self.position(board, COMPLETE, load)).total

    @abstractmethod
    async def add(self, board: DayBoard, member: str) -> None:
        """Record a newly written result (call after the database committed it)."""

    @abstractmethod
    async def remove(self, board: DayBoard, member: str) -> None:
        """Forget a result taken off its board (a review confirmed machine play)."""


@dataclass
class _LocalBoard:
    members: list[str] = field(default_factory=list)
    complete: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class LocalRankCache(RankCache):
    """The in-process cache: a sorted list per leaderboard, the most recent ``max_boards``
    kept (an evicted one is warmed again when asked for)."""

    def __init__(self, max_boards: int = 32) -> None:
        self._boards: OrderedDict[DayBoard, _LocalBoard] = OrderedDict()
        self._max_boards = max_boards

    def _board(self, key: DayBoard) -> _LocalBoard:
        board = self._boards.get(key)
        if board is None:
            board = self._boards[key] = _LocalBoard()
            while len(self._boards) > self._max_boards:
                self._boards.popitem(last=False)
        else:
            self._boards.move_to_end(key)
        return board

    async def _warm(self, key: DayBoard, load: Loader) -> _LocalBoard:
        board = self._board(key)
        if board.complete:
            return board
        async with board.lock:  # one warmer; the others wait for its result
            if not board.complete:
                loaded = [member async for batch in load() for member in batch]
                # Results added while loading are kept: the set removes the doubles.
                board.members = sorted(set(board.members).union(loaded))
                board.complete = True
        return board

    def clear(self) -> None:
        """Forget every set (each is warmed again from the database when next asked for)."""
        self._boards.clear()

    async def position(
        self, board: DayBoard, member: str, load: Loader, *, inclusive: bool = False
    ) -> Position:
        members = (await self._warm(board, load)).members
        index = bisect.bisect_left(members, member)
        present = index < len(members) and members[index] == member
        return Position(index + (inclusive and present), len(members), present)

    async def add(self, board: DayBoard, member: str) -> None:
        members = self._board(board).members
        index = bisect.bisect_left(members, member)
        if index == len(members) or members[index] != member:
            members.insert(index, member)

    async def remove(self, board: DayBoard, member: str) -> None:
        members = self._board(board).members
        index = bisect.bisect_left(members, member)
        if index < len(members) and members[index] == member:
            del members[index]


class RedisRankCache(RankCache):
    """Sorted sets in Redis, shared by every server node using the same prefix; skipped
    for ``breaker_seconds`` after Redis fails (``monotonic``: the clock of that)."""

    def __init__(
        self,
        client: redis.Redis,
        prefix: str,
        *,
        ttl_seconds: int = 8 * 86400,
        warm_wait_seconds: float = 5.0,
        batch: int = 10_000,
        breaker_seconds: float = OPEN_SECONDS,
        monotonic: Callable[[], float] | None = None,
    ) -> None:
        self._redis = client
        self._prefix = prefix
        self._ttl = ttl_seconds
        self._warm_wait = warm_wait_seconds
        self._batch = batch
        self.breaker = Breaker(
            "rank cache (Redis)",
            failures=(RedisError, OSError),
            refused=CacheSkipped,
            open_seconds=breaker_seconds,
            **({"monotonic": monotonic} if monotonic is not None else {}),
        )
        #: Boards whose set may lack a result or keep a removed one: dropped when Redis
        #: answers again.
        self._behind: set[DayBoard] = set()

    async def _catch_up(self, board: DayBoard) -> None:
        """Drop the set of a board that missed a change (it is warmed again when read)."""
        if board in self._behind:
            await self._redis.delete(self.key(board))
            self._behind.discard(board)

    def key(self, board: DayBoard) -> str:
        return f"{self._prefix}:ranks:{board.day.isoformat()}:{board.suits}:{board.kind}"

    async def _warm(self, key: str, load: Loader) -> None:
        lock = f"{key}:warming"
        token = uuid.uuid4().hex
        if await self._redis.set(lock, token, nx=True, ex=max(30, int(self._warm_wait * 4))):
            try:
                async for batch in load():
                    for start in range(0, len(batch), self._batch):
                        chunk = batch[start : start + self._batch]
                        await self._redis.zadd(key, dict.fromkeys(chunk, 0))
                async with self._redis.pipeline(transaction=True) as pipe:
                    pipe.zadd(key, {COMPLETE: 0})
                    pipe.expire(key, self._ttl)
                    await pipe.execute()
            finally:
                if await self._redis.get(lock) == token.encode():
                    await self._redis.delete(lock)
            return
        # Another warmer holds the lock: wait for its marker (in real time: it is written
        # by another process, through Redis).
        deadline = asyncio.get_running_loop().time() + self._warm_wait
        while asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)
            if await self._redis.zscore(key, COMPLETE) is not None:
                return
        raise CacheNotReady(key)

    async def position(
        self, board: DayBoard, member: str, load: Loader, *, inclusive: bool = False
    ) -> Position:
        async with self.breaker.call():
            await self._catch_up(board)
            return await self._position(board, member, load, inclusive=inclusive)

    async def _position(
        self, board: DayBoard, member: str, load: Loader, *, inclusive: bool
    ) -> Position:
        key = self.key(board)
        for _ in range(2):
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.zscore(key, COMPLETE)
                pipe.zlexcount(key, "-", ("[" if inclusive else "(") + member)
                pipe.zscore(key, member)
                pipe.zcard(key)
                complete, before, score, size = await pipe.execute()
            if complete is not None:
                return Position(before, size - 1, score is not None)
            await self._warm(key, load)
        raise CacheNotReady(key)

    async def add(self, board: DayBoard, member: str) -> None:
        key = self.key(board)
        try:
            async with self.breaker.call():
                await self._catch_up(board)
                async with self._redis.pipeline(transaction=False) as pipe:
                    pipe.zadd(key, {member: 0})
                    pipe.expire(key, self._ttl)
                    await pipe.execute()
        except BaseException:
            self._behind.add(board)
            raise

    async def remove(self, board: DayBoard, member: str) -> None:
        try:
            async with self.breaker.call():
                await self._catch_up(board)
                await self._redis.zrem(self.key(board), member)
        except BaseException:
            self._behind.add(board)
            raise
