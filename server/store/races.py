"""Race rooms in the database: the record of every room, its racers, their games and results.

Every change of a room is one transaction that first bumps the room's ``revision`` (an
UPDATE: a row lock on PostgreSQL, the write lock on SQLite), so two nodes acting on one
room at once take turns: a room never takes more racers than its capacity, and its
countdown begins once (``open`` -> ``started`` happens in exactly one transaction, which
fixes the deal and creates every racer's game, all starting at the reveal)::

    races = RaceStore(store)
    room = await races.create(code="KXR4M-7M2PQ", owner=alice, suits=1, now=now, ...)
    room, _ = await races.join("KXR4M-7M2PQ", player=bob, now=now, auto_wait=30.0)
    room = await races.start("KXR4M-7M2PQ", by=alice.id, deal="SS1-S1-ABCDEFG", now=now)

Refusals raise a kind of :class:`RaceRefused` (its ``refusal`` says which); nothing is
changed then. A driver's failure is :class:`~server.store.errors.StoreUnavailable`.

Error tree (under :class:`~server.store.errors.StoreError`)::

    RaceRefused
    ├── NoSuchRace        no room has that code
    ├── RaceNotOpen       its countdown has begun (or it is over)
    ├── RaceFull          as many racers as its capacity
    ├── BotsRefused       a bot account, and the room does not allow bots
    ├── NotRaceOwner      only its owner starts it
    ├── TooFewRacers      a race needs two
    ├── NotInRace         not one of its racers
    ├── RaceNotOver       a rematch before the end
    └── TooManyRooms      the owner has as many open rooms as they may
    CodeTaken             a new room's code is taken: draw another
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from typing import Any, ClassVar, Literal

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from server.kinds import Result
from server.store.boundary import store_boundary
from server.store.database import Database
from server.store.errors import StoreError
from server.store.models import GameRow, Player, Race, RaceEntrant, RaceLobby
from server.store.records import PlayerRecord

#: A room's states in the database (the play layer splits ``started`` into countdown and
#: racing by the clock).
OPEN = "open"
STARTED = "started"
OVER = "over"
EXPIRED = "expired"


class Refusal(Enum):
    MISSING = "missing"  # no room has that code
    NOT_OPEN = "not-open"  # the countdown has begun (or the room is over)
    FULL = "full"
    BOTS = "bots"  # a bot account, and the room does not allow bots
    NOT_OWNER = "not-owner"
    TOO_FEW = "too-few"  # fewer than two racers
    NOT_ENTRANT = "not-entrant"
    NOT_OVER = "not-over"  # a rematch before the end
    TOO_MANY = "too-many"  # the owner has as many open rooms as they may


class RaceRefused(StoreError):
    """A change of a room that the room's state refuses."""

    refusal: ClassVar[Refusal]


class NoSuchRace(RaceRefused):
    refusal = Refusal.MISSING


class RaceNotOpen(RaceRefused):
    refusal = Refusal.NOT_OPEN


class RaceFull(RaceRefused):
    refusal = Refusal.FULL


class BotsRefused(RaceRefused):
    refusal = Refusal.BOTS


class NotRaceOwner(RaceRefused):
    refusal = Refusal.NOT_OWNER


class TooFewRacers(RaceRefused):
    refusal = Refusal.TOO_FEW


class NotInRace(RaceRefused):
    refusal = Refusal.NOT_ENTRANT


class RaceNotOver(RaceRefused):
    refusal = Refusal.NOT_OVER


class TooManyRooms(RaceRefused):
    refusal = Refusal.TOO_MANY


class CodeTaken(StoreError):
    """A new room's code is taken: draw another."""


@dataclass(frozen=True)
class EntrantRecord:
    player_id: int
    name: str
    bot: bool
    joined_at: datetime
    game_id: str | None  # from the countdown on
    # the result, once the race is over
    place: int | None = None
    won: bool | None = None
    resigned: bool | None = None
    moves: int | None = None
    score: int | None = None
    removed: int | None = None
    elapsed: float | None = None


@dataclass(frozen=True)
class RaceRecord:
    code: str
    owner_id: int
    owner_name: str
    suits: int
    chosen_deal: str | None
    deal: str | None
    public: bool
    capacity: int
    allow_bots: bool
    countdown: float
    time_limit: float
    state: str
    revision: int
    created_at: datetime
    auto_start_at: datetime | None
    starts_at: datetime | None
    ends_at: datetime | None
    finished_at: datetime | None
    previous: str | None
    next: str | None
    entrants: tuple[EntrantRecord, ...]  # in the order they joined

    def entrant(self, player_id: int) -> EntrantRecord | None:
        return next((e for e in self.entrants if e.player_id == player_id), None)


