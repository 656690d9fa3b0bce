"""The day's live standings: everyone on a day's deal for one suit count sees where they stand.

(The protocol's messages keep the name ``race`` for them, from its first version; in this
package "race" means a race room and only that, :mod:`server.play.rooms`.)

Every node that has followers of a day's standings joins them on the bus and keeps a mirror,
fed by the events of every node (one small update per player's move, linear in players),
kept in order as it changes, so that a place or a follower's rows never need everyone
sorted. Followers never get those events: at most once a second, while the standings
change, the node sends each follower a digest (:class:`~server.protocol.RaceDigest`) of the
leaders, the rows around the follower's own and the counts, so what a node sends grows with
its followers, not with players times followers. Every follower who sees only the leaders
(most: those who do not play, and the leaders themselves) gets one frame made once, and a
round over thousands of followers is told a slice at a time, the slices spread over half a
second, so that moves are answered between them.

An action is answered once the database has it, never later for the standings: events go
out in order from one sender task, players' moves gathered into batches, and a bus that
fails (Redis down) drops them, counted and logged, while play goes on.
"""

from __future__ import annotations

import logging
from bisect import bisect_left, insort
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Final, Literal

from pydantic import ValidationError

from server.bus import Bus, BusError, StandingUpdate
from server.play.clock import Clock, Timer
from server.play.errors import Refused
from server.play.sending import BusSender, Push
from server.protocol import (
    ErrorCode,
    RaceEntry,
    RaceEvent,
    RaceEventKind,
    encode,
    parse_node_message,
)

log = logging.getLogger(__name__)

Room = tuple[date, int]
#: Waiting events sent to the bus together (one Redis round trip).
EVENTS_PER_BATCH: Final = 200
#: How long the sender gathers events before a batch goes to the bus, unless a full batch
#: waits or something hurries it (:meth:`DailyStandings.flush`, an event that does not gather):
#: followers see the events in a digest at most once a second anyway, and a batch costs a
#: node nearly as much, to send and for every node to read, for one event as for a hundred.
EVENTS_GATHER: Final = 0.05
#: The events that gather: a racer's moves, the bulk. A join, an end or a withdrawal goes
#: at once (with what waits), so that every node knows of it as soon as it is answered.
_GATHERED: Final = frozenset({"moved", "removed"})
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
#: Followers told in one turn of the event loop: a digest round over more is told in
#: slices, so that no move waits behind a whole round. A frame's write to a loopback
#: socket was measured at up to 0.1 ms on a loaded machine: 25 keep a slice near 2.5 ms.
DIGEST_SLICE: Final = 25
#: A round's slices are spread evenly over this long (seconds), so that a node's thousands
#: of frames, and the work of reading them, do not all fall in one burst: a move sent at
#: any moment meets a few slices at most. The next round begins a second after a round
#: ends, so a big race's followers get a digest about every 1.5 s.
DIGEST_SPREAD: Final = 0.5

#: An entry's place in the race's order: its standing, then the name (never equal).
_Key = tuple[bool, int, int, str, str]


def _key(entry: RaceEntry) -> _Key:
    return (*entry.standing(), entry.player)


