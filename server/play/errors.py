"""The play layer's errors, and the one table that says what every layer's error tells a
client (a stable protocol error code).

::

    PlayError
    ├── Refused          a refusal with its code (and the rule a refused move breaks)
    ├── BadName          a name that breaks the naming rule (a ValueError too)
    ├── NoDailyDeal      no candidate of a day could be proven winnable
    ├── DayOver          an action on a daily after its day's end
    ├── DealsNotReady    the day's deals are still being proven
    ├── NoFreshDeal      no fresh race deal could be proven winnable in time
    └── SolverStopped    a proof asked of a solver that is shut down (the node is stopping)

Errors of the layers below keep their own roots (``EngineError``, ``StoreError``,
``BusError``); :data:`ERROR_CODES` maps them, and these, to codes, so neither sessions nor
the network layer name a driver's or another layer's exception one by one.
"""

from __future__ import annotations

import math
from typing import Final

from server.bus import BusUnavailable
from server.engine import IllegalMoveError, InvalidCodeError, InvalidMoveError
from server.protocol import Error, ErrorCode, MessageId
from server.store import (
    AlreadyReported,
    BadCursor,
    NameTaken,
    RaceRefused,
    Refusal,
    StaleGame,
    StoreUnavailable,
)


class PlayError(Exception):
    """The root of what the play layer raises."""


class Refused(PlayError):
    """Raised anywhere in play; the session turns it into an ``error`` reply."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        rule: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        """``retry_after``: in how many seconds asking again may do (``detail.retry_after``,
        whole seconds, at least 1)."""
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule
        self.retry_after = retry_after

    @classmethod
    def illegal(cls, error: IllegalMoveError) -> Refused:
        return cls(ErrorCode.ILLEGAL_MOVE, error.message, rule=error.code)

    def reply(self, message_id: MessageId | None) -> Error:
        detail = None
        if self.retry_after is not None:
            detail = {"retry_after": max(1, math.ceil(self.retry_after))}
        return Error(
            id=message_id, code=self.code, message=self.message, rule=self.rule, detail=detail
        )


class BadName(PlayError, ValueError):
    """A name that breaks the naming rule: ``rule`` says which part (a stable code of
    :data:`server.names.NameRule`), the message how."""

    def __init__(self, message: str, *, rule: str) -> None:
        super().__init__(message)
        self.rule = rule


class NoDailyDeal(PlayError):
    """No candidate of the day could be proven winnable (a misconfigured solver budget)."""


class DayOver(PlayError):
    """An action on a daily after its day's end (the game is closed as it stood then)."""


class DealsNotReady(PlayError):
    """The day's deals are still being proven (by this node or another)."""


class NoFreshDeal(PlayError):
    """No fresh race deal could be proven winnable within the attempts."""


class SolverStopped(PlayError):
    """A proof asked of a solver after it was shut down: the node is stopping."""


#: What an error tells a client: its code, and the message (None: the error's own). The
#: first entry whose type matches wins, so the more specific come first.
ERROR_CODES: Final[tuple[tuple[type[Exception], ErrorCode, str | None], ...]] = (
    (InvalidMoveError, ErrorCode.BAD_MOVE, None),
    (InvalidCodeError, ErrorCode.BAD_CODE, None),
    (BadName, ErrorCode.BAD_NAME, None),  # with its rule: refusal_of
    (NameTaken, ErrorCode.NAME_TAKEN, "that name is taken"),
    (BadCursor, ErrorCode.BAD_CURSOR, "that cursor is not one this server gave"),
    (NoDailyDeal, ErrorCode.NO_DAILY, "today's deal is not available"),
    (
        DealsNotReady,
        ErrorCode.PROVING,
        "today's deals are still being proven: ask again in a few seconds",
    ),
    (
        StaleGame,
        ErrorCode.STALE_GAME,
        "this game is being played on elsewhere at the same time: resume it",
    ),
    (NoFreshDeal, ErrorCode.NO_DEAL, None),
    (SolverStopped, ErrorCode.UNAVAILABLE, "the server is stopping: ask again in a moment"),
    (DayOver, ErrorCode.DAY_OVER, None),
    (StoreUnavailable, ErrorCode.UNAVAILABLE, "the server's database is not answering just now"),
    (BusUnavailable, ErrorCode.UNAVAILABLE, "the server cannot reach its other nodes just now"),
    (AlreadyReported, ErrorCode.ALREADY_REPORTED, "you have reported this result already"),
)


#: What a race room's refusal (server/store/races) tells a client, by its reason.
RACE_REFUSALS: Final[dict[Refusal, ErrorCode]] = {
    Refusal.MISSING: ErrorCode.NO_SUCH_RACE,
    Refusal.NOT_OPEN: ErrorCode.RACE_STARTED,
    Refusal.FULL: ErrorCode.RACE_FULL,
    Refusal.BOTS: ErrorCode.BOTS_NOT_ALLOWED,
    Refusal.NOT_OWNER: ErrorCode.NOT_RACE_OWNER,
    Refusal.TOO_FEW: ErrorCode.NOT_ENOUGH_RACERS,
    Refusal.NOT_ENTRANT: ErrorCode.NOT_IN_RACE,
    Refusal.NOT_OVER: ErrorCode.RACE_NOT_OVER,
    Refusal.TOO_MANY: ErrorCode.TOO_MANY_ROOMS,
}
assert set(RACE_REFUSALS) == set(Refusal), "every race refusal needs its error code"


def refusal_of(error: Exception) -> Refused | None:
    """What ``error`` tells a client, or None for an error no table entry knows (a bug:
    the caller logs it and answers ``internal``)."""
    if isinstance(error, Refused):
        return error
    if isinstance(error, IllegalMoveError):
        return Refused.illegal(error)
    if isinstance(error, BadName):
        return Refused(ErrorCode.BAD_NAME, str(error), rule=error.rule)
    if isinstance(error, RaceRefused):
        return Refused(RACE_REFUSALS[error.reason], str(error))
    for kind, code, message in ERROR_CODES:
        if isinstance(error, kind):
            return Refused(code, message or str(error))
    return None
