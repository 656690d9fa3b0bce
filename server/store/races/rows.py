"""The race rooms' work inside one transaction (:mod:`server.store.races`): a room read or
locked, a racer put in, a room added, the quick join, the racers' games created."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, cast

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from server.kinds import Figures, Result
from server.store.models import GameRow, Player, Race, RaceEntrant, RaceLobby
from server.store.records import PlayerRecord

from .errors import RaceRefused, Refusal
from .records import (
    EXPIRED,
    OPEN,
    OVER,
    ROOM_OPTIONS,
    EntrantRecord,
    RaceRecord,
    RaceState,
    RoomOptions,
)

_RACE_COLUMNS = (Race, Player.name)
#: Why a room that is not open takes no one (the refusal's code is the same: not open).
_STARTED = "that race has started: join before its countdown"
_NOT_OPEN = {
    EXPIRED: "that room has closed: its race never started; open a new one",
    OVER: "that race is over: its results are on its page",
}


def result_of(game: GameRow) -> Result | None:
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


def add_room(
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
            **dataclasses.asdict(options),  # each option is the room's column of its name
            state=OPEN,
            revision=1,
            created_at=now,
            previous=previous,
        )
    )
    session.add(RaceEntrant(race_code=code, player_id=owner_id, joined_at=now))


async def may_open(session: AsyncSession, owner_id: int, most_open: int | None) -> None:
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
        raise RaceRefused(
            Refusal.TOO_MANY,
            f"you have {count} open rooms already (at most {most_open}): start, leave or "
            "let one expire first",
            {"count": count, "most": most_open},
        )


async def join_room(
    session: AsyncSession, code: str, player: PlayerRecord, now: datetime, auto_wait: float
) -> None:
    room = await locked(session, code)
    if room.entrant(player.id) is not None:
        return
    if room.state != OPEN:
        raise RaceRefused(Refusal.NOT_OPEN, _NOT_OPEN.get(room.state, _STARTED))
    if player.bot and not room.allow_bots:
        raise RaceRefused(Refusal.BOTS, "that room's owner does not allow bot accounts")
    if len(room.entrants) >= room.capacity:
        raise RaceRefused(
            Refusal.FULL, f"that room is full ({room.capacity} racers)", {"capacity": room.capacity}
        )
    session.add(RaceEntrant(race_code=code, player_id=player.id, joined_at=now))
    if room.public and len(room.entrants) + 1 >= 2 and room.auto_start_at is None:
        auto_start_at = now + timedelta(seconds=auto_wait)
        await session.execute(update_room(code, {"auto_start_at": auto_start_at}))


async def locked(session: AsyncSession, code: str) -> RaceRecord:
    """The room, locked for this transaction (its revision bumped)."""
    bumped = await session.execute(
        sa.update(Race)
        .where(Race.code == code)
        .values(revision=Race.revision + 1)
        .execution_options(synchronize_session=False)
    )
    if bumped.rowcount != 1:  # type: ignore[attr-defined]  # a CursorResult
        raise RaceRefused(Refusal.MISSING, f"no race room has the code {code}", {"code": code})
    return (await read_rooms(session, Race.code == code))[code]


def update_room(code: str, values: dict[str, Any]) -> sa.Update:
    return (
        sa.update(Race)
        .where(Race.code == code)
        .values(**values)
        .execution_options(synchronize_session=False)
    )


async def clear_lobby(session: AsyncSession, code: str) -> None:
    """A quick room that started or closed is no longer the one quick races fill."""
    await session.execute(
        sa.update(RaceLobby)
        .where(RaceLobby.code == code)
        .values(code=None)
        .execution_options(synchronize_session=False)
    )


async def read_rooms(session: AsyncSession, where: sa.ColumnElement[bool]) -> dict[str, RaceRecord]:
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
                # the result's columns are written together, with the place
                result=None
                if entrant.place is None
                else Figures.model_validate(entrant, from_attributes=True),
            )
        )
    return {
        room.code: RaceRecord(
            code=room.code,
            owner_id=room.owner_id,
            owner_name=owner_name,
            **{name: getattr(room, name) for name in ROOM_OPTIONS},  # columns of their names
            deal=room.deal,
            state=cast(RaceState, room.state),  # the table's check constraint holds it to these
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


async def quick_join(
    session: AsyncSession,
    insert: Callable[..., Any],
    player: PlayerRecord,
    options: RoomOptions,
    now: datetime,
    new_code: Callable[[], str],
    auto_wait: float,
) -> str | RaceRecord:
    """The quick join's transaction: the code of the room joined, or the room the player
    was in already; ``insert``: the database's INSERT (with its ON CONFLICT)."""
    # people's lobby, or (rooms that take bots) the bots' own
    lobby = (RaceLobby.suits == options.suits, RaceLobby.bots == options.allow_bots)
    await session.execute(
        insert(RaceLobby)
        .values(suits=options.suits, bots=options.allow_bots, code=None)
        .on_conflict_do_nothing(index_elements=["suits", "bots"])
    )
    # the lobby's row lock: quick joins of one lobby take turns
    await session.execute(
        sa.update(RaceLobby)
        .where(*lobby)
        .values(code=RaceLobby.code)
        .execution_options(synchronize_session=False)
    )
    current = await session.scalar(sa.select(RaceLobby.code).where(*lobby))
    code = None
    if current is not None:
        room = (await read_rooms(session, Race.code == current)).get(current)
        if room is not None and room.entrant(player.id) is not None:
            return room
        if room is not None and room.state == OPEN and len(room.entrants) < room.capacity:
            await join_room(session, current, player, now, auto_wait)
            code = current
    if code is None:
        code = new_code()
        add_room(session, code, player.id, options, now, None)
        await session.flush()
        await session.execute(
            sa.update(RaceLobby)
            .where(*lobby)
            .values(code=code)
            .execution_options(synchronize_session=False)
        )
    return code


async def add_games(
    session: AsyncSession, room: RaceRecord, deal: str, starts_at: datetime
) -> None:
    """Every racer's game of a room whose countdown begins, all starting at the reveal."""
    code = room.code
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
            .where(RaceEntrant.race_code == code, RaceEntrant.player_id == entrant.player_id)
            .values(game_id=game_id)
            .execution_options(synchronize_session=False)
        )