class _Standings:
    """A race's entries, kept in the race's order as they change: an event moves one entry
    (a bisection), a place is a bisection, and the leaders or the rows around a place are
    read off the order, whatever the race's size."""

    __slots__ = ("_json", "_order", "entries", "finished", "version")

    def __init__(self, entries: Iterable[RaceEntry] = ()) -> None:
        self.entries: dict[str, RaceEntry] = {}
        self._order: list[_Key] = []
        self._json: dict[str, str] = {}  # an entry's JSON without its rank, once shown
        self.finished = 0
        self.version = 0  # moves on with every change: what was made from the rows is stale
        self.load(entries)

    def __len__(self) -> int:
        return len(self._order)

    def put(self, entry: RaceEntry) -> None:
        self.pop(entry.player)
        self.entries[entry.player] = entry
        insort(self._order, _key(entry))
        self.finished += entry.finished
        self.version += 1

    def pop(self, player: str) -> None:
        old = self.entries.pop(player, None)
        if old is not None:
            del self._order[bisect_left(self._order, _key(old))]
            self._json.pop(player, None)
            self.finished -= old.finished
            self.version += 1

    def load(self, entries: Iterable[RaceEntry]) -> None:
        """The entries of players not known yet (those known came later: they are newer),
        the race sorted once."""
        for entry in entries:
            self.entries.setdefault(entry.player, entry)
        self._order = sorted(map(_key, self.entries.values()))
        self.finished = sum(entry.finished for entry in self.entries.values())
        self.version += 1

    def place(self, player: str | None) -> int | None:
        """``player``'s row (0 for the leader), or None for one not in the race."""
        entry = self.entries.get(player) if player is not None else None
        return None if entry is None else bisect_left(self._order, _key(entry))

    def at(self, row: int) -> RaceEntry:
        return self.entries[self._order[row][-1]]

    def ranked(self, row: int) -> RaceEntry:
        """The entry in ``row`` with its rank."""
        return self.at(row).model_copy(update={"rank": row + 1})

    def row_json(self, row: int) -> str:
        """``ranked(row)`` as JSON: the entry's own JSON is made once while it stands, and
        only the rank, which any racer's move may change, is written each time."""
        player = self._order[row][-1]
        text = self._json.get(player)
        if text is None:
            text = self._json[player] = self.entries[player].model_dump_json(exclude={"rank"})
        return f'{text[:-1]},"rank":{row + 1}}}'

    def counts(self) -> Counts:
        return Counts(len(self._order), len(self._order) - self.finished, self.finished)


@dataclass
class _Race:
    """This node's mirror of one race, and its followers here (push: player name)."""

    followers: dict[Push, str] = field(default_factory=dict)
    standings: _Standings = field(default_factory=_Standings)
    changed: bool = False  # a follower has the standings from its reply: nothing new yet
    loaded: bool = False  # the standings the bus holds are in (not yet: it was out)


