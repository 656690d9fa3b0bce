"""Race rooms: everyone on a day's deal for one suit count sees the others play.

A node keeps, per room, the local followers (a push callback per connection) and joins
the room on the bus while it has any. Events from every node arrive through the bus
and are pushed to local followers as they are, already encoded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import date

from pydantic import ValidationError

from server.bus import Bus
from server.protocol import RaceEntry, RaceEvent, encode

log = logging.getLogger(__name__)

#: A follower: takes an encoded frame; must not block (it queues or drops).
Push = Callable[[str], None]
Room = tuple[date, int]


class RaceRooms:
    def __init__(self, bus: Bus) -> None:
        self._bus = bus
        self._rooms: dict[Room, set[Push]] = {}
        bus.set_race_handler(self._deliver)

    async def follow(self, day: date, suits: int, push: Push) -> None:
        followers = self._rooms.get((day, suits))
        if followers is None:
            followers = self._rooms[(day, suits)] = set()
            await self._bus.join_race(day, suits)
        followers.add(push)

    async def unfollow(self, day: date, suits: int, push: Push) -> None:
        followers = self._rooms.get((day, suits))
        if followers is None:
            return
        followers.discard(push)
        if not followers:
            del self._rooms[(day, suits)]
            await self._bus.leave_race(day, suits)

    def following(self, day: date, suits: int, push: Push) -> bool:
        return push in self._rooms.get((day, suits), ())

    async def publish(self, day: date, suits: int, event: str, entry: RaceEntry) -> None:
        frame = encode(RaceEvent(day=day, suits=suits, event=event, entry=entry))  # type: ignore[arg-type]
        await self._bus.publish_race(day, suits, entry.player, entry.model_dump_json(), frame)

    async def standings(self, day: date, suits: int) -> list[RaceEntry]:
        entries = []
        for raw in await self._bus.race_entries(day, suits):
            try:
                entries.append(RaceEntry.model_validate_json(raw))
            except ValidationError:
                log.warning("dropped a malformed race entry")
        entries.sort(key=lambda e: (not e.won, -e.score, e.moves, e.player.lower()))
        return entries

    def _deliver(self, day: date, suits: int, frame: str) -> None:
        for push in tuple(self._rooms.get((day, suits), ())):
            push(frame)

    @property
    def follower_count(self) -> int:
        return sum(len(followers) for followers in self._rooms.values())
