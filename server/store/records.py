"""What the store hands out: frozen records (its errors are in :mod:`server.store.errors`)."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Final, Literal, NamedTuple, TypeVar

from server.engine.actions import END_ACTIONS
from server.kinds import Board, DayBoard, Mode, Result, suit_count

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

R = TypeVar("R", bound="DataclassInstance")


def record_of(kind: type[R], source: Any, **given: Any) -> R:
    """A record of ``kind`` whose fields are read from ``source``'s attributes of the same
    names, but for those ``given``: ``record_of(GameRecord, row, player_name=name)``. One
    place copies fields, so a field added to a record and its table needs no other line."""
    names = _field_names(kind)
    return kind(**{name: getattr(source, name) for name in names if name not in given}, **given)


@functools.cache
def _field_names(kind: type[DataclassInstance]) -> tuple[str, ...]:
    # asked for every row a page makes: dataclasses.fields() builds its tuple each time
    return tuple(field.name for field in dataclasses.fields(kind))


@dataclass(frozen=True)
class PlayerRecord:
    id: int
    name: str
    created_at: datetime
    bot: bool = False  # a declared bot account: its dailies are on the bots' leaderboard
    flagged: bool = False  # a review confirmed machine play: its later dailies are held
    language: str | None = None  # the language its player chose (``set_language``), if any
    #: The settings its player keeps on the account (``set_settings``): names to values.
    settings: Mapping[str, object] | None = dataclasses.field(default=None, hash=False)


@dataclass(frozen=True)
class DailyDealRecord:
    day: date
    suits: int
    code: str
    par: int | None
    solution: tuple[str, ...] | None = None  # the solver's line, once known


class LogEntry(NamedTuple):  # a tuple: several are made per move, cheaply
    """One accepted action of a game, as the action log holds it.

    ``seq`` counts a game's actions from 1, the game's end included; ``action`` is what the
    engine applied (a move with its count made explicit, ``undo``, ``restart``) or an end
    (:data:`END_ACTIONS`); ``at_ms`` is the server's clock in milliseconds since 1970.
    ``request_id`` (the client's message id, JSON-encoded) and ``request`` (what the client
    asked for) let a resend be answered again, on any node, instead of applied twice.
    """

    game_id: str
    seq: int
    action: str
    at_ms: int
    request_id: str | None = None
    request: str | None = None


@dataclass(frozen=True)
class GameRecord:
    id: str
    player_id: int
    player_name: str
    mode: Mode
    code: str
    suits: int
    day: date | None
    bot: bool  # the player's flag: which leaderboard a daily goes on
    started_at: datetime
    finished_at: datetime | None
    won: bool | None
    resigned: bool | None
    moves: int | None
    score: int | None
    removed: int | None
    elapsed: float | None
    held: bool = False  # off the public leaderboard (fair-play screening or review)
    newcomer: bool = False  # on the new players' board of its day, not the public one
    verified: bool = False  # a reviewer cleared it

    @property
    def result(self) -> Result | None:
        """The stored result, once the game is finished."""
        if self.finished_at is None:
            return None
        return Result(
            won=bool(self.won),
            resigned=bool(self.resigned),
            moves=self.moves or 0,
            score=self.score or 0,
            removed=self.removed or 0,
            elapsed=self.elapsed or 0.0,
            finished_at=self.finished_at,
        )

    @property
    def board(self) -> DayBoard | None:
        """The leaderboard a daily is on (or goes on, once screened and not held); None for
        a practice game."""
        if self.day is None:
            return None
        kind: Board = "bots" if self.bot else "new" if self.newcomer else "humans"
        return DayBoard(self.day, suit_count(self.suits), kind)


#: A screening's outcomes: ranked (``passed``), or held for review; then a reviewer's.
ReviewStatus = Literal["passed", "held", "queued", "cleared", "confirmed"]
#: What a reviewer decides.
Decision = Literal["cleared", "confirmed"]
PASSED: Final = "passed"
HELD: Final = "held"
CLEARED: Final = "cleared"
CONFIRMED: Final = "confirmed"
#: On the board and in the review queue: one of its day's leaders, checked first.
QUEUED: Final = "queued"
#: Statuses that keep a result off the public leaderboard.
OFF_THE_BOARD = frozenset({HELD, CONFIRMED})


@dataclass(frozen=True)
class FairPlayRecord:
    """A human daily's screening: its evidence, why it is held, and the review's word."""

    game_id: str
    status: ReviewStatus
    reasons: list[str]
    evidence: dict[str, Any]
    screened_at: datetime
    reviewed_at: datetime | None


@dataclass(frozen=True)
class GameLog:
    """A game and its whole action log, oldest first: what rebuilds it on any node."""

    game: GameRecord
    entries: list[LogEntry]

    @property
    def actions(self) -> list[str]:
        """The actions that changed the board, for the engine to replay."""
        return [entry.action for entry in self.entries if entry.action not in END_ACTIONS]


@dataclass(frozen=True)
class LeaderboardEntry:
    rank: int  # 1-based position in the leaderboard's order
    player: str
    score: int
    moves: int
    elapsed: float
    finished_at: datetime
    won: bool
    removed: int
    bot: bool
    game_id: str  # the ranked game's id (its replay's)
    verified: bool = False  # a reviewer cleared it


@dataclass(frozen=True)
class LeaderboardSlice:
    rows: list[LeaderboardEntry]
    next: str | None  # cursor of the following page; None on the last page
    total: int  # finished results of that day and suit count


@dataclass(frozen=True)
class RankResult:
    rank: int | None  # None: the player has no finished result that day
    total: int
    around: list[LeaderboardEntry]  # includes the player's own row
    #: No rank because the player's finished result is held off the board for review.
    held: bool = False


@dataclass(frozen=True)
class PlayerHistory:
    games: list[GameRecord]  # finished games, newest first
    games_total: int  # all finished games
    won: int
    best_score: dict[int, int]  # suit count -> best score


@dataclass(frozen=True)
class GameInProgress:
    """A player's unfinished game that can be taken up again (``resume`` by its id): a
    practice game, today's daily, or the game of a race room that is racing."""

    id: str
    mode: Mode
    code: str
    suits: int
    day: date | None  # a daily's day (today's)
    started_at: datetime
    #: Moves as the game counts them: those since its last restart, less the undone ones.
    moves: int
    race: str | None = None  # a race room's game: its room's code


@dataclass(frozen=True)
class TrustRecord:
    """A human account's fair-play evidence across days (server/play/fairplay/trust.py)."""

    player_id: int
    suspicion: float
    reasons: list[str]
    evidence: dict[str, Any]
    updated_at: datetime
