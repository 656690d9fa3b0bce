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
from server.store.accounts.records import CredentialRecord, DeviceCodeRecord, PasskeyRecord
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
    """Accounts: made, found by name or id, and their player's language kept."""

    async def create_player(
        self,
        *,
        name: str,
        token_hash: str,
        now: datetime,
        bot: bool = False,
        label: str = "",
        address: str = "",
    ) -> PlayerRecord: ...

    async def player_by_name(self, name: str) -> PlayerRecord | None: ...

    async def player_by_id(self, player_id: int) -> PlayerRecord | None: ...

    async def set_language(self, *, player_id: int, language: str) -> None: ...

    async def set_settings(self, *, player_id: int, settings: Mapping[str, object]) -> None: ...


class CredentialStore(Protocol):
    """Where an account is signed in (credentials), its passkeys, recovery codes and
    terminal sign-in codes (:mod:`server.store.accounts.credentials`)."""

    async def add_credential(
        self,
        *,
        player_id: int,
        kind: str,
        label: str,
        secret_hash: str,
        now: datetime,
        address: str,
    ) -> CredentialRecord: ...

    async def signed_in_by(
        self, *, secret_hash: str, now: datetime, address: str
    ) -> tuple[PlayerRecord, CredentialRecord] | None: ...

    async def credentials_of(self, player_id: int) -> list[CredentialRecord]: ...

    async def revoke_credentials(
        self, *, player_id: int, ids: Sequence[int] | None = None, keep: int | None = None
    ) -> list[int]: ...

    async def replace_credential(
        self, *, player_id: int, credential_id: int, secret_hash: str, now: datetime, address: str
    ) -> CredentialRecord | None: ...

    async def add_passkey(
        self,
        *,
        player_id: int,
        credential_id: str,
        public_key: bytes,
        sign_count: int,
        name: str,
        now: datetime,
    ) -> PasskeyRecord: ...

    async def passkeys_of(self, player_id: int) -> list[PasskeyRecord]: ...

    async def passkey_by_credential_id(self, credential_id: str) -> PasskeyRecord | None: ...

    async def passkey_used(self, *, passkey_id: int, sign_count: int, now: datetime) -> None: ...

    async def remove_passkey(self, *, player_id: int, passkey_id: int) -> bool: ...

    async def replace_recovery_codes(
        self, *, player_id: int, code_hashes: Sequence[str], now: datetime
    ) -> None: ...

    async def recovery_codes_left(self, player_id: int) -> int: ...

    async def spend_recovery_code(self, code_hash: str) -> int | None: ...

    async def add_device_code(
        self,
        *,
        device_code_hash: str,
        user_code: str,
        label: str,
        now: datetime,
        address: str,
        expires_at: datetime,
    ) -> None: ...

    async def device_code(self, user_code: str) -> DeviceCodeRecord | None: ...

    async def approve_device_code(
        self, *, user_code: str, player_id: int, now: datetime
    ) -> bool: ...

    async def deny_device_code(self, user_code: str) -> bool: ...

    async def device_code_by_hash(
        self, device_code_hash: str, *, claim: bool
    ) -> DeviceCodeRecord | None: ...


class AccountDataStore(Protocol):
    """An account's data taken out, or the account deleted (:mod:`server.store.accounts.export`)."""

    async def account_data(self, player_id: int) -> dict[str, Any] | None: ...

    async def delete_account(
        self, *, player_id: int, anonymous_name: str, now: datetime
    ) -> bool: ...


class AccountStore(PlayerStore, CredentialStore, AccountDataStore, Protocol):
    """Accounts with their credentials and data (the play layer's accounts)."""


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
    AccountStore, DealStore, GameStore, BoardStore, FairPlayStore, AfterDayStore, Protocol
):
    """The store as sessions, races, daily deals, screening and verification use it: every
    narrow protocol at once."""
