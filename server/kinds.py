"""The kinds of things every layer above the engine names: a game's mode, a day's
boards (and :class:`DayBoard`, one leaderboard as one value), what a race event says, a
race room's bounds and defaults, and how a game ended (:class:`Result`, whose
:class:`Figures` a race's results keep). Defined once here; the
store, the protocol, the play layer and the client import them (the suit count is the
engine's :data:`SuitCount`; the rule a player's name follows is :mod:`server.names`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Final, Literal, get_args

from pydantic import BaseModel, ConfigDict

from server.engine import SUIT_COUNTS, SuitCount

#: A daily game is the day's one ranked attempt; a practice game is for nothing but play.
Mode = Literal["daily", "practice"]
MODES: Final[tuple[Mode, ...]] = get_args(Mode)

#: The leaderboards of each day and suit count: declared bot accounts play on their own, and
#: human accounts with too few earlier days on the new players' board ("new").
Board = Literal["humans", "bots", "new"]
BOARDS: Final[tuple[Board, ...]] = get_args(Board)
#: A board as a request names it: one of the day's :data:`Board` values, or ``friends``:
#: the one who asks and everyone they follow (a :class:`FriendsBoard`, with its viewer).
BoardName = Board | Literal["friends"]
#: The boards of human accounts: those whose leaders the fair-play review checks.
HUMAN_BOARDS: Final[tuple[Board, ...]] = ("humans", "new")


def board_named(text: str) -> Board | None:
    """The board called ``text`` (as a query names it), or None for no board."""
    return next((board for board in BOARDS if board == text), None)


def suit_count(number: int) -> SuitCount:
    """``number`` as a suit count (a record's or a game's, an ``int`` there); raises
    ``ValueError`` for any other number."""
    for suits in SUIT_COUNTS:
        if suits == number:
            return suits
    raise ValueError(f"not a suit count: {number}")


@dataclass(frozen=True, slots=True)
class DayBoard:
    """One leaderboard: a day, a suit count and a board. Carried whole from the edge to
    the store, which turns it into its one filter (a new :data:`Board` is read there), and
    the rank cache's key (hashable)."""

    day: date
    suits: SuitCount
    kind: Board = "humans"


def named_day_board(name: BoardName) -> Board:
    """The day's board a request names; :class:`ValueError` for ``friends``, which is
    nobody's without a viewer (the websocket's, signed in)."""
    if name == "friends":
        raise ValueError("a friends' board is yours: ask for it over the websocket, signed in")
    return name


@dataclass(frozen=True, slots=True)
class FriendsBoard:
    """A friends' board: a day's results (on any of its boards, none held) of ``viewer``
    and everyone ``viewer`` follows. It depends on who looks, so it is never cached."""

    day: date
    suits: SuitCount
    viewer: int


#: What a race event tells the others of one racer.
RaceEventKind = Literal["joined", "moved", "removed", "finished", "resigned", "left"]

#: Where a race room stands: racers join while it is open; the countdown runs to the
#: reveal of the deal; the race runs to its end (or the room expired unstarted).
RoomState = Literal["open", "countdown", "racing", "over", "expired"]

#: Why a room's whole view was pushed: a racer came in or went out before the start, the
#: countdown began, the deal was revealed, the race ended, a rematch room was opened.
RoomEventKind = Literal["joined", "left", "countdown", "started", "over", "rematch", "expired"]

#: A race room's options, bounded and defaulted once for the room's record
#: (``RoomOptions``), the server's settings, the protocol's ``race_new`` and the client's
#: ``simon race new``: the racers a room holds (by default, the most) ...
FEWEST_RACERS: Final = 2
MOST_RACERS: Final = 10
#: ... the seconds from the reveal to the end at the latest an owner may ask for, and the
#: server's default ...
SHORTEST_TIME_LIMIT: Final = 60
LONGEST_TIME_LIMIT: Final = 3600
TIME_LIMIT: Final = 900.0
#: ... and the seconds from the countdown's start to the reveal (the server's to set).
COUNTDOWN: Final = 10.0


_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def parse_day(text: str) -> date:
    """A day as players and addresses write it, ``2026-01-31``, and only so
    (``date.fromisoformat`` alone also takes ``20260131`` and ``2026-W05-6``); raises
    ``ValueError``."""
    if not _DAY.fullmatch(text):
        raise ValueError(f"not a day like 2026-01-31: {text[:32]!r}")
    return date.fromisoformat(text)


class Figures(BaseModel):
    """What a game came to when it ended: the part of a :class:`Result` that a race's
    results keep for each racer too (with their place)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    won: bool
    resigned: bool
    moves: int
    score: int
    removed: int  # runs removed
    elapsed: float  # seconds from the start, to the millisecond


class Result(Figures):
    """How a game ended: one value from the game that ended (``PlayerGame.end``) to the
    store (written with the game's last log entry), the protocol (``finished`` is one) and
    the client."""

    finished_at: datetime

    def figures(self) -> Figures:
        """The figures alone, without the moment (what a race's results keep)."""
        return Figures(**self.model_dump(exclude={"finished_at"}))


__all__ = [
    "BOARDS",
    "COUNTDOWN",
    "FEWEST_RACERS",
    "HUMAN_BOARDS",
    "LONGEST_TIME_LIMIT",
    "MODES",
    "MOST_RACERS",
    "SHORTEST_TIME_LIMIT",
    "SUIT_COUNTS",
    "TIME_LIMIT",
    "Board",
    "DayBoard",
    "Figures",
    "Mode",
    "RaceEventKind",
    "Result",
    "RoomEventKind",
    "RoomState",
    "SuitCount",
    "board_named",
    "parse_day",
    "suit_count",
]
