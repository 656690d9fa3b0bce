"""Storage: players, daily deals, games and daily leaderboards (SQLAlchemy 2 async).

The schema is made by the alembic migrations in ``migrations/`` (see
:mod:`server.store.migrate`); ranks come from :mod:`server.store.ranks`.
"""

from server.store.records import (
    AlreadyFinished,
    AttemptExists,
    DailyDealRecord,
    GameRecord,
    LeaderboardEntry,
    LeaderboardSlice,
    NameTaken,
    PlayerHistory,
    PlayerRecord,
    RankResult,
    StoreError,
    UnknownGame,
)
from server.store.store import Store, name_key

__all__ = [
    "AlreadyFinished",
    "AttemptExists",
    "DailyDealRecord",
    "GameRecord",
    "LeaderboardEntry",
    "LeaderboardSlice",
    "NameTaken",
    "PlayerHistory",
    "PlayerRecord",
    "RankResult",
    "Store",
    "StoreError",
    "UnknownGame",
    "name_key",
]
