"""Race rooms' events across nodes (:mod:`.rooms`): a room's changes go out on its bus
channel (Redis pub/sub) in order from one sender task, never blocking the request that
made them; what comes in goes to this node's followers of the room, and a new view of
the room also sets this node's timers. A failing bus drops events, counted and logged:
a node catches up from the database at its next sweep."""

from __future__ import annotations

import logging
from typing import assert_never

from pydantic import ValidationError

from server.bus import Bus
from server.play.clock import Clock
from server.play.daily.standings import WITHDRAWN, Announcement
from server.play.games.player_game import PlayerGame
from server.play.games.standing import room_entry
from server.play.sending import BusSender
from server.protocol import (
    RaceEvent,
    RaceRoom,
    RaceUpdate,
    RoomEventKind,
    encode,
    parse_node_message,
)
from server.store import RaceRecord

from .followers import RoomFollowers
from .timers import RoomTimers, Times
from .views import RoomViews

log = logging.getLogger(__name__)


class RoomFanout:
    """Room events out to every node's followers, and in from the bus to this node's."""

    def __init__(
        self,
        *,
        bus: Bus,
        clock: Clock,
        views: RoomViews,
        followers: RoomFollowers,
        timers: RoomTimers,
    ) -> None:
        self._bus = bus
        self._views = views
        self._followers = followers
        self._timers = timers
        self._sender: BusSender[tuple[str, str]] = BusSender(
            self._publish, clock, what="race room events"
        )
        bus.set_room_handler(self._deliver)

    async def changed(self, record: RaceRecord, event: RoomEventKind) -> None:
        """A room changed here: every node's followers get its view; this node's timers
        follow it at once."""
        room = self._followers.get(record.code)
        if room is not None:
            self._timers.learn(room, Times.of(record))
        await self.publish_view(record, event)

    async def publish_view(self, record: RaceRecord, event: RoomEventKind) -> None:
        self._send(record.code, encode(await self._views.reply(None, record, event)))

    def announce(self, game: PlayerGame, event: Announcement) -> None:
        """A racer's game changed: tell the room soon, after what was told before (the race
        feed calls this, with moves thinned out); never blocks. A result withdrawn for
        review is no event of a room: its racers see the result at the race's end."""
        if game.race is None or event == WITHDRAWN:
            return
        frame = encode(RaceUpdate(code=game.race, event=event, entry=room_entry(game)))
        self._send(game.race, frame)

    def _send(self, code: str, frame: str) -> None:
        self._sender.put((code, frame))

    async def _publish(self, frames: list[tuple[str, str]]) -> None:
        for code, frame in frames:
            await self._bus.publish_room(code, frame)

    async def flush(self) -> None:
        """Wait until every event went to the bus (or was dropped)."""
        await self._sender.flush()

    @property
    def dropped(self) -> int:
        """Events the bus did not take."""
        return self._sender.dropped

    def _deliver(self, code: str, frame: str) -> None:
        """An event of a room from the bus (a :data:`~server.protocol.NodeMessage`, read
        whole): to this node's followers as it came; a new view of the room also sets this
        node's timers. A frame that is no room's event is dropped."""
        room = self._followers.get(code)
        if room is None:
            return
        try:
            message = parse_node_message(frame)
        except ValidationError:
            log.warning("dropped a malformed race room frame")
            return
        match message:
            case RaceRoom():
                self._timers.learn(room, Times.of_view(message.room))  # before the racers hear
            case RaceUpdate():
                pass
            case RaceEvent():  # a daily race's: never on a room's channel
                log.warning("dropped a daily race event sent to a race room")
                return
            case _:
                assert_never(message)
        room.push(frame)
