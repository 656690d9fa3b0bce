"""Storage: players, daily deals, games, their action log and daily leaderboards.

The schema is made by the alembic migrations in ``migrations/`` (see
:mod:`server.store.migrate`); ranks come from :mod:`server.store.ranks`. Every error is a
:class:`StoreError` (the tree is in :mod:`server.store.errors`).

Modules: ``store`` (the :class:`Store` facade), ``parts`` (its methods, one mixin per job:
players, deals, games, boards, fair play, after the day), ``games`` (the queries about
games: ``queries``, games and their logs, read back; ``fairplay``, screenings and reviews;
``after``, a day's figures, streaks, reports and kept reviews), ``leaderboard`` (pages,
ranks, cursors), ``action_log`` (the group committer), ``database`` (engine and sessions),
``order`` (the leaderboard order), ``ranks`` (the rank cache), ``models`` (tables),
``races`` (race rooms: their records, queries and refusals), ``records`` (what the store
hands out), ``errors`` (the tree), ``boundary`` (driver failures become
:class:`StoreUnavailable`), ``api`` (:class:`PlayStore` and the narrow
protocols it is made of), ``migrate``.
"""

from server.engine.actions import CLOSED, END_ACTIONS, RESIGN, WON
from server.kinds import Result
from server.names import name_key
from server.store.accounts import CredentialRecord, DeviceCodeRecord, PasskeyRecord
from server.store.action_log import ActionLog, GameEnd
from server.store.api import (
    AccountDataStore,
    AccountStore,
    AfterDayStore,
    AfterResultStore,
    BoardStore,
    CredentialStore,
    DealStore,
    DealtGameStore,
    FairPlayStore,
    GameStore,
    PlayerStore,
    PlayStore,
    ResultStore,
    ReviewStore,
    ScreeningStore,
)
from server.store.errors import (
    AlreadyReported,
    AttemptExists,
    BadCursor,
    InvalidRequest,
    NameTaken,
    StaleGame,
    StoreError,
    StoreUnavailable,
)
from server.store.games import DayFigures, ReportRecord
from server.store.races import (
    CodeTaken,
    Due,
    EntrantRecord,
    EntrantResult,
    RaceRecord,
    RaceRefused,
    RaceStore,
    Refusal,
    RoomOptions,
)
from server.store.records import (
    CLEARED,
    CONFIRMED,
    HELD,
    OFF_THE_BOARD,
    PASSED,
    QUEUED,
    DailyDealRecord,
    Decision,
    FairPlayRecord,
    GameInProgress,
    GameLog,
    GameRecord,
    LeaderboardEntry,
    LeaderboardSlice,
    LogEntry,
    PlayerHistory,
    PlayerRecord,
    RankResult,
    ReviewStatus,
    TrustRecord,
)
from server.store.store import Store

__all__ = [
    "CLEARED",
    "CLOSED",
    "CONFIRMED",
    "END_ACTIONS",
    "HELD",
    "OFF_THE_BOARD",
    "PASSED",
    "QUEUED",
    "RESIGN",
    "WON",
    "AccountDataStore",
    "AccountStore",
    "ActionLog",
    "AfterDayStore",
    "AfterResultStore",
    "AlreadyReported",
    "AttemptExists",
    "BadCursor",
    "BoardStore",
    "CodeTaken",
    "CredentialRecord",
    "CredentialStore",
    "DailyDealRecord",
    "DayFigures",
    "DealStore",
    "DealtGameStore",
    "Decision",
    "DeviceCodeRecord",
    "Due",
    "EntrantRecord",
    "EntrantResult",
    "FairPlayRecord",
    "FairPlayStore",
    "GameEnd",
    "GameInProgress",
    "GameLog",
    "GameRecord",
    "GameStore",
    "InvalidRequest",
    "LeaderboardEntry",
    "LeaderboardSlice",
    "LogEntry",
    "NameTaken",
    "PasskeyRecord",
    "PlayStore",
    "PlayerHistory",
    "PlayerRecord",
    "PlayerStore",
    "RaceRecord",
    "RaceRefused",
    "RaceStore",
    "RankResult",
    "Refusal",
    "ReportRecord",
    "Result",
    "ResultStore",
    "ReviewStatus",
    "ReviewStore",
    "RoomOptions",
    "ScreeningStore",
    "StaleGame",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "TrustRecord",
    "name_key",
]
