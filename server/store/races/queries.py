"""The race rooms' queries (:mod:`server.store.races`): :class:`RaceStore`, the reads and
the changes."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from server.store.api import PlayStore
from server.store.boundary import store_boundary
from server.store.errors import InvalidRequest, StoreError
from server.store.models import Race, RaceEntrant, RaceLobby
from server.store.records import PlayerRecord
from server.store.store import Store

from .errors import CodeTaken, RaceRefused, Refusal
from .reads import RaceReads
from .records import EXPIRED, OPEN, OVER, STARTED, EntrantResult, RaceRecord, RoomOptions
from .rows import (
    add_games,
    add_room,
    clear_lobby,
    join_room,
    locked,
    may_open,
    quick_join,
    read_rooms,
    update_room,
)


@store_boundary
class RaceStore(RaceReads):
    """The race rooms' queries, on the store's database: the reads (:class:`RaceReads`), and
    the changes of rooms, each one transaction."""

    @classmethod
    def of(cls, store: PlayStore) -> RaceStore:
        """The race rooms' queries on the database of ``store``: a :class:`Store` has one,
        another :class:`PlayStore` (the tests' in-memory store) has none
        (:class:`InvalidRequest`)."""
        if not isinstance(store, Store):
            raise InvalidRequest(f"race rooms need a database: {type(store).__name__} has none")
        return cls(store.engine)

    def _writes(self) -> async_sessionmaker[AsyncSession]:
        return self._database.sessions

    def _insert(self) -> Callable[..., Any]:
        return self._database.insert

    async def create(
        self,
        *,
        code: str,
        owner: PlayerRecord,
        options: RoomOptions,
        now: datetime,
        previous: str | None = None,
        most_open: int | None = None,
    ) -> RaceRecord:
        """A new room with its owner as its first racer; :class:`CodeTaken` if ``code`` is,
        ``RaceRefused`` (``TOO_MANY``) if the owner has ``most_open`` open rooms already."""
        try:
            async with self._writes().begin() as session:
                await may_open(session, owner.id, most_open)
                add_room(session, code, owner.id, options, now, previous)
        except IntegrityError:
            if await self.get(code) is not None:
                raise CodeTaken(code) from None
            raise
        return await self._required(code)

    async def join(
        self, code: str, *, player: PlayerRecord, now: datetime, auto_wait: float
    ) -> tuple[RaceRecord, bool]:
        """Put ``player`` in the room before its countdown; returns the room and whether
        they are new in it (a racer already in it is let back in, whatever its state)."""
        known = await self.get(code)
        if known is None:
            raise RaceRefused(Refusal.MISSING, f"no race room has the code {code}", {"code": code})
        if known.entrant(player.id) is not None:
            return known, False
        async with self._writes().begin() as session:
            await join_room(session, code, player, now, auto_wait)
        return await self._required(code), True

    async def quick(
        self,
        *,
        player: PlayerRecord,
        options: RoomOptions,
        now: datetime,
        new_code: Callable[[], str],
        auto_wait: float,
    ) -> tuple[RaceRecord, bool]:
        """Put ``player`` in the open public room of ``options.suits`` suits, or in a new one
        (which becomes that room); returns the room and whether they are new in it."""
        try:
            async with self._writes().begin() as session:
                code = await quick_join(
                    session, self._insert(), player, options, now, new_code, auto_wait
                )
        except IntegrityError:
            raise CodeTaken("a new quick room's code was taken") from None
        if isinstance(code, RaceRecord):
            return code, False
        return await self._required(code), True

    async def leave(self, code: str, *, player_id: int, now: datetime) -> RaceRecord:
        """Take a racer out of a room before its countdown. The owner's part passes to the
        racer who joined next; a room left empty expires."""
        async with self._writes().begin() as session:
            room = await locked(session, code)
            if room.state != OPEN:
                raise RaceRefused(Refusal.NOT_OPEN, "the countdown has begun: it is too late")
            entrant = room.entrant(player_id)
            if entrant is None:
                raise RaceRefused(Refusal.NOT_ENTRANT, "you are not in that room")
            await session.execute(
                sa.delete(RaceEntrant).where(
                    RaceEntrant.race_code == code, RaceEntrant.player_id == player_id
                )
            )
            rest = [e for e in room.entrants if e.player_id != player_id]
            values: dict[str, Any] = {}
            if not rest:
                values = {"state": EXPIRED, "finished_at": now, "auto_start_at": None}
                await clear_lobby(session, code)
            elif room.owner_id == player_id:
                values["owner_id"] = rest[0].player_id
            if rest and len(rest) < 2:
                values["auto_start_at"] = None
            if values:
                await session.execute(update_room(code, values))
        return await self._required(code)

    async def start(self, code: str, *, by: int | None, deal: str, now: datetime) -> RaceRecord:
        """Begin the countdown (``by`` the owner, or None: a public room by itself): fix the
        deal, the reveal (``now`` + countdown), the time limit, and every racer's game."""
        async with self._writes().begin() as session:
            room = await locked(session, code)
            room.may_start(by)
            starts_at = now + timedelta(seconds=room.countdown)
            ends_at = starts_at + timedelta(seconds=room.time_limit)
            await session.execute(
                update_room(
                    code,
                    {
                        "state": STARTED,
                        "deal": deal,
                        "starts_at": starts_at,
                        "ends_at": ends_at,
                        "auto_start_at": None,
                    },
                )
            )
            await clear_lobby(session, code)
            await add_games(session, room, deal, starts_at)
        return await self._required(code)

    async def finish(
        self, code: str, *, now: datetime, results: Sequence[EntrantResult]
    ) -> RaceRecord | None:
        """End a race with its results; None if it was not racing (ended already)."""
        async with self._writes().begin() as session:
            ended = await session.execute(
                sa.update(Race)
                .where(Race.code == code, Race.state == STARTED)
                .values(state=OVER, finished_at=now, revision=Race.revision + 1)
                .execution_options(synchronize_session=False)
            )
            if ended.rowcount != 1:  # type: ignore[attr-defined]  # a CursorResult
                return None
            for result in results:
                await session.execute(
                    sa.update(RaceEntrant)
                    .where(RaceEntrant.race_code == code, RaceEntrant.player_id == result.player_id)
                    .values(place=result.place, **result.result.model_dump())
                    .execution_options(synchronize_session=False)
                )
        return await self._required(code)

    async def expire(self, code: str, *, now: datetime) -> RaceRecord | None:
        """Close an open room nobody started; None if it was not open."""
        async with self._writes().begin() as session:
            expired = await session.execute(
                sa.update(Race)
                .where(Race.code == code, Race.state == OPEN)
                .values(
                    state=EXPIRED, finished_at=now, auto_start_at=None, revision=Race.revision + 1
                )
                .execution_options(synchronize_session=False)
            )
            if expired.rowcount != 1:  # type: ignore[attr-defined]  # a CursorResult
                return None
            await clear_lobby(session, code)
        return await self._required(code)

    async def rematch(
        self,
        code: str,
        *,
        player: PlayerRecord,
        now: datetime,
        new_code: str,
        auto_wait: float,
        most_open: int | None = None,
    ) -> tuple[RaceRecord, bool]:
        """After a race: its rematch room, with ``player`` in it. The first to ask opens it
        (code ``new_code``, the same options, a fresh deal) and owns it, if they may open
        one more (``most_open``); the others join it. Returns the room and whether it was
        opened now."""
        async with self._writes().begin() as session:
            room = await locked(session, code)
            if room.state != OVER:
                raise RaceRefused(Refusal.NOT_OVER, "a rematch comes after the race")
            if room.entrant(player.id) is None:
                raise RaceRefused(Refusal.NOT_ENTRANT, "only the racers ask for a rematch")
            if room.next is not None:
                next_room = (await read_rooms(session, Race.code == room.next))[room.next]
                if next_room.entrant(player.id) is None:
                    await join_room(session, room.next, player, now, auto_wait)
                target, opened = room.next, False
            else:
                again = dataclasses.replace(room.options(), chosen_deal=None)  # a fresh deal
                await may_open(session, player.id, most_open)
                add_room(session, new_code, player.id, again, now, code)
                await session.flush()
                await session.execute(update_room(code, {"next": new_code}))
                target, opened = new_code, True
        return await self._required(target), opened

    async def delete_expired(self, *, before: datetime, most: int = 1000) -> int:
        """Delete up to ``most`` rooms that expired (never started: no games, no results)
        before ``before``, so that codes are never used up; returns how many went. A room
        whose rematch this was forgets it."""
        async with self._writes().begin() as session:
            codes = list(
                await session.scalars(
                    sa.select(Race.code)
                    .where(Race.state == EXPIRED, Race.finished_at < before)
                    .limit(most)
                )
            )
            if not codes:
                return 0
            for statement in (
                sa.update(Race).where(Race.next.in_(codes)).values(next=None),
                sa.update(RaceLobby).where(RaceLobby.code.in_(codes)).values(code=None),
                sa.delete(RaceEntrant).where(RaceEntrant.race_code.in_(codes)),
                sa.delete(Race).where(Race.code.in_(codes)),
            ):
                await session.execute(statement, execution_options={"synchronize_session": False})
        return len(codes)

    async def _required(self, code: str) -> RaceRecord:
        room = await self.get(code)
        if room is None:
            raise StoreError(f"race room {code} vanished")
        return room
