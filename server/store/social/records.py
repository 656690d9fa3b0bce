"""The store's records of follows and leagues."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime


@dataclass(frozen=True)
class Followed:
    """A player on one end of a follow (or a block), and since when."""

    player_id: int
    name: str
    since: datetime


@dataclass(frozen=True)
class LeagueRecord:
    id: int
    code: str
    name: str
    owner_id: int
    owner_name: str
    suits: int
    public: bool
    created_at: datetime
    members: int  # members now


@dataclass(frozen=True)
class MemberRecord:
    player_id: int
    name: str
    joined_on: date
    left_on: date | None


@dataclass(frozen=True)
class DayResult:
    """A finished daily on a board (not held), as friends' boards and leagues rank them:
    the fields of :class:`~server.store.order.ResultKey` and what a row shows."""

    id: str
    player_id: int
    name: str
    day: date
    won: bool
    removed: int
    score: int
    moves: int
    elapsed: float
    finished_at: datetime