class DailyStandings:
    """The standings of each day's deal this node has followers of, mirrored from the bus."""

    def __init__(self, bus: Bus, clock: Clock) -> None:
        self._bus = bus
        self._clock = clock
        self._races: dict[Room, _Race] = {}
        self._follows: Counter[str] = Counter()
        bus.set_standings_handler(self._deliver)
        self._sender: BusSender[StandingUpdate] = BusSender(
            bus.publish_standings,
            clock,
            what="race events",
            batch=EVENTS_PER_BATCH,
            gather=EVENTS_GATHER,
        )
        self._digest_timer: Timer | None = None
        self._digested_at = -DIGEST_INTERVAL
        #: The digest round under way, and the timer of its next slice.
        self._round: _Round | None = None
        self._next_slice: Timer | None = None

    def may_follow(self, day: date, suits: int, push: Push, player: str) -> None:
        """Refuse (``too-many-follows``) what :meth:`follow` would refuse, changing nothing:
        asked before work that must not be done for a refused request."""
        race = self._races.get((day, suits))
        if race is not None and push in race.followers:
            return
        if self._follows[player] >= FOLLOWS_PER_ACCOUNT:
            raise Refused(
                ErrorCode.TOO_MANY_FOLLOWS,
                "an account follows races on at most %(most)s connections",
                params={"most": FOLLOWS_PER_ACCOUNT},
            )

    async def follow(self, day: date, suits: int, push: Push, player: str) -> None:
        """Send ``push`` the race's digests from now on, on behalf of account ``player``."""
        self.may_follow(day, suits, push, player)
        race = self._races.get((day, suits))
        if race is not None and push in race.followers:
            return
        if race is None:
            race = self._races[(day, suits)] = _Race()
            await self._bus.join_standings(day, suits)  # events from now on, then the stored rows
            # Redis out: a daily is started and resumed all the same; the stored rows are
            # read again when the race's standings are asked for
            await self._load(day, suits, race)
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
            await self._bus.leave_standings(day, suits)

    def announce(self, day: date, suits: int, event: Announcement, entry: RaceEntry) -> None:
        """Send an event to the room soon, after those announced before it; never blocks."""
        self._sender.put(_update(day, suits, event, entry), hurry=event not in _GATHERED)

    async def flush(self) -> None:
        """Wait until every announced event went to the bus (or was dropped), sending what
        waits at once."""
        await self._sender.flush()

    @property
    def dropped(self) -> int:
        """Events the bus did not take."""
        return self._sender.dropped

    async def publish(self, day: date, suits: int, event: Announcement, entry: RaceEntry) -> None:
        """Send one event to the bus now (the announced ones go through :meth:`announce`)."""
        await self._bus.publish_standings([_update(day, suits, event, entry)])

    async def standings(
        self, day: date, suits: int, player: str | None = None
    ) -> tuple[list[RaceEntry], Counts]:
        """The race's leaders and the rows around ``player``'s own, ranked, and its counts:
        from this node's mirror when it follows the race, else from the bus."""
        race = self._races.get((day, suits))
        if race is not None:
            if not race.loaded:
                await self._load(day, suits, race)
            standings = race.standings
        else:
            standings = _Standings(await self._stored(day, suits))
        rows = _shown(len(standings), standings.place(player))
        return [standings.ranked(row) for row in rows], standings.counts()

    async def _load(self, day: date, suits: int, race: _Race) -> None:
        """Take the race's stored rows into its mirror; a failing bus leaves it as it was,
        to be loaded later."""
        try:
            race.standings.load(await self._stored(day, suits))
        except BusError as error:
            self._sender.failed(error, "race standings not read")
            return
        race.loaded = True

    async def _stored(self, day: date, suits: int) -> list[RaceEntry]:
        """The race's entries as the bus holds them."""
        entries = []
        for raw in await self._bus.standings_entries(day, suits):
            try:
                entries.append(RaceEntry.model_validate_json(raw))
            except ValidationError:
                log.warning("dropped a malformed race entry")
        return entries

    def _deliver(self, day: date, suits: int, frame: str) -> None:
        """An event of the race from any node: the mirror takes it in (no follower is told
        now: the next digest shows it)."""
        race = self._races.get((day, suits))
        if race is None:
            return
        try:
            event = parse_node_message(frame)
        except ValidationError:
            log.warning("dropped a malformed race event")
            return
        if type(event) is not RaceEvent:  # a room's: never on a daily race's channel
            log.warning("dropped a race room's event sent to a daily race")
            return
        entry = event.entry
        if event.event == "left" and entry.finished:  # a finished result withdrawn
            race.standings.pop(entry.player)
        else:
            race.standings.put(entry)
        race.changed = True
        self._arm()

    def _arm(self) -> None:
        """Digests go out at once after a quiet second, else a second after the last round
        ended (so no follower gets two within a second, wherever its slice fell)."""
        if self._digest_timer is None and self._round is None:
            wait = self._digested_at + DIGEST_INTERVAL - self._clock.monotonic()
            self._digest_timer = self._clock.call_later(max(0.0, wait), self._send_digests)

    def _send_digests(self) -> None:
        """A round begins: its first slice now."""
        self._digest_timer = None
        changed = [(room, race) for room, race in self._races.items() if race.changed]
        self._round = _Round(changed, self._clock.monotonic())
        self._tell_slice()

    def _tell_slice(self) -> None:
        self._next_slice = None
        due = self._round.tell() if self._round is not None else None
        if due is not None:  # at once when behind: still the loop's next turn, not this one
            wait = max(0.0, due - self._clock.monotonic())
            self._next_slice = self._clock.call_later(wait, self._tell_slice)
            return
        self._round = None
        self._digested_at = self._clock.monotonic()
        if any(race.changed for race in self._races.values()):
            self._arm()

    def close(self) -> None:
        if self._digest_timer is not None:
            self._digest_timer.cancel()
            self._digest_timer = None
        if self._next_slice is not None:
            self._next_slice.cancel()
            self._next_slice = None
        self._round = None

    @property
    def follower_count(self) -> int:
        return sum(len(race.followers) for race in self._races.values())


