"""Players following players, and blocks: :class:`~server.store.api.FollowStore`.

A follow is one way. Blocking a player ends their follow and refuses their next ones. The
limit of follows an account keeps is checked in the transaction that adds one, under the
follower's row lock on PostgreSQL (SQLite takes one writer at a time), so that nodes
together grant no more.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

import sqlalchemy as sa

from server.store.boundary import store_boundary
from server.store.database import Database
from server.store.models import (
    LEADERBOARD_KEY,
    Block,
    Follow,
    GameRow,
    Player,
    on_leaderboard,
)
from server.store.records import record_of

from .records import DayResult, Followed

#: How a follow went.
FollowOutcome = Literal["followed", "already", "blocked", "too-many", "self"]

_RESULT_COLUMNS = (
    GameRow.id,
    GameRow.player_id,
    Player.name,
    GameRow.day,
    GameRow.won,
    GameRow.removed,
    GameRow.score,
    GameRow.moves,
    GameRow.elapsed,
    GameRow.finished_at,
)


def day_results(players: Any, day_from: date, day_to: date, suits: int) -> Any:
    """The finished dailies on a board (not held) of ``players`` (ids, or a subquery of
    them) from ``day_from`` to ``day_to`` of ``suits``, in leaderboard order by day: each
    player's one attempt a day is found by the unique index on (player, day, suits)."""
    return (
        sa.select(*_RESULT_COLUMNS)
        .join(Player, Player.id == GameRow.player_id)
        .where(
            GameRow.player_id.in_(players),
            GameRow.day.between(day_from, day_to),
            GameRow.suits == suits,
            on_leaderboard(),
        )
        .order_by(GameRow.day, *LEADERBOARD_KEY)
    )


@store_boundary
class FollowPart:
    _database: Database

    async def follow(
        self, *, follower_id: int, followed_id: int, now: datetime, most: int
    ) -> FollowOutcome:
        if follower_id == followed_id:
            return "self"
        async with self._database.engine.begin() as connection:
            await connection.execute(
                sa.select(Player.id).where(Player.id == follower_id).with_for_update()
            )
            blocked = await connection.scalar(
                sa.select(sa.func.count())
                .select_from(Block)
                .where(Block.blocker_id == followed_id, Block.blocked_id == follower_id)
            )
            if blocked:
                return "blocked"
            already = await connection.scalar(
                sa.select(sa.func.count())
                .select_from(Follow)
                .where(Follow.follower_id == follower_id, Follow.followed_id == followed_id)
            )
            if already:
                return "already"
            count = await connection.scalar(
                sa.select(sa.func.count())
                .select_from(Follow)
                .where(Follow.follower_id == follower_id)
            )
            if (count or 0) >= most:
                return "too-many"
            await connection.execute(
                sa.insert(Follow).values(
                    follower_id=follower_id, followed_id=followed_id, created_at=now
                )
            )
        return "followed"

    async def unfollow(self, *, follower_id: int, followed_id: int) -> bool:
        async with self._database.engine.begin() as connection:
            gone = await connection.execute(
                sa.delete(Follow)
                .where(Follow.follower_id == follower_id, Follow.followed_id == followed_id)
                .returning(Follow.followed_id)
            )
            return gone.first() is not None

    async def block(self, *, blocker_id: int, blocked_id: int, now: datetime) -> None:
        """``blocked_id`` no longer follows ``blocker_id``, and may not again."""
        async with self._database.engine.begin() as connection:
            await connection.execute(
                sa.delete(Follow).where(
                    Follow.follower_id == blocked_id, Follow.followed_id == blocker_id
                )
            )
            await connection.execute(
                self._database.insert(Block)
                .values(blocker_id=blocker_id, blocked_id=blocked_id, created_at=now)
                .on_conflict_do_nothing(index_elements=["blocker_id", "blocked_id"])
            )

    async def unblock(self, *, blocker_id: int, blocked_id: int) -> bool:
        async with self._database.engine.begin() as connection:
            gone = await connection.execute(
                sa.delete(Block)
                .where(Block.blocker_id == blocker_id, Block.blocked_id == blocked_id)
                .returning(Block.blocked_id)
            )
            return gone.first() is not None

    async def following_of(self, player_id: int) -> list[Followed]:
        return await self._ends(Follow.followed_id, Follow.follower_id, player_id, Follow)

    async def followers_of(self, player_id: int) -> list[Followed]:
        return await self._ends(Follow.follower_id, Follow.followed_id, player_id, Follow)

    async def blocked_by(self, player_id: int) -> list[Followed]:
        return await self._ends(Block.blocked_id, Block.blocker_id, player_id, Block)

    async def _ends(
        self, other: Any, own: Any, player_id: int, table: type[Follow] | type[Block]
    ) -> list[Followed]:
        rows = await self._database.rows(
            sa.select(other.label("player_id"), Player.name, table.created_at.label("since"))
            .join(Player, Player.id == other)
            .where(own == sa.bindparam("key"))
            .order_by(sa.func.lower(Player.name)),
            {"key": player_id},
        )
        return [record_of(Followed, row) for row in rows]

    async def follower_ids(self, player_id: int) -> list[int]:
        rows = await self._database.rows(
            sa.select(Follow.follower_id).where(Follow.followed_id == sa.bindparam("key")),
            {"key": player_id},
        )
        return [row[0] for row in rows]

    async def friends_results(self, *, viewer_id: int, day: date, suits: int) -> list[DayResult]:
        """The day's results on a board of ``viewer_id`` and everyone they follow, in
        leaderboard order."""
        followed = sa.select(Follow.followed_id).where(Follow.follower_id == viewer_id)
        players = sa.union_all(followed, sa.select(sa.literal(viewer_id)))
        rows = await self._database.rows(day_results(players, day, day, suits), {})
        return [record_of(DayResult, row) for row in rows]
