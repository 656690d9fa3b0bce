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
from collections.abc import Mapping
from typing import Final

from server.bus import BusUnavailable
from server.engine import IllegalMoveError, InvalidCodeError, InvalidMoveError
from server.i18n import N_, say
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
    """Raised anywhere in play; the session turns it into an ``error`` reply.

    ``message`` is the sentence's catalog id (English, with ``%(name)s`` places that
    ``params`` fill): the reply says it in the connection's language (:func:`say`), so a
    refusal carries no sentence of its own below the edge. Every ``Refused(code, "...")``
    is extracted for the catalog (server/i18n/catalogs.py's keywords)."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        rule: str | None = None,
        retry_after: float | None = None,
        params: Mapping[str, object] | None = None,
    ) -> None:
        """``retry_after``: in how many seconds asking again may do (``detail.retry_after``,
        whole seconds, at least 1)."""
        super().__init__(message % params if params else message)  # the log's, in English
        self.code = code
        self.message = message
        self.params = params
        self.rule = rule
        self.retry_after = retry_after

    @classmethod
    def illegal(cls, error: IllegalMoveError) -> Refused:
        return cls(ErrorCode.ILLEGAL_MOVE, error.rule.sentence, rule=error.code)

    @property
    def sentence(self) -> str:
        """The message in the language being spoken."""
        return say(self.message, self.params)

    def reply(self, message_id: MessageId | None) -> Error:
        """The ``error`` reply, said in the language being spoken."""
        detail = None
        if self.retry_after is not None:
            detail = {"retry_after": max(1, math.ceil(self.retry_after))}
        return Error(
            id=message_id,
            code=self.code,
            message=self.sentence,
            rule=self.rule,
            detail=detail,
        )


class BadName(PlayError, ValueError):
    """A name that breaks the naming rule: ``rule`` says which part (a stable code of
    :data:`server.names.NameRule`), the message how (a catalog id, ``params`` its values)."""

    def __init__(
        self, message: str, *, rule: str, params: Mapping[str, object] | None = None
    ) -> None:
        super().__init__(message % params if params else message)
        self.message = message
        self.params = params
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


#: What an error tells a client: its code, and the sentence (a catalog id, said in the
#: connection's language). The first entry whose type matches wins, so the more specific
#: come first.
ERROR_CODES: Final[tuple[tuple[type[Exception], ErrorCode, str], ...]] = (
    (
        InvalidMoveError,
        ErrorCode.BAD_MOVE,
        N_(
            "a move reads FROM-TO or FROM-TOxN: from which column to which (1 to 10), and how "
            "many cards (3-7, 3-7x2)"
        ),
    ),
    (
        InvalidCodeError,
        ErrorCode.BAD_CODE,
        N_(
            "that is not a game code: one reads like SS1-S4-ABCDEFG (S1, S2 or S4 suits, then "
            "7 letters A-Z)"
        ),
    ),
    (NameTaken, ErrorCode.NAME_TAKEN, N_("that name is taken")),
    (BadCursor, ErrorCode.BAD_CURSOR, N_("that cursor is not one this server gave")),
    (NoDailyDeal, ErrorCode.NO_DAILY, N_("today's deal is not available")),
    (
        DealsNotReady,
        ErrorCode.PROVING,
        N_("today's deals are still being proven: ask again in a few seconds"),
    ),
    (
        StaleGame,
        ErrorCode.STALE_GAME,
        N_("this game is being played on elsewhere at the same time: resume it"),
    ),
    (
        NoFreshDeal,
        ErrorCode.NO_DEAL,
        N_("no fresh deal could be proven winnable in time: try again in a moment"),
    ),
    (SolverStopped, ErrorCode.UNAVAILABLE, N_("the server is stopping: ask again in a moment")),
    (
        DayOver,
        ErrorCode.DAY_OVER,
        N_("that daily's day is over: the game stays as it stood at midnight (UTC)"),
    ),
    (
        StoreUnavailable,
        ErrorCode.UNAVAILABLE,
        N_("the server's database is not answering just now"),
    ),
    (
        BusUnavailable,
        ErrorCode.UNAVAILABLE,
        N_("the server cannot reach its other nodes just now"),
    ),
    (AlreadyReported, ErrorCode.ALREADY_REPORTED, N_("you have reported this result already")),
)


#: What a race room's refusal (server/store/races) tells a client, by its reason: the code
#: and the sentence (the refusal's ``params`` fill its places).
RACE_REFUSALS: Final[dict[Refusal, tuple[ErrorCode, str]]] = {
    Refusal.MISSING: (ErrorCode.NO_SUCH_RACE, N_("no race room has the code %(code)s")),
    Refusal.NOT_OPEN: (ErrorCode.RACE_STARTED, N_("the race has begun: it is too late")),
    Refusal.FULL: (ErrorCode.RACE_FULL, N_("that room is full (%(capacity)s racers)")),
    Refusal.BOTS: (
        ErrorCode.BOTS_NOT_ALLOWED,
        N_("that room's owner does not allow bot accounts"),
    ),
    Refusal.NOT_OWNER: (ErrorCode.NOT_RACE_OWNER, N_("only the room's owner starts the race")),
    Refusal.TOO_FEW: (ErrorCode.NOT_ENOUGH_RACERS, N_("a race needs at least 2 racers")),
    Refusal.NOT_ENTRANT: (ErrorCode.NOT_IN_RACE, N_("you are not in that room")),
    Refusal.NOT_OVER: (ErrorCode.RACE_NOT_OVER, N_("a rematch comes after the race")),
    Refusal.TOO_MANY: (
        ErrorCode.TOO_MANY_ROOMS,
        N_(
            "you have %(count)s open rooms already (at most %(most)s): start, leave or let "
            "one expire first"
        ),
    ),
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
        return Refused(ErrorCode.BAD_NAME, error.message, rule=error.rule, params=error.params)
    if isinstance(error, RaceRefused):
        code, message = RACE_REFUSALS[error.reason]
        return Refused(code, message, params=error.params)
    for kind, code, message in ERROR_CODES:
        if isinstance(error, kind):
            return Refused(code, message)
    return None
