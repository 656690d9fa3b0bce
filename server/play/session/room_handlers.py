"""The answers to the ``race_*`` requests (race rooms: :mod:`server.play.rooms.rooms`).

Each answers with the room's view (``race_room``). Following a room (every request but
``race_leave`` and ``race_start``) is refused ``too-many-rooms`` before any work when the
connection follows as many rooms as it may. A racer who comes back to a room whose
race runs (``race_join`` or ``race_watch``) also gets the ``state`` of their game, taken
up as the connection's game, as they do at the reveal.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import TYPE_CHECKING

from server.play.rooms.rooms import Follower, normal_code
from server.protocol import (
    RaceJoin,
    RaceLeave,
    RaceNew,
    RaceQuick,
    RaceRematch,
    RaceStart,
    RaceWatch,
    ServerMessage,
)
from server.store import PlayerRecord, RaceRecord

if TYPE_CHECKING:
    from server.play.games.player_game import PlayerGame

    from .conversation import Conversation, Replies

log = logging.getLogger(__name__)


async def _enter(conversation: Conversation, record: RaceRecord) -> list[ServerMessage]:
    """Follow a room: as a racer when the player is one (their game at the reveal), else
    as a spectator. A racer back in a race that runs gets their game's state."""
    player = conversation.player
    entrant = None if player is None else record.entrant(player.id)
    follower = Follower(push=conversation.push)
    if player is not None and entrant is not None:
        follower = Follower(
            push=conversation.push, player_id=player.id, reveal=partial(_reveal_to, conversation)
        )
    await conversation.hub.rooms.follow(record.code, follower, record)
    if player is None or entrant is None or entrant.game_id is None:
        return []
    if not conversation.hub.rooms.racing(record):
        return []
    game = await _take_race_game(conversation, player, record.code, entrant.game_id)
    if not game.finished:  # back in the race under way: the others see them again
        conversation.hub.feed.tell(game, "joined")
    return [await conversation.state_reply(None, game)]


async def _take_race_game(
    conversation: Conversation, player: PlayerRecord, code: str, game_id: str
) -> PlayerGame:
    game = await conversation.hub.starts.resume(player, game_id)
    game.race = code
    await conversation.make_current(game)
    return game


async def _reveal_to(conversation: Conversation, code: str, game_id: str) -> None:
    """The reveal: the racer's game becomes the connection's, and its state is pushed."""
    player = conversation.player
    if player is None:
        return
    game = await _take_race_game(conversation, player, code, game_id)
    conversation.send(await conversation.state_reply(None, game))


async def race_new(conversation: Conversation, message: RaceNew) -> Replies:
    player = conversation.signed_in_player()
    conversation.hub.rooms.may_follow(conversation.push)
    record = await conversation.hub.rooms.create(player, message)
    await _enter(conversation, record)
    return [await conversation.hub.rooms.reply(message.id, record)]


async def race_join(conversation: Conversation, message: RaceJoin) -> Replies:
    player = conversation.signed_in_player()
    conversation.hub.rooms.may_follow(conversation.push, normal_code(message.code))
    record = await conversation.hub.rooms.join(player, message.code)
    games = await _enter(conversation, record)
    return [await conversation.hub.rooms.reply(message.id, record), *games]


async def race_quick(conversation: Conversation, message: RaceQuick) -> Replies:
    player = conversation.signed_in_player()
    conversation.hub.rooms.may_follow(conversation.push)
    record = await conversation.hub.rooms.quick(player, message.suits)
    await _enter(conversation, record)
    return [await conversation.hub.rooms.reply(message.id, record)]


async def race_watch(conversation: Conversation, message: RaceWatch) -> Replies:
    conversation.signed_in_player()  # following needs an account, as for the daily race
    conversation.hub.rooms.may_follow(conversation.push, normal_code(message.code))
    record = await conversation.hub.rooms.record(message.code)
    games = await _enter(conversation, record)
    return [await conversation.hub.rooms.reply(message.id, record), *games]


async def race_leave(conversation: Conversation, message: RaceLeave) -> Replies:
    record = await conversation.hub.rooms.leave(
        conversation.signed_in_player(), message.code, conversation.push
    )
    return [await conversation.hub.rooms.reply(message.id, record)]


async def race_start(conversation: Conversation, message: RaceStart) -> Replies:
    record = await conversation.hub.rooms.start(conversation.signed_in_player(), message.code)
    return [await conversation.hub.rooms.reply(message.id, record)]


async def race_rematch(conversation: Conversation, message: RaceRematch) -> Replies:
    player = conversation.signed_in_player()
    conversation.hub.rooms.may_follow(
        conversation.push, normal_code(message.code)
    )  # in place of it
    record = await conversation.hub.rooms.rematch(player, message.code)
    await conversation.hub.rooms.unfollow(normal_code(message.code), conversation.push)
    await _enter(conversation, record)
    return [await conversation.hub.rooms.reply(message.id, record)]
