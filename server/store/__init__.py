"""Storage: players, daily deals, games, their action log and daily leaderboards.

The schema is made by the alembic migrations in ``migrations/`` (see
:mod:`server.store.migrate`); ranks come from :mod:`server.store.ranks`.
"""

from server.store.action_log import ActionLog, GameEnd
from server.store.records import (
    CLEARED,
    CLOSED,
    CONFIRMED,
    END_ACTIONS,
    HELD,
    OFF_THE_BOARD,
    PASSED,
    RESIGN,
    WON,
    AttemptExists,
    DailyDealRecord,
    FairPlayRecord,
    GameLog,
    GameRecord,
    LeaderboardEntry,
    LeaderboardSlice,
    LogEntry,
    NameTaken,
    PlayerHistory,
    PlayerRecord,
    RankResult,
    Result,
    StaleGame,
    StoreError,
    StoreUnavailable,
)
from server.store.store import Store, name_key

__all__ = [
    "CLEARED",
    "CLOSED",
    "CONFIRMED",
    "END_ACTIONS",
    "HELD",
    "OFF_THE_BOARD",
    "PASSED",
    "RESIGN",
    "WON",
    "ActionLog",
    "AttemptExists",
    "DailyDealRecord",
    "FairPlayRecord",
    "GameEnd",
    "GameLog",
    "GameRecord",
    "LeaderboardEntry",
    "LeaderboardSlice",
    "LogEntry",
    "NameTaken",
    "PlayerHistory",
    "PlayerRecord",
    "RankResult",
    "Result",
    "StaleGame",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "name_key",
]
