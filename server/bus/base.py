"""The bus interface, and its errors.

What the bus raises, under one root::

    BusError
    └── BusUnavailable   Redis did not answer or failed (raised from its own exception by
                         the Redis bus's boundary): nothing was sent
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

#: Called with (day, suits, encoded RaceEvent frame) for every race event on a joined room.
StandingsHandler = Callable[[date, int, str], None]
#: Called with (room code, encoded frame) for every event of a joined race room (rooms of
#: friends racing one fresh deal: server/play/rooms/rooms.py).
RoomHandler = Callable[[str, str], None]
#: Called with the ids of credentials revoked (on any node): whoever is signed in by one
#: here is signed out.
RevokedHandler = Callable[[Sequence[int]], None]
#: Called with (player ids, encoded frame) for a frame to the players of those ids that are
#: online on this node (a friend's finished daily).
PlayersHandler = Callable[[Sequence[int], str], None]


class BusError(Exception):
    """The root of what the bus raises."""


class BusUnavailable(BusError):
    """Redis did not answer or failed (raised from its own exception): nothing was sent."""


#: Race standings outlive a day's race by this much, then expire.
KEEP_SECONDS = 3 * 24 * 3600
#: A day's counts (:meth:`Bus.count_for_day`) outlive the day by this much, then expire.
COUNT_SECONDS = 2 * 24 * 3600


class DayCounts:
    """Counts by name that start again at each new day, in this process: the in-process
    bus's, and a node's own while Redis is out."""

    def __init__(self) -> None:
        self._day: date | None = None
        self._counts: dict[str, int] = {}

    def add(self, day: date, name: str) -> int:
        """One more of ``name`` on ``day``: the count now (a new day starts every count
        again; a day gone by is not counted)."""
        if self._day is None or day > self._day:
            self._day, self._counts = day, {}
        elif day < self._day:
            return 1
        count = self._counts[name] = self._counts.get(name, 0) + 1
        return count


@dataclass(frozen=True, slots=True)
class StandingUpdate:
    """One race event for the bus: ``player``'s standing recorded (``entry``, an encoded
    RaceEntry) or, with ``entry`` None, taken out; then ``event`` (an encoded RaceEvent
    frame) published to every node that joined the race."""

    day: date
    suits: int
    player: str
    entry: str | None
    event: str


class Bus(ABC):
    """Race rooms, and revoked credentials, shared by every node. It holds nothing the
    database cannot rebuild: games are rebuilt from their action log, ranks from the
    results."""

    def __init__(self) -> None:
        self._race_handler: StandingsHandler | None = None
        self._room_handler: RoomHandler | None = None
        self._revoked_handler: RevokedHandler | None = None
        self._players_handler: PlayersHandler | None = None

    def set_standings_handler(self, handler: StandingsHandler) -> None:
        """The one receiver of race events on this node (the node's race rooms)."""
        self._race_handler = handler

    def set_room_handler(self, handler: RoomHandler) -> None:
        """The one receiver of race room events on this node."""
        self._room_handler = handler

    def set_revoked_handler(self, handler: RevokedHandler) -> None:
        """The one receiver of revoked credentials on this node (its accounts)."""
        self._revoked_handler = handler

    def set_players_handler(self, handler: PlayersHandler) -> None:
        """The one receiver of frames to players on this node."""
        self._players_handler = handler

    async def start(self) -> None:  # noqa: B027  # optional hook
        """Connect; the in-process bus has nothing to do."""

    async def close(self) -> None:  # noqa: B027  # optional hook
        """Disconnect and stop background work."""

    def forget_standings_before(self, day: date) -> None:  # noqa: B027  # optional hook
        """Drop the standings of races before ``day`` (Redis lets them expire instead)."""

    @abstractmethod
    async def join_standings(self, day: date, suits: int) -> None:
        """Start receiving the events of a room (this node has a follower there)."""

    @abstractmethod
    async def leave_standings(self, day: date, suits: int) -> None:
        """Stop receiving a room's events (its last follower here left)."""

    @abstractmethod
    async def publish_standings(self, updates: Sequence[StandingUpdate]) -> None:
        """Record and publish several race events, in order: all of them, or (an error)
        none is sure to have gone out. Redis takes them in one round trip."""

    @abstractmethod
    async def standings_entries(self, day: date, suits: int) -> list[str]:
        """Every player's latest standing in a room, as encoded RaceEntry objects."""

    @abstractmethod
    async def join_room(self, code: str) -> None:
        """Start receiving a race room's events (this node has someone in it)."""

    @abstractmethod
    async def leave_room(self, code: str) -> None:
        """Stop receiving a race room's events."""

    @abstractmethod
    async def publish_room(self, code: str, frame: str) -> None:
        """Send an encoded frame to every node in the room (this one too)."""

    @abstractmethod
    async def count_for_day(self, day: date, name: str) -> int:
        """One more of ``name`` on ``day``, counted for every node: the count now (an
        account's reviews of the day, say). Redis keeps it two days."""

    @abstractmethod
    async def publish_revoked(self, credential_ids: Sequence[int]) -> None:
        """Tell every node (this one too) that these credentials are revoked."""

    @abstractmethod
    async def publish_to_players(self, player_ids: Sequence[int], frame: str) -> None:
        """Send ``frame`` to those of ``player_ids`` online on any node (this one too): one
        message, however many they are."""

    def _deliver(self, day: date, suits: int, frame: str) -> None:
        if self._race_handler is not None:
            self._race_handler(day, suits, frame)

    def _deliver_room(self, code: str, frame: str) -> None:
        if self._room_handler is not None:
            self._room_handler(code, frame)

    def _deliver_revoked(self, credential_ids: Sequence[int]) -> None:
        if self._revoked_handler is not None:
            self._revoked_handler(credential_ids)

    def _deliver_to_players(self, player_ids: Sequence[int], frame: str) -> None:
        if self._players_handler is not None:
            self._players_handler(player_ids, frame)
