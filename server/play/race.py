"""Race rooms: everyone on a day's deal for one suit count sees the others play.

A node keeps, per room, the local followers (a push callback per connection) and joins
the room on the bus while it has any. Events from every node arrive through the bus
and are pushed to local followers as they are, already encoded.

An action is answered once the database has it, never later for the race: events go out
in order from one sender task, and a bus that fails (Redis down) drops them, counted and
logged, while play goes on.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Callable
from datetime import date
from typing import Final, Literal

from pydantic import ValidationError

from server.bus import Bus, BusError
from server.protocol import RaceEntry, RaceEvent, RaceEventKind, encode

log = logging.getLogger(__name__)

#: A follower: takes an encoded frame; must not block (it queues or drops).
Push = Callable[[str], None]
Room = tuple[date, int]
#: A failing bus is logged at most this often (seconds).
FAILURE_LOG_INTERVAL = 10.0
#: Events waiting for a slow bus; past this many the oldest are dropped.
MOST_WAITING = 10_000
#: Announced for a result held for fair-play review: the player leaves the standings (the
#: others see "left").
WITHDRAWN: Final = "withdrawn"
#: What a game announces to its race: an event, or its result withdrawn for review.
Announcement = RaceEventKind | Literal["withdrawn"]


class RaceRooms:
    def __init__(self, bus: Bus) -> None:
        self._bus = bus
        self._rooms: dict[Room, set[Push]] = {}
        bus.set_race_handler(self._deliver)
        self._outgoing: deque[tuple[date, int, Announcement, RaceEntry]] = deque()
        self._sender: asyncio.Task[None] | None = None
        #: Events the bus did not take (dropped), and when that was last logged.
        self.dropped = 0
        self._logged_at = -FAILURE_LOG_INTERVAL

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

    def announce(self, day: date, suits: int, event: Announcement, entry: RaceEntry) -> None:
        """Send an event to the room soon, after those announced before it; never blocks."""
        if len(self._outgoing) >= MOST_WAITING:
            self._outgoing.popleft()
            self.dropped += 1
        self._outgoing.append((day, suits, event, entry))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._send(), name="race-sender")

    async def flush(self) -> None:
        """Wait until every announced event went to the bus (or was dropped)."""
        while self._sender is not None and not self._sender.done():
            await asyncio.shield(self._sender)

    async def _send(self) -> None:
        while self._outgoing:
            day, suits, event, entry = self._outgoing.popleft()
            try:
                await self.publish(day, suits, event, entry)
            except BusError as error:
                self.dropped += 1
                now = time.monotonic()
                if now - self._logged_at >= FAILURE_LOG_INTERVAL:
                    self._logged_at = now
                    log.warning("race events dropped (%d so far): %s", self.dropped, error)

    async def publish(self, day: date, suits: int, event: Announcement, entry: RaceEntry) -> None:
        if event == WITHDRAWN:
            frame = encode(RaceEvent(day=day, suits=suits, event="left", entry=entry))
            await self._bus.drop_race_entry(day, suits, entry.player, frame)
            return
        frame = encode(RaceEvent(day=day, suits=suits, event=event, entry=entry))
        await self._bus.publish_race(day, suits, entry.player, entry.model_dump_json(), frame)

    async def standings(self, day: date, suits: int) -> list[RaceEntry]:
        entries = []
        for raw in await self._bus.race_entries(day, suits):
            try:
                entries.append(RaceEntry.model_validate_json(raw))
            except ValidationError:
                log.warning("dropped a malformed race entry")
        entries.sort(key=RaceEntry.standing)
        return entries

    def _deliver(self, day: date, suits: int, frame: str) -> None:
        for push in tuple(self._rooms.get((day, suits), ())):
            push(frame)

    @property
    def follower_count(self) -> int:
        return sum(len(followers) for followers in self._rooms.values())
