"""What the play layer needs of the store, as narrow :class:`typing.Protocol` classes, one
per job (the parts of :class:`server.store.Store`, :mod:`server.store.parts`); a few
intersections, each named for what takes it (:class:`DealtGameStore`, :class:`ResultStore`,
:class:`AfterResultStore`, :class:`ScreeningStore`); and :class:`PlayStore`, their union,
for what truly needs everything: the hub, which hands the store to its parts.

:class:`server.store.Store` satisfies them all, and so does the tests' in-memory ``FakeStore``
(``tests/store/test_play_store.py`` has mypy and a test hold both to it). Every method raises
only :class:`~server.store.errors.StoreError` and its kinds (and ``InvalidRequest`` is a
ValueError too); a driver's failure is :class:`~server.store.errors.StoreUnavailable`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from datetime import date, datetime
from typing import Any, Protocol

from server.kinds import DayBoard, Mode, Result
from server.store.games import DayFigures
from server.store.lease import Leases
from server.store.records import (
    DailyDealRecord,
    FairPlayRecord,
    GameInProgress,
    GameLog,
    GameRecord,
    LeaderboardSlice,
    LogEntry,
    PlayerHistory,
    PlayerRecord,
    RankResult,
    TrustRecord,
)


class PlayerStore(Protocol):
    """Accounts: made, found by token, name or id, and their player's language kept."""

    async def create_player(
        self, *, name: str, token_hash: str, now: datetime, bot: bool = False
    ) -> PlayerRecord: ...

    async def player_by_token_hash(self, token_hash: str) -> PlayerRecord | None: ...

    async def player_by_name(self, name: str) -> PlayerRecord | None: ...

    async def player_by_id(self, player_id: int) -> PlayerRecord | None: ...

    async def set_language(self, *, player_id: int, language: str) -> None: ...

    async def set_settings(self, *, player_id: int, settings: Mapping[str, object]) -> None: ...


class DealStore(Protocol):
    """The daily deals, and the lease under which one node proves them."""

    #: Work one node of those sharing the database does at a time (proving daily deals).
    leases: Leases

    async def get_daily_deal(self, *, day: date, suits: int) -> DailyDealRecord | None: ...

    async def put_daily_deal(
        self,
        *,
        day: date,
        suits: int,
        code: str,
        par: int | None,
        solution: Sequence[str] | None = None,
    ) -> DailyDealRecord: ...

    async def set_daily_solution(
        self, *, day: date, suits: int, solution: Sequence[str]
    ) -> None: ...


class GameStore(Protocol):
    """Games and their action log: started, loaded, appended to, listed."""

    async def start_game(
        self,
        *,
        game_id: str,
        player_id: int,
        mode: Mode,
        code: str,
        suits: int,
        day: date | None,
        started_at: datetime,
    ) -> GameRecord: ...

    async def daily_attempt(
        self, *, player_id: int, day: date, suits: int
    ) -> GameRecord | None: ...

    async def daily_progress(self, *, player_id: int, day: date) -> dict[int, bool]: ...

    async def load_game(self, game_id: str) -> GameLog | None: ...

    async def get_game(self, game_id: str) -> GameRecord | None: ...

    async def last_seq(self, game_id: str) -> int: ...

    async def requests_after(self, game_id: str, after: int) -> list[LogEntry]: ...

    def append(
        self,
        entries: Sequence[LogEntry],
        result: Result | None = None,
        *,
        ranked_on: DayBoard | None = None,
    ) -> Awaitable[None]: ...

    async def unfinished_dailies(self, *, before: date) -> list[str]: ...

    def finished_games(self, *, batch: int = 1000) -> AsyncIterator[GameLog]: ...

    async def history(self, *, player_id: int, limit: int = 20) -> PlayerHistory: ...

    async def games_in_progress(
        self, *, player_id: int, today: date, now: datetime, limit: int = 20
    ) -> list[GameInProgress]: ...


class BoardStore(Protocol):
    """The daily leaderboards: pages, ranks, and a result put back on its board."""

    async def leaderboard_page(
        self, board: DayBoard, *, limit: int, after: str | None = None
    ) -> LeaderboardSlice: ...

    async def rank_of(self, board: DayBoard, *, player_id: int, around: int = 5) -> RankResult: ...

    async def ranks_of(self, game_ids: list[str]) -> dict[str, int]: ...

    async def rank_again(self, record: GameRecord) -> None: ...

    async def place_of(self, record: GameRecord) -> tuple[int, int] | None: ...


class FairPlayStore(Protocol):
    """Screenings of finished dailies, the leaders queued for review, trust across days."""

    async def record_screening(
        self,
        *,
        game_id: str,
        held: bool,
        reasons: Sequence[str],
        evidence: dict[str, Any],
        at: datetime,
        newcomer: bool = False,
    ) -> FairPlayRecord: ...

    async def unscreened(self) -> list[str]: ...

    async def screening(self, game_id: str) -> FairPlayRecord | None: ...

    async def queue_leaders(self, board: DayBoard, *, at: datetime, top: int = 3) -> list[str]: ...

    async def account_dailies(
        self, *, player_id: int
    ) -> list[tuple[GameRecord, FairPlayRecord]]: ...

    async def trust(self, *, player_ids: list[int]) -> dict[int, TrustRecord]: ...

    async def put_trust(self, record: TrustRecord) -> None: ...


class AfterDayStore(Protocol):
    """What comes after the daily: a day's figures, the days played, reports, the solver's
    reviews kept."""

    async def day_figures(self, board: DayBoard) -> DayFigures: ...

    async def report(self, *, game_id: str, player_id: int, reason: str, at: datetime) -> None: ...

    async def reports_since(self, *, player_id: int, since: datetime) -> int: ...

    async def keep_review(self, *, game_id: str, body: str, at: datetime) -> None: ...

    async def kept_review(self, game_id: str) -> str | None: ...

    async def daily_days(self, *, player_id: int, before: date | None = None) -> list[date]: ...


class DealtGameStore(GameStore, DealStore, Protocol):
    """Games and the deals they were dealt from (starting a daily, verifying the logs)."""


class ResultStore(GameStore, BoardStore, Protocol):
    """Games and the boards their results rank on (a player's history with its ranks, the
    leaderboards: the queries)."""


class ReviewStore(GameStore, AfterDayStore, Protocol):
    """Finished games' logs, and the solver's reviews kept of them."""


class AfterResultStore(AfterDayStore, ResultStore, Protocol):
    """What comes after the daily, with the results it is about (a day's figures and where
    one stands among them, replays, reports)."""


class ScreeningStore(PlayerStore, GameStore, BoardStore, FairPlayStore, AfterDayStore, Protocol):
    """What the screening reads and writes: a finished game and its player, the days they
    played, where the result stands on its board, its screening and the account's trust
    (every part but the deals, whose lines come from the daily schedule)."""


class PlayStore(
    PlayerStore, DealStore, GameStore, BoardStore, FairPlayStore, AfterDayStore, Protocol
):
    """The store as sessions, races, daily deals, screening and verification use it: every
    narrow protocol at once."""
