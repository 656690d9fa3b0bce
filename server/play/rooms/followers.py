"""Who follows each race room on this node (:mod:`.rooms`): a node keeps its followers
of a room, and the room's timers, for as long as it has any; it joins the room's bus
channel with the first and leaves it with the last."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from server.bus import Bus
from server.play.clock import Clock
from server.play.errors import Refused
from server.play.games.player_game import PlayerGame
from server.play.sending import Push
from server.protocol import ErrorCode
from server.store import RaceRecord, RaceStore

from .rules import Follower, RoomSettings
from .timers import FollowedRoom, RoomTimers, Times


class RoomFollowers:
    """The rooms this node follows, and which connection follows which."""

    def __init__(
        self,
        *,
        bus: Bus,
        races: RaceStore,
        clock: Clock,
        settings: RoomSettings,
        timers: RoomTimers,
    ) -> None:
        self._bus = bus
        self._races = races
        self._clock = clock
        self._settings = settings
        self._timers = timers
        self._rooms: dict[str, FollowedRoom] = {}
        self._by_push: dict[Push, set[str]] = {}

    def get(self, code: str) -> FollowedRoom | None:
        return self._rooms.get(code)

    def __iter__(self) -> Iterator[FollowedRoom]:
        return iter(list(self._rooms.values()))

    @property
    def codes(self) -> Iterable[str]:
        return list(self._rooms)

    def may_follow(self, push: Push, code: str | None = None) -> None:
        """Refuse (``too-many-rooms``) a connection following one room more (``code``, or a
        room yet to be opened) than ``settings.watches``, changing nothing: asked before a
        request does its work."""
        following = self._by_push.get(push, ())
        if code in following or len(following) < self._settings.watches:
            return
        raise Refused(
            ErrorCode.TOO_MANY_ROOMS,
            "a connection follows at most %(most)s rooms at once: leave one (race_leave) first",
            params={"most": self._settings.watches},
        )

    async def follow(self, code: str, follower: Follower, record: RaceRecord | None = None) -> None:
        """``follower`` gets the room's events (and, as a racer, their game at the reveal);
        ``record``: the room as just read, if it was."""
        room = self._rooms.get(code)
        if room is None:
            room = self._rooms[code] = FollowedRoom(code)
            await self._bus.join_room(code)
            record = record or await self._races.get(code)
            starts_at = None if record is None else record.starts_at
            # revealed before this node followed it: its racers take their games up by asking
            room.revealed = starts_at is not None and starts_at <= self._clock.now()
        room.followers[follower.push] = follower
        self._by_push.setdefault(follower.push, set()).add(code)
        if record is not None:
            self._timers.learn(room, Times.of(record))

    async def follow_game(self, game: PlayerGame, push: Push) -> None:
        """A connection took up a race game: it follows the game's room, as its racer."""
        if game.race is None:
            return
        room = self._rooms.get(game.race)
        if room is not None and push in room.followers:
            return
        await self.follow(game.race, Follower(push=push, player_id=game.player_id))

    async def unfollow(self, code: str, push: Push) -> None:
        codes = self._by_push.get(push)
        if codes is not None:
            codes.discard(code)
            if not codes:
                del self._by_push[push]
        room = self._rooms.get(code)
        if room is None:
            return
        room.followers.pop(push, None)
        if not room.followers:
            self._timers.cancel(room)
            del self._rooms[code]
            await self._bus.leave_room(code)

    async def forget(self, push: Push) -> None:
        """A connection closed: it follows nothing any more (its racer stays in the race)."""
        for code in list(self._by_push.get(push, ())):
            await self.unfollow(code, push)

    @property
    def count(self) -> int:
        return sum(len(room.followers) for room in self._rooms.values())
