"""Race rooms' small rules, shared by their parts (:mod:`.rooms`): the server-wide
settings, room codes, a room's state by the clock, and who follows a room."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from server.kinds import COUNTDOWN, TIME_LIMIT
from server.play.errors import Refused
from server.play.sending import Push
from server.protocol import (
    ROOM_ALPHABET,
    ROOM_CODE_SYMBOLS,
    ErrorCode,
    RoomState,
    grouped_room_code,
    room_code_form,
)
from server.store import RaceRecord
from server.store.races import EXPIRED, OPEN, STARTED

#: Codes drawn before giving up on opening a room (a collision is one in millions).
CODE_DRAWS: Final = 8

#: Takes up a racer's game at the reveal: called with the room's code and the game's id.
Reveal = Callable[[str, str], Awaitable[None]]


@dataclass(frozen=True)
class RoomSettings:
    """The rooms' rules, server-wide (Settings: ``SIMON_RACE_*``)."""

    countdown: float = COUNTDOWN  # seconds from the countdown's start to the reveal
    time_limit: float = TIME_LIMIT  # default seconds from the reveal to the end
    quick_wait: float = 30.0  # a public room with 2 racers counts down this long after
    quick_racers: int = 3  # ... and at once with this many
    open_for: float = 3600.0  # an open room nobody starts expires after this
    sweep: float = 5.0  # how often a node looks for rooms whose time came
    open_rooms: int = 3  # rooms an account may own open at once (race_new, a rematch)
    watches: int = 4  # rooms one connection may follow at once
    expired_kept: float = 3600.0  # an expired room is deleted this long after it expired


def room_code() -> str:
    """A new room code: :data:`~server.protocol.ROOM_CODE_SYMBOLS` random symbols of
    :data:`~server.protocol.ROOM_ALPHABET` (50 bits), grouped: ``KXR4M-7M2PQ``."""
    return grouped_room_code(
        "".join(secrets.choice(ROOM_ALPHABET) for _ in range(ROOM_CODE_SYMBOLS))
    )


def normal_code(text: str) -> str:
    """A room code as typed in its one form (:func:`~server.protocol.room_code_form`);
    refuses (``no-such-race``) what is no room code."""
    code = room_code_form(text)
    if code is None:
        raise Refused(
            ErrorCode.NO_SUCH_RACE,
            "a room code is 10 letters and digits, such as KXR4M-7M2PQ: %(text)r is not",
            params={"text": text.strip()},
        )
    return code


def room_state(record: RaceRecord, now: datetime) -> RoomState:
    """Where a room stands at ``now``: a started race counts down until its reveal."""
    if record.state == STARTED:
        assert record.starts_at is not None
        return "countdown" if now < record.starts_at else "racing"
    if record.state == OPEN:
        return "open"
    return "expired" if record.state == EXPIRED else "over"


def no_free_code() -> Refused:
    """Every code drawn was taken (:data:`CODE_DRAWS` of them): the player tries again."""
    return Refused(ErrorCode.UNAVAILABLE, "no free room code was found: try again")


@dataclass(eq=False)
class Follower:
    """One connection following a room: a racer of it (who gets their game at the reveal)
    or a spectator (``player_id`` None)."""

    push: Push
    player_id: int | None = None
    reveal: Reveal | None = None


__all__ = [
    "CODE_DRAWS",
    "Follower",
    "Reveal",
    "RoomSettings",
    "no_free_code",
    "normal_code",
    "room_code",
    "room_state",
]
