"""The session's answers to the ``race_*`` requests (race rooms: :mod:`server.play.rooms.rooms`).

Each answers with the room's view (``race_room``). Following a room (every request but
``race_leave`` and ``race_start``) is refused ``too-many-rooms`` before any work when the
connection follows as many rooms as it may. A racer who comes back to a room whose
race runs (``race_join`` or ``race_watch``) also gets the ``state`` of their game, taken
up as the connection's game, as they do at the reveal.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from server.play.rooms.rooms import Follower, normal_code
from server.protocol import (
    RaceJoin,
    RaceLeave,
    RaceNew,
    RaceQuick,
    RaceRematch,
    RaceStart,
    RaceWatch,
    Reply,
    ServerMessage,
    encode,
)
from server.store import PlayerRecord, RaceRecord

if TYPE_CHECKING:
    from .session import Session

log = logging.getLogger(__name__)

Replies = list[Reply]


async def _enter(session: Session, record: RaceRecord) -> list[ServerMessage]:
    """Follow a room: as a racer when the player is one (their game at the reveal), else
    as a spectator. A racer back in a race that runs gets their game's state."""
    player = session.player
    entrant = None if player is None else record.entrant(player.id)
    follower = Follower(push=session.push)
    if player is not None and entrant is not None:
        follower = Follower(
            push=session.push, player_id=player.id, reveal=partial(_reveal_to, session)
        )
    await session.hub.rooms.follow(record.code, follower, record)
    if player is None or entrant is None or entrant.game_id is None:
        return []
    if not session.hub.rooms.racing(record):
        return []
    return [await _take_race_game(session, player, record.code, entrant.game_id)]


async def _take_race_game(
    session: Session, player: PlayerRecord, code: str, game_id: str
) -> ServerMessage:
    game = await session.hub.starts.resume(player, game_id)
    game.race = code
    await session._make_current(game)
    return await session._state_reply(None, game)


async def _reveal_to(session: Session, code: str, game_id: str) -> None:
    """The reveal: the racer's game becomes the connection's, and its state is pushed."""
    player = session.player
    if player is None:
        return
    session.push(encode(await _take_race_game(session, player, code, game_id)))


async def race_new(session: Session, message: RaceNew) -> Replies:
    player = session._signed_in_player()
    session.hub.rooms.may_follow(session.push)
    record = await session.hub.rooms.create(player, message)
    await _enter(session, record)
    return [await session.hub.rooms.reply(message.id, record)]


async def race_join(session: Session, message: RaceJoin) -> Replies:
    player = session._signed_in_player()
    session.hub.rooms.may_follow(session.push, normal_code(message.code))
    record = await session.hub.rooms.join(player, message.code)
    games = await _enter(session, record)
    return [await session.hub.rooms.reply(message.id, record), *games]


async def race_quick(session: Session, message: RaceQuick) -> Replies:
    player = session._signed_in_player()
    session.hub.rooms.may_follow(session.push)
    record = await session.hub.rooms.quick(player, message.suits)
    await _enter(session, record)
    return [await session.hub.rooms.reply(message.id, record)]


async def race_watch(session: Session, message: RaceWatch) -> Replies:
    session._signed_in_player()  # following needs an account, as for the daily race
    session.hub.rooms.may_follow(session.push, normal_code(message.code))
    record = await session.hub.rooms.record(message.code)
    games = await _enter(session, record)
    return [await session.hub.rooms.reply(message.id, record), *games]


async def race_leave(session: Session, message: RaceLeave) -> Replies:
    record = await session.hub.rooms.leave(session._signed_in_player(), message.code, session.push)
    return [await session.hub.rooms.reply(message.id, record)]


async def race_start(session: Session, message: RaceStart) -> Replies:
    record = await session.hub.rooms.start(session._signed_in_player(), message.code)
    return [await session.hub.rooms.reply(message.id, record)]


async def race_rematch(session: Session, message: RaceRematch) -> Replies:
    player = session._signed_in_player()
    session.hub.rooms.may_follow(session.push, normal_code(message.code))  # in place of it
    record = await session.hub.rooms.rematch(player, message.code)
    await session.hub.rooms.unfollow(normal_code(message.code), session.push)
    await _enter(session, record)
    return [await session.hub.rooms.reply(message.id, record)]


ROOM_HANDLERS: dict[str, Callable[[Session, Any], Awaitable[Replies]]] = {
    "race_new": race_new,
    "race_join": race_join,
    "race_quick": race_quick,
    "race_watch": race_watch,
    "race_leave": race_leave,
    "race_start": race_start,
    "race_rematch": race_rematch,
}
