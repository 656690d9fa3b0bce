"""Daily races: everyone on a day's deal for one suit count sees how the race stands.

Every node that has followers of a race joins it on the bus and keeps a mirror of its
standings, fed by the events of every node (one small update per racer's move, linear in
players). Followers never get those events: once a second, while the race changes, the node
sorts its mirror once and sends each follower a digest (:class:`~server.protocol.RaceDigest`)
of the leaders, the rows around the follower's own and the counts, so what a node sends
grows with its followers, not with players times followers.

An action is answered once the database has it, never later for the race: events go out
in order from one sender task, and a bus that fails (Redis down) drops them, counted and
logged, while play goes on.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Final, Literal

from pydantic import ValidationError

from server.bus import Bus, BusError
from server.protocol import ErrorCode, RaceEntry, RaceEvent, RaceEventKind, encode

from .clock import Clock, Timer
from .errors import Refused

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
#: A digest goes to a race's followers at most this often (seconds).
DIGEST_INTERVAL: Final = 1.0
#: The leaders every digest shows, and the rows either side of a follower's own.
TOP_ROWS: Final = 10
AROUND_ROWS: Final = 3
#: Connections of one account that may follow races on one node at once.
FOLLOWS_PER_ACCOUNT: Final = 8


@dataclass
class _Race:
    """This node's mirror of one race, and its followers here (push: player name)."""

    followers: dict[Push, str] = field(default_factory=dict)
    entries: dict[str, RaceEntry] = field(default_factory=dict)
    changed: bool = False  # a follower has the standings from its reply: nothing new yet


class RaceRooms:
    def __init__(self, bus: Bus, clock: Clock) -> None:
        self._bus = bus
        self._clock = clock
        self._races: dict[Room, _Race] = {}
        self._follows: Counter[str] = Counter()
        bus.set_race_handler(self._deliver)
        self._outgoing: deque[tuple[date, int, Announcement, RaceEntry]] = deque()
        self._sender: asyncio.Task[None] | None = None
        self._digest_timer: Timer | None = None
        self._digested_at = -DIGEST_INTERVAL
        #: Events the bus did not take (dropped), and when that was last logged.
        self.dropped = 0
        self._logged_at = -FAILURE_LOG_INTERVAL

    async def follow(self, day: date, suits: int, push: Push, player: str) -> None:
        """Send ``push`` the race's digests from now on, on behalf of account ``player``."""
        race = self._races.get((day, suits))
        if race is not None and push in race.followers:
            return
        if self._follows[player] >= FOLLOWS_PER_ACCOUNT:
            raise Refused(
                ErrorCode.TOO_MANY_FOLLOWS,
                f"an account follows races on at most {FOLLOWS_PER_ACCOUNT} connections",
            )
        if race is None:
            race = self._races[(day, suits)] = _Race()
            await self._bus.join_race(day, suits)  # events from now on, then the stored rows
            for raw in await self._bus.race_entries(day, suits):
                try:
                    entry = RaceEntry.model_validate_json(raw)
                except ValidationError:
                    log.warning("dropped a malformed race entry")
                    continue
                race.entries.setdefault(entry.player, entry)
        race.followers[push] = player
        self._follows[player] += 1

    async def unfollow(self, day: date, suits: int, push: Push) -> None:
        race = self._races.get((day, suits))
        if race is None or push not in race.followers:
            return
        player = race.followers.pop(push)
        self._follows[player] -= 1
        if self._follows[player] <= 0:
            del self._follows[player]
        if not race.followers:
            del self._races[(day, suits)]
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
                now = self._clock.monotonic()
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

    async def standings(
        self, day: date, suits: int, player: str | None = None
    ) -> tuple[list[RaceEntry], Counts]:
        """The race's leaders and the rows around ``player``'s own, ranked, and its counts:
        from this node's mirror when it follows the race, else from the bus."""
        race = self._races.get((day, suits))
        if race is not None:
            entries = list(race.entries.values())
        else:
            entries = []
            for raw in await self._bus.race_entries(day, suits):
                try:
                    entries.append(RaceEntry.model_validate_json(raw))
                except ValidationError:
                    log.warning("dropped a malformed race entry")
        ranked = _ranked(entries)
        own = next((i for i, entry in enumerate(ranked) if entry.player == player), None)
        return [ranked[i] for i in _shown(len(ranked), own)], _counts(ranked)

    def _deliver(self, day: date, suits: int, frame: str) -> None:
        """An event of the race from any node: the mirror takes it in (no follower is told
        now: the next digest shows it)."""
        race = self._races.get((day, suits))
        if race is None:
            return
        try:
            event = RaceEvent.model_validate_json(frame)
        except ValidationError:
            log.warning("dropped a malformed race event")
            return
        entry = event.entry
        if event.event == "left" and entry.finished:  # a finished result withdrawn
            race.entries.pop(entry.player, None)
        else:
            race.entries[entry.player] = entry
        race.changed = True
        self._arm()

    def _arm(self) -> None:
        """Digests go out at once after a quiet second, else a second after the last ones."""
        if self._digest_timer is None:
            wait = self._digested_at + DIGEST_INTERVAL - self._clock.monotonic()
            self._digest_timer = self._clock.call_later(max(0.0, wait), self._send_digests)

    def _send_digests(self) -> None:
        """Each changed race sorted once, then one digest frame per follower."""
        self._digest_timer = None
        self._digested_at = self._clock.monotonic()
        for (day, suits), race in self._races.items():
            if race.changed:
                race.changed = False
                _tell(day, suits, race)
        if any(race.changed for race in self._races.values()):
            self._arm()

    def close(self) -> None:
        if self._digest_timer is not None:
            self._digest_timer.cancel()
            self._digest_timer = None

    @property
    def follower_count(self) -> int:
        return sum(len(race.followers) for race in self._races.values())


@dataclass(frozen=True)
class Counts:
    total: int
    playing: int
    finished: int


def _ranked(entries: list[RaceEntry]) -> list[RaceEntry]:
    ordered = sorted(entries, key=RaceEntry.standing)
    return [entry.model_copy(update={"rank": rank}) for rank, entry in enumerate(ordered, 1)]


def _counts(ranked: list[RaceEntry]) -> Counts:
    finished = sum(entry.finished for entry in ranked)
    return Counts(len(ranked), len(ranked) - finished, finished)


def _shown(total: int, own: int | None) -> list[int]:
    """Which rows a follower sees: the leaders, and the rows around its own place."""
    shown = list(range(min(TOP_ROWS, total)))
    if own is not None and own + AROUND_ROWS >= TOP_ROWS:
        start = max(TOP_ROWS, own - AROUND_ROWS)
        shown.extend(range(start, min(total, own + AROUND_ROWS + 1)))
    return shown


def _tell(day: date, suits: int, race: _Race) -> None:
    """One digest per follower; the rows' JSON made once and shared by every frame."""
    ranked = sorted(race.entries.values(), key=RaceEntry.standing)
    place = {entry.player: i for i, entry in enumerate(ranked)}
    rows: dict[int, str] = {}

    def row(i: int) -> str:
        text = rows.get(i)
        if text is None:
            text = rows[i] = ranked[i].model_copy(update={"rank": i + 1}).model_dump_json()
        return text

    counts = _counts(ranked)
    head = (
        f'{{"type":"race_digest","day":"{day.isoformat()}","suits":{suits},'
        f'"total":{counts.total},"playing":{counts.playing},"finished":{counts.finished},'
        '"players":['
    )
    for push, player in tuple(race.followers.items()):
        push(head + ",".join(row(i) for i in _shown(len(ranked), place.get(player))) + "]}")
