"""What the race rooms' queries hand out and take (:mod:`server.store.races`): a room's
record with its racers, a new room's options, a racer's result, a room whose time came."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal

from server.kinds import COUNTDOWN, MOST_RACERS, TIME_LIMIT, Figures

from .errors import RaceRefused, Refusal

#: A room's states in the database (the play layer splits ``started`` into countdown and
#: racing by the clock: :data:`server.kinds.RoomState`).
RaceState = Literal["open", "started", "over", "expired"]
OPEN: Final = "open"
STARTED: Final = "started"
OVER: Final = "over"
EXPIRED: Final = "expired"


@dataclass(frozen=True)
class EntrantRecord:
    player_id: int
    name: str
    bot: bool
    joined_at: datetime
    game_id: str | None  # from the countdown on
    # the place and the result, once the race is over
    place: int | None = None
    result: Figures | None = None


@dataclass(frozen=True)
class RoomOptions:
    """What a room is made with, besides its owner and code (its rematch: the same, with a
    fresh deal)."""

    suits: int
    chosen_deal: str | None = None
    public: bool = False
    capacity: int = MOST_RACERS
    allow_bots: bool = False
    countdown: float = COUNTDOWN
    time_limit: float = TIME_LIMIT

    def options(self) -> RoomOptions:
        """Just the options (of a room's record: what its rematch is made with)."""
        return RoomOptions(**{name: getattr(self, name) for name in ROOM_OPTIONS})


#: The options' names, each also a column of the room's table.
ROOM_OPTIONS: Final = tuple(field.name for field in dataclasses.fields(RoomOptions))


@dataclass(frozen=True, kw_only=True)
class RaceRecord(RoomOptions):
    """A room: its options, its state and times, its racers."""

    code: str
    owner_id: int
    owner_name: str
    deal: str | None
    state: RaceState
    revision: int
    created_at: datetime
    auto_start_at: datetime | None
    starts_at: datetime | None
    ends_at: datetime | None
    finished_at: datetime | None
    previous: str | None
    next: str | None
    entrants: tuple[EntrantRecord, ...]  # in the order they joined

    def entrant(self, player_id: int) -> EntrantRecord | None:
        return next((e for e in self.entrants if e.player_id == player_id), None)

    def may_start(self, by: int | None) -> None:
        """Refuse (:class:`RaceRefused`) to begin the countdown unless the room is open, has
        two racers, and ``by`` is its owner (None: a public room by itself)."""
        if self.state != OPEN:
            raise RaceRefused(Refusal.NOT_OPEN, "the race has started already")
        if by is not None and self.entrant(by) is None:
            raise RaceRefused(Refusal.NOT_ENTRANT, "you are not in that room")
        if by is not None and self.owner_id != by:
            raise RaceRefused(Refusal.NOT_OWNER, "only the room's owner starts the race")
        if len(self.entrants) < 2:
            raise RaceRefused(Refusal.TOO_FEW, "a race needs at least 2 racers")


@dataclass(frozen=True)
class EntrantResult:
    """One racer's line of a race's results."""

    player_id: int
    place: int
    result: Figures


@dataclass(frozen=True)
class Due:
    """A room whose time came while perhaps no node watched it: ``what`` is ``start`` (a
    public room's countdown), ``end`` (its time limit, or every racer done) or ``expire``
    (open for too long)."""

    code: str
    what: Literal["start", "end", "expire"]
