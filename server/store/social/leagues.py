"""Private leagues and their members: :class:`~server.store.api.LeagueStore`.

Every limit (leagues an account owns and belongs to, members a league holds) is counted in
the transaction that would pass it, under the league's row lock on PostgreSQL (SQLite
takes one writer at a time): nodes together grant no more. A member who leaves keeps the
row of their membership, closed on the day they left, so past days still count for them.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

import sqlalchemy as sa

from server.store.boundary import store_boundary
from server.store.database import Database
from server.store.models import League, LeagueMember, Player
from server.store.records import record_of

from .follows import day_results
from .records import DayResult, LeagueRecord, MemberRecord

JoinOutcome = Literal["joined", "already", "full", "too-many"]

_MEMBERS_NOW = (
    sa.select(sa.func.count())
    .select_from(LeagueMember)
    .where(LeagueMember.league_id == League.id, LeagueMember.left_on.is_(None))
    .scalar_subquery()
)
_LEAGUES = sa.select(
    League.id,
    League.code,
    League.name,
    League.owner_id,
    Player.name.label("owner_name"),
    League.suits,
    League.public,
    League.created_at,
    _MEMBERS_NOW.label("members"),
).join(Player, Player.id == League.owner_id)


def _current(player_id: Any) -> sa.ColumnElement[bool]:
    return sa.and_(LeagueMember.player_id == player_id, LeagueMember.left_on.is_(None))


@store_boundary
class LeaguePart:
    _database: Database

    async def create_league(
        self,
        *,
        code: str,
        name: str,
        owner_id: int,
        suits: int,
        now: datetime,
        most_owned: int,
        most_joined: int,
    ) -> LeagueRecord | None:
        """A new league with its owner as its first member; None if the owner owns
        ``most_owned`` already or belongs to ``most_joined``."""
        async with self._database.engine.begin() as connection:
            await connection.execute(
                sa.select(Player.id).where(Player.id == owner_id).with_for_update()
            )
            owned = await connection.scalar(
                sa.select(sa.func.count()).select_from(League).where(League.owner_id == owner_id)
            )
            joined = await connection.scalar(
                sa.select(sa.func.count()).select_from(LeagueMember).where(_current(owner_id))
            )
            if (owned or 0) >= most_owned or (joined or 0) >= most_joined:
                return None
            league_id = (
                await connection.execute(
                    sa.insert(League)
                    .values(
                        code=code,
                        name=name,
                        owner_id=owner_id,
                        suits=suits,
                        public=False,
                        created_at=now,
                    )
                    .returning(League.id)
                )
            ).scalar_one()
            await connection.execute(
                sa.insert(LeagueMember).values(
                    league_id=league_id, player_id=owner_id, joined_on=now.date()
                )
            )
        found = await self.league_by_code(code)
        assert found is not None
        return found

    async def league_by_code(self, code: str) -> LeagueRecord | None:
        row = await self._database.first(
            _LEAGUES.where(League.code == sa.bindparam("key")), {"key": code}
        )
        return None if row is None else record_of(LeagueRecord, row)

    async def leagues_of(self, player_id: int) -> list[LeagueRecord]:
        """The leagues ``player_id`` belongs to now."""
        rows = await self._database.rows(
            _LEAGUES.where(
                League.id.in_(sa.select(LeagueMember.league_id).where(_current(player_id)))
            ).order_by(sa.func.lower(League.name), League.id),
            {},
        )
        return [record_of(LeagueRecord, row) for row in rows]

    async def join_league(
        self, *, league_id: int, player_id: int, day: date, most_members: int, most_joined: int
    ) -> JoinOutcome:
        async with self._database.engine.begin() as connection:
            await connection.execute(
                sa.select(League.id).where(League.id == league_id).with_for_update()
            )
            already = await connection.scalar(
                sa.select(sa.func.count())
                .select_from(LeagueMember)
                .where(LeagueMember.league_id == league_id, _current(player_id))
            )
            if already:
                return "already"
            members = await connection.scalar(
                sa.select(sa.func.count())
                .select_from(LeagueMember)
                .where(LeagueMember.league_id == league_id, LeagueMember.left_on.is_(None))
            )
            if (members or 0) >= most_members:
                return "full"
            joined = await connection.scalar(
                sa.select(sa.func.count()).select_from(LeagueMember).where(_current(player_id))
            )
            if (joined or 0) >= most_joined:
                return "too-many"
            await connection.execute(
                sa.insert(LeagueMember).values(
                    league_id=league_id, player_id=player_id, joined_on=day
                )
            )
        return "joined"

    async def leave_league(self, *, league_id: int, player_id: int, day: date) -> bool:
        """Close the membership (a member joined and gone the same day leaves no trace)."""
        async with self._database.engine.begin() as connection:
            await connection.execute(
                sa.delete(LeagueMember).where(
                    LeagueMember.league_id == league_id,
                    _current(player_id),
                    LeagueMember.joined_on >= day,
                )
            )
            left = await connection.execute(
                sa.update(LeagueMember)
                .where(LeagueMember.league_id == league_id, _current(player_id))
                .values(left_on=day)
                .returning(LeagueMember.id)
            )
            closed = left.first() is not None
        return closed

    async def delete_league(self, league_id: int) -> None:
        async with self._database.engine.begin() as connection:
            await connection.execute(sa.delete(League).where(League.id == league_id))

    async def set_league_owner(self, *, league_id: int, owner_id: int) -> None:
        async with self._database.engine.begin() as connection:
            await connection.execute(
                sa.update(League).where(League.id == league_id).values(owner_id=owner_id)
            )

    async def set_league_public(self, *, league_id: int, public: bool) -> None:
        async with self._database.engine.begin() as connection:
            await connection.execute(
                sa.update(League).where(League.id == league_id).values(public=public)
            )

    async def league_members(
        self, league_id: int, *, since: date | None = None
    ) -> list[MemberRecord]:
        """The league's members now, or (``since``) everyone who was a member on a day from
        ``since`` on, a row per membership."""
        query = (
            sa.select(
                LeagueMember.player_id, Player.name, LeagueMember.joined_on, LeagueMember.left_on
            )
            .join(Player, Player.id == LeagueMember.player_id)
            .where(LeagueMember.league_id == sa.bindparam("key"))
            .order_by(LeagueMember.joined_on, LeagueMember.id)
        )
        if since is None:
            query = query.where(LeagueMember.left_on.is_(None))
        else:
            query = query.where(
                sa.or_(LeagueMember.left_on.is_(None), LeagueMember.left_on > since)
            )
        rows = await self._database.rows(query, {"key": league_id})
        return [record_of(MemberRecord, row) for row in rows]

    async def league_results(
        self, league_id: int, *, suits: int, day_from: date, day_to: date
    ) -> list[DayResult]:
        """The members' dailies on a board from ``day_from`` to ``day_to`` (those of
        anyone who was a member some day of it: the caller keeps each member's days)."""
        members = sa.select(LeagueMember.player_id).where(
            LeagueMember.league_id == league_id,
            sa.or_(LeagueMember.left_on.is_(None), LeagueMember.left_on > day_from),
            LeagueMember.joined_on <= day_to,
        )
        rows = await self._database.rows(day_results(members, day_from, day_to, suits), {})
        return [record_of(DayResult, row) for row in rows]

    async def league_mate_ids(self, player_id: int, *, suits: int) -> list[int]:
        """Everyone in a league with ``player_id`` now, of leagues of ``suits`` (one id
        once)."""
        mine = (
            sa.select(LeagueMember.league_id)
            .join(League, League.id == LeagueMember.league_id)
            .where(_current(player_id), League.suits == suits)
        )
        rows = await self._database.rows(
            sa.select(LeagueMember.player_id)
            .where(LeagueMember.league_id.in_(mine), LeagueMember.left_on.is_(None))
            .where(LeagueMember.player_id != player_id)
            .distinct(),
            {},
        )
        return [row[0] for row in rows]


__all__ = ["JoinOutcome", "LeaguePart"]