@dataclass(frozen=True)
class RoomOptions:
    """What a new room is made with (besides its owner and code)."""

    suits: int
    chosen_deal: str | None = None
    public: bool = False
    capacity: int = 10
    allow_bots: bool = False
    countdown: float = 10.0
    time_limit: float = 900.0


@dataclass(frozen=True)
class EntrantResult:
    """One racer's line of a race's results."""

    player_id: int
    place: int
    won: bool
    resigned: bool
    moves: int
    score: int
    removed: int
    elapsed: float


@dataclass(frozen=True)
class Due:
    """A room whose time came while perhaps no node watched it: ``what`` is ``start`` (a
    public room's countdown), ``end`` (its time limit, or every racer done) or ``expire``
    (open for too long)."""

    code: str
    what: Literal["start", "end", "expire"]


_RACE_COLUMNS = (Race, Player.name)


@store_boundary
class RaceStore:
    """The race rooms' queries, on the store's database."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._database = Database(engine)

    @classmethod
    def of(cls, store: object) -> RaceStore:
        """The race rooms' queries on the database of ``store`` (a :class:`Store`)."""
        engine = getattr(store, "engine", None)
        if not isinstance(engine, AsyncEngine):
            raise TypeError(f"race rooms need a database: {type(store).__name__} has none")
        return cls(engine)

    def _writes(self) -> async_sessionmaker[AsyncSession]:
        return self._database.sessions

    def _reads(self) -> async_sessionmaker[AsyncSession]:
        return self._database.reads

    def _insert(self) -> Callable[..., Any]:
        return self._database.insert

    # -- reading --------------------------------------------------------------------------

    async def get(self, code: str) -> RaceRecord | None:
        return (await self.get_many([code])).get(code)

    async def get_many(self, codes: Iterable[str]) -> dict[str, RaceRecord]:
        codes = list(codes)
        if not codes:
            return {}
        async with self._reads()() as session:
            return await _records(session, Race.code.in_(codes))

    async def race_of_game(self, game_id: str) -> RaceRecord | None:
        """The room whose race ``game_id`` is a game of."""
        query = sa.select(RaceEntrant.race_code).where(RaceEntrant.game_id == game_id)
        async with self._reads()() as session:
            code = await session.scalar(query)
        return None if code is None else await self.get(code)

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
        return {player_id: _result(game) for player_id, game in rows}

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

    # -- changing -------------------------------------------------------------------------

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
        :class:`TooManyRooms` if the owner has ``most_open`` open rooms already."""
        try:
            async with self._writes().begin() as session:
                await _may_open(session, owner.id, most_open)
                _add_room(session, code, owner.id, options, now, previous)
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
            raise NoSuchRace(f"no race room has the code {code}")
        if known.entrant(player.id) is not None:
            return known, False
        async with self._writes().begin() as session:
            await _join(session, code, player, now, auto_wait)
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
            code = await self._quick(player, options, now, new_code, auto_wait)
        except IntegrityError:
            raise CodeTaken("a new quick room's code was taken") from None
        if isinstance(code, RaceRecord):
            return code, False
        return await self._required(code), True

    async def _quick(
        self,
        player: PlayerRecord,
        options: RoomOptions,
        now: datetime,
        new_code: Callable[[], str],
        auto_wait: float,
    ) -> str | RaceRecord:
        """The quick join's transaction: the code of the room joined, or the room the player
        was in already."""
        suits = options.suits
        async with self._writes().begin() as session:
            await session.execute(
                self._insert()(RaceLobby)
                .values(suits=suits, code=None)
                .on_conflict_do_nothing(index_elements=["suits"])
            )
            # the lobby's row lock: quick joins of one suit count take turns
            await session.execute(
                sa.update(RaceLobby)
                .where(RaceLobby.suits == suits)
                .values(code=RaceLobby.code)
                .execution_options(synchronize_session=False)
            )
            current = await session.scalar(
                sa.select(RaceLobby.code).where(RaceLobby.suits == suits)
            )
            code = None
            if current is not None:
                room = (await _records(session, Race.code == current)).get(current)
                if room is not None and room.entrant(player.id) is not None:
                    return room
                if room is not None and room.state == OPEN and len(room.entrants) < room.capacity:
                    await _join(session, current, player, now, auto_wait)
                    code = current
            if code is None:
                code = new_code()
                _add_room(session, code, player.id, options, now, None)
                await session.flush()
                await session.execute(
                    sa.update(RaceLobby)
                    .where(RaceLobby.suits == suits)
                    .values(code=code)
                    .execution_options(synchronize_session=False)
                )
        return code

    async def leave(self, code: str, *, player_id: int, now: datetime) -> RaceRecord:
        """Take a racer out of a room before its countdown. The owner's part passes to the
        racer who joined next; a room left empty expires."""
        async with self._writes().begin() as session:
            room = await _locked(session, code)
            if room.state != OPEN:
                raise RaceNotOpen("the countdown has begun: it is too late")
            entrant = room.entrant(player_id)
            if entrant is None:
                raise NotInRace("you are not in that room")
            await session.execute(
                sa.delete(RaceEntrant).where(
                    RaceEntrant.race_code == code, RaceEntrant.player_id == player_id
                )
            )
            rest = [e for e in room.entrants if e.player_id != player_id]
            values: dict[str, Any] = {}
            if not rest:
                values = {"state": EXPIRED, "finished_at": now, "auto_start_at": None}
                await _clear_lobby(session, code)
            elif room.owner_id == player_id:
                values["owner_id"] = rest[0].player_id
            if rest and len(rest) < 2:
                values["auto_start_at"] = None
            if values:
                await session.execute(_update(code, values))
        return await self._required(code)

    async def start(self, code: str, *, by: int | None, deal: str, now: datetime) -> RaceRecord:
        """Begin the countdown (``by`` the owner, or None: a public room by itself): fix the
        deal, the reveal (``now`` + countdown), the time limit, and every racer's game."""
        async with self._writes().begin() as session:
            room = await _locked(session, code)
            if room.state != OPEN:
                raise RaceNotOpen("the race has started already")
            if by is not None and room.entrant(by) is None:
                raise NotInRace("you are not in that room")
            if by is not None and room.owner_id != by:
                raise NotRaceOwner("only the room's owner starts the race")
            if len(room.entrants) < 2:
                raise TooFewRacers("a race needs at least 2 racers")
            starts_at = now + timedelta(seconds=room.countdown)
            ends_at = starts_at + timedelta(seconds=room.time_limit)
            await session.execute(
                _update(
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
            await _clear_lobby(session, code)
            for entrant in room.entrants:
                game_id = uuid.uuid4().hex
                session.add(
                    GameRow(
                        id=game_id,
                        player_id=entrant.player_id,
                        mode="practice",
                        code=deal,
                        suits=room.suits,
                        day=None,
                        bot=entrant.bot,
                        held=False,
                        started_at=starts_at,  # elapsed counts from the reveal
                    )
                )
                await session.flush()
                await session.execute(
                    sa.update(RaceEntrant)
                    .where(
                        RaceEntrant.race_code == code, RaceEntrant.player_id == entrant.player_id
                    )
                    .values(game_id=game_id)
                    .execution_options(synchronize_session=False)
                )
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
                    .values(
                        place=result.place,
                        won=result.won,
                        resigned=result.resigned,
                        moves=result.moves,
                        score=result.score,
                        removed=result.removed,
                        elapsed=result.elapsed,
                    )
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
            await _clear_lobby(session, code)
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
            room = await _locked(session, code)
            if room.state != OVER:
                raise RaceNotOver("a rematch comes after the race")
            if room.entrant(player.id) is None:
                raise NotInRace("only the racers ask for a rematch")
            if room.next is not None:
                next_room = (await _records(session, Race.code == room.next))[room.next]
                if next_room.entrant(player.id) is None:
                    await _join(session, room.next, player, now, auto_wait)
                target, opened = room.next, False
            else:
                options = RoomOptions(
                    suits=room.suits,
                    public=room.public,
                    capacity=room.capacity,
                    allow_bots=room.allow_bots,
                    countdown=room.countdown,
                    time_limit=room.time_limit,
                )
                await _may_open(session, player.id, most_open)
                _add_room(session, new_code, player.id, options, now, code)
                await session.flush()
                await session.execute(_update(code, {"next": new_code}))
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


# -- in a transaction ---------------------------------------------------------------------


def _result(game: GameRow) -> Result | None:
    if game.finished_at is None:
        return None
    return Result(
        won=bool(game.won),
        resigned=bool(game.resigned),
        moves=game.moves or 0,
        score=game.score if game.score is not None else 500,
        removed=game.removed or 0,
        elapsed=game.elapsed or 0.0,
        finished_at=game.finished_at,
    )


def _add_room(
    session: AsyncSession,
    code: str,
    owner_id: int,
    options: RoomOptions,
    now: datetime,
    previous: str | None,
) -> None:
    session.add(
        Race(
            code=code,
            owner_id=owner_id,
            suits=options.suits,
            chosen_deal=options.chosen_deal,
            public=options.public,
            capacity=options.capacity,
            allow_bots=options.allow_bots,
            countdown=options.countdown,
            time_limit=options.time_limit,
            state=OPEN,
            revision=1,
            created_at=now,
            previous=previous,
        )
    )
    session.add(RaceEntrant(race_code=code, player_id=owner_id, joined_at=now))


async def _may_open(session: AsyncSession, owner_id: int, most_open: int | None) -> None:
    """Refuse a room over its owner's cap of open rooms. The owner's row is locked first
    (a write that changes nothing), so two of their requests on two nodes take turns."""
    if most_open is None:
        return
    await session.execute(
        sa.update(Player)
        .where(Player.id == owner_id)
        .values(id=Player.id)
        .execution_options(synchronize_session=False)
    )
    count = await session.scalar(
        sa.select(sa.func.count())
        .select_from(Race)
        .where(Race.owner_id == owner_id, Race.state == OPEN)
    )
    if (count or 0) >= most_open:
        raise TooManyRooms(
            f"you have {count} open rooms already (at most {most_open}): start, leave or "
            "let one expire first"
        )


async def _join(
    session: AsyncSession, code: str, player: PlayerRecord, now: datetime, auto_wait: float
) -> None:
    room = await _locked(session, code)
    if room.entrant(player.id) is not None:
        return
    if room.state != OPEN:
        raise RaceNotOpen("that race has started: join before its countdown")
    if player.bot and not room.allow_bots:
        raise BotsRefused("that room's owner does not allow bot accounts")
    if len(room.entrants) >= room.capacity:
        raise RaceFull(f"that room is full ({room.capacity} racers)")
    session.add(RaceEntrant(race_code=code, player_id=player.id, joined_at=now))
    if room.public and len(room.entrants) + 1 >= 2 and room.auto_start_at is None:
        await session.execute(_update(code, {"auto_start_at": now + timedelta(seconds=auto_wait)}))


async def _locked(session: AsyncSession, code: str) -> RaceRecord:
    """The room, locked for this transaction (its revision bumped)."""
    bumped = await session.execute(
        sa.update(Race)
        .where(Race.code == code)
        .values(revision=Race.revision + 1)
        .execution_options(synchronize_session=False)
    )
    if bumped.rowcount != 1:  # type: ignore[attr-defined]  # a CursorResult
        raise NoSuchRace(f"no race room has the code {code}")
    return (await _records(session, Race.code == code))[code]


def _update(code: str, values: dict[str, Any]) -> sa.Update:
    return (
        sa.update(Race)
        .where(Race.code == code)
        .values(**values)
        .execution_options(synchronize_session=False)
    )


async def _clear_lobby(session: AsyncSession, code: str) -> None:
    """A quick room that started or closed is no longer the one quick races fill."""
    await session.execute(
        sa.update(RaceLobby)
        .where(RaceLobby.code == code)
        .values(code=None)
        .execution_options(synchronize_session=False)
    )


async def _records(session: AsyncSession, where: sa.ColumnElement[bool]) -> dict[str, RaceRecord]:
    rooms = list(
        await session.execute(
            sa.select(*_RACE_COLUMNS)
            .join(Player, Player.id == Race.owner_id)
            .where(where)
            .execution_options(populate_existing=True)  # fresh after this transaction's updates
        )
    )
    if not rooms:
        return {}
    codes = [room.code for room, _ in rooms]
    entrants: dict[str, list[EntrantRecord]] = {code: [] for code in codes}
    query = (
        sa.select(RaceEntrant, Player.name, Player.bot)
        .join(Player, Player.id == RaceEntrant.player_id)
        .where(RaceEntrant.race_code.in_(codes))
        .order_by(RaceEntrant.joined_at, RaceEntrant.player_id)
        .execution_options(populate_existing=True)
    )
    for entrant, name, bot in await session.execute(query):
        entrants[entrant.race_code].append(
            EntrantRecord(
                player_id=entrant.player_id,
                name=name,
                bot=bot,
                joined_at=entrant.joined_at,
                game_id=entrant.game_id,
                place=entrant.place,
                won=entrant.won,
                resigned=entrant.resigned,
                moves=entrant.moves,
                score=entrant.score,
                removed=entrant.removed,
                elapsed=entrant.elapsed,
            )
        )
    return {
        room.code: RaceRecord(
            code=room.code,
            owner_id=room.owner_id,
            owner_name=owner_name,
            suits=room.suits,
            chosen_deal=room.chosen_deal,
            deal=room.deal,
            public=room.public,
            capacity=room.capacity,
            allow_bots=room.allow_bots,
            countdown=room.countdown,
            time_limit=room.time_limit,
            state=room.state,
            revision=room.revision,
            created_at=room.created_at,
            auto_start_at=room.auto_start_at,
            starts_at=room.starts_at,
            ends_at=room.ends_at,
            finished_at=room.finished_at,
            previous=room.previous,
            next=room.next,
            entrants=tuple(entrants[room.code]),
        )
        for room, owner_name in rooms
    }