class _Round:
    """A digest round under way: the followers of the races that changed, a slice of them
    at a time, the slices spread evenly over DIGEST_SPREAD."""

    def __init__(self, races: list[tuple[Room, _Race]], started: float) -> None:
        followers = sum(len(race.followers) for _, race in races)
        self._gap = DIGEST_SPREAD / max(1, -(-followers // DIGEST_SLICE))
        self._started = started
        self._told = 0
        self._slices = _slices(races)

    def tell(self) -> float | None:
        """Tell the next slice; when the one after it is due (None: the round is over)."""
        if not next(self._slices, False):
            return None
        self._told += 1
        return self._started + self._told * self._gap


def _slices(races: list[tuple[Room, _Race]]) -> Iterator[bool]:
    """Each race's followers told, DIGEST_SLICE of them a step (True: more to come). A
    follower that left before its slice is not told, one that came meanwhile has the
    standings from its reply; a change meanwhile shows in the frames made after it, and
    makes the race changed again for the next round."""
    told = 0
    for (day, suits), race in races:
        race.changed = False
        frames = _Frames(day, suits, race.standings)
        for push in tuple(race.followers):
            if told == DIGEST_SLICE:
                yield True
                told = 0
            player = race.followers.get(push)  # None: it left before its slice
            if player is None:
                continue
            try:
                push(frames.frame(player))
            except Exception:  # a bug: the others are still told, and the rounds go on
                log.exception("a race digest was not pushed")
            told += 1


def _update(day: date, suits: int, event: Announcement, entry: RaceEntry) -> StandingUpdate:
    """What the bus records and publishes for an event: a result withdrawn for review
    leaves the standings, and the others see it as "left"."""
    if event == WITHDRAWN:
        frame = encode(RaceEvent(day=day, suits=suits, event="left", entry=entry))
        return StandingUpdate(day, suits, entry.player, None, frame)
    frame = encode(RaceEvent(day=day, suits=suits, event=event, entry=entry))
    return StandingUpdate(day, suits, entry.player, entry.model_dump_json(), frame)


@dataclass(frozen=True)
class Counts:
    total: int
    playing: int
    finished: int


def _shown(total: int, own: int | None) -> list[int]:
    """Which rows a follower sees: the leaders, and the rows around its own place."""
    return [*range(min(TOP_ROWS, total)), *_around(total, own)]


def _around(total: int, own: int | None) -> range:
    """The rows around a follower's own place that are not among the leaders."""
    if own is None or own + AROUND_ROWS < TOP_ROWS:
        return range(0)
    return range(max(TOP_ROWS, own - AROUND_ROWS), min(total, own + AROUND_ROWS + 1))


class _Frames:
    """A round's digest frames for one race: the leaders' rows joined once, and their frame
    shared by every follower who sees only them (most: those who do not race, and the
    leaders); made again when the race changed since (the round yields between slices, and
    events come in meanwhile)."""

    def __init__(self, day: date, suits: int, standings: _Standings) -> None:
        self._standings = standings
        self._start = f'{{"type":"race_digest","day":"{day.isoformat()}","suits":{suits},'
        self._version = -1
        self._head = ""
        self._leaders = ""

    def frame(self, player: str) -> str:
        standings = self._standings
        if standings.version != self._version:
            self._version = standings.version
            counts = standings.counts()
            self._head = (
                f'{self._start}"total":{counts.total},"playing":{counts.playing},'
                f'"finished":{counts.finished},"players":['
                + ",".join(map(standings.row_json, range(min(TOP_ROWS, counts.total))))
            )
            self._leaders = self._head + "]}"
        around = _around(len(standings), standings.place(player))
        if not around:
            return self._leaders
        return f"{self._head},{','.join(map(standings.row_json, around))}]}}"
