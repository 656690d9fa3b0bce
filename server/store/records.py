"""What the store hands out: frozen records, and the errors it raises.

Error tree::

    StoreError
    ├── NameTaken          create_player: the name exists (case-insensitively)
    ├── AttemptExists      start_game: the player's daily attempt exists (carries it)
    ├── AlreadyFinished    finish_game / save_actions on a finished game
    └── UnknownGame        save_actions / finish_game on a game id the store does not hold
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime


class StoreError(Exception):
    """A request the store refuses; nothing was changed."""


class NameTaken(StoreError):
    """Another player has this name, ignoring case."""


class AttemptExists(StoreError):
    """The player already started the daily deal of this day and suit count."""

    def __init__(self, game: GameRecord) -> None:
        super().__init__(
            f"player {game.player_id} already has a daily game for {game.day} "
            f"with {game.suits} suit(s): {game.id}"
        )
        self.game = game


class AlreadyFinished(StoreError):
    """The game's result is already written; results are written once."""


class UnknownGame(StoreError):
    """No game has this id."""


@dataclass(frozen=True)
class PlayerRecord:
    id: int
    name: str
    created_at: datetime
    bot: bool = False  # a declared bot account: its dailies are on the bots' leaderboard


@dataclass(frozen=True)
class DailyDealRecord:
    day: date
    suits: int
    code: str
    par: int | None


@dataclass(frozen=True)
class GameRecord:
    id: str
    player_id: int
    player_name: str
    mode: str  # "daily" or "practice"
    code: str
    suits: int
    day: date | None
    bot: bool  # the player's flag: which leaderboard a daily goes on
    started_at: datetime
    actions: list[str]
    finished_at: datetime | None
    won: bool | None
    resigned: bool | None
    moves: int | None
    score: int | None
    removed: int | None
    elapsed: float | None


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


@dataclass(frozen=True)
class PlayerHistory:
    games: list[GameRecord]  # finished games, newest first
    games_total: int  # all finished games
    won: int
    best_score: dict[int, int]  # suit count -> best score
