"""The race rooms' reading queries (:mod:`server.store.races`): a room, the rooms of games,
how a race's games stand, the rooms whose time came."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from server.kinds import Result
from server.store.boundary import store_boundary
from server.store.database import Database
from server.store.models import GameRow, Race, RaceEntrant

from .records import OPEN, STARTED, Due, RaceRecord
from .rows import read_rooms, result_of

#: Asked at every resume of a game by id (prebuilt, in Core: the ORM would cost more).
_RACE_OF_GAME = sa.select(RaceEntrant.race_code).where(
    RaceEntrant.game_id == sa.bindparam("game_id")
)


@store_boundary
class RaceReads:
    """What the race rooms' queries read, on the store's database."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._database = Database(engine)

    def _reads(self) -> async_sessionmaker[AsyncSession]:
        return self._database.reads

    async def get(self, code: str) -> RaceRecord | None:
        return (await self.get_many([code])).get(code)

    async def get_many(self, codes: Iterable[str]) -> dict[str, RaceRecord]:
        codes = list(codes)
        if not codes:
            return {}
        async with self._reads()() as session:
            return await read_rooms(session, Race.code.in_(codes))

    async def race_of_game(self, game_id: str) -> RaceRecord | None:
        """The room whose race ``game_id`` is a game of."""
        row = await self._database.first(_RACE_OF_GAME, {"game_id": game_id})
        return None if row is None else await self.get(row[0])

    async def unfinished(self, code: str) -> int:
        """How many racers' games of a room are not over yet."""
        query = (
            sa.select(sa.func.count())
            .select_from(RaceEntrant)
            .join(GameRow, GameRow.id == RaceEntrant.game_id)
            .where(RaceEntrant.race_code == code, GameRow.finished_at.is_(None))
        )
        async with self._reads()() as session:
            return int(await session.scalar(query) or 0)

    async def results(self, code: str) -> dict[int, Result | None]:
        """Each racer's result (by player id), None while their game goes on."""
        query = (
            sa.select(RaceEntrant.player_id, GameRow)
            .join(GameRow, GameRow.id == RaceEntrant.game_id)
            .where(RaceEntrant.race_code == code)
        )
        async with self._reads()() as session:
            rows = list(await session.execute(query))
        return {player_id: result_of(game) for player_id, game in rows}

    async def places_of(self, game_ids: Sequence[str]) -> dict[str, tuple[str, int | None]]:
        """For those of ``game_ids`` that are race games: their room and place."""
        if not game_ids:
            return {}
        query = sa.select(RaceEntrant.game_id, RaceEntrant.race_code, RaceEntrant.place).where(
            RaceEntrant.game_id.in_(list(game_ids))
        )
        async with self._reads()() as session:
            rows = list(await session.execute(query))
        return {game_id: (code, place) for game_id, code, place in rows if game_id is not None}

    async def due(self, *, now: datetime, open_for: float) -> list[Due]:
        """Rooms whose time came: public rooms to count down, races to end, rooms to expire."""
        unfinished = (
            sa.select(RaceEntrant.race_code)
            .join(GameRow, GameRow.id == RaceEntrant.game_id)
            .where(RaceEntrant.race_code == Race.code, GameRow.finished_at.is_(None))
            .exists()
        )
        query = sa.select(
            Race.code,
            sa.case(
                (Race.state == STARTED, "end"),
                (Race.created_at < now - timedelta(seconds=open_for), "expire"),
                else_="start",
            ),
        ).where(
            sa.or_(
                sa.and_(
                    Race.state == STARTED,
                    sa.or_(Race.ends_at <= now, sa.and_(Race.starts_at <= now, ~unfinished)),
                ),
                sa.and_(Race.state == OPEN, Race.auto_start_at <= now),
                sa.and_(Race.state == OPEN, Race.created_at < now - timedelta(seconds=open_for)),
            )
        )
        async with self._reads()() as session:
            return [Due(code, what) for code, what in await session.execute(query)]
