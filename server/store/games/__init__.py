"""Games in the database, besides the leaderboard: each game started, looked up and read
back with its log, its fair play, and what is counted and kept about it after its day.

Each module holds the queries behind one part of :class:`server.store.Store` (the parts in
:mod:`server.store.parts` check their callers' arguments first)::

    games = GameRecords(database)
    record = await games.start(row)                  # AttemptExists: the daily is begun
    logged = await games.load(record.id)             # the game and its whole log

Modules: ``queries`` (:class:`GameRecords`: games started, looked up, read back with their
logs), ``fairplay`` (:class:`FairPlayRecords`: screenings, the review queue, reviewers'
decisions, each account's trust), ``after`` (:class:`AfterDayRecords`: a day's figures,
streaks, reports, the solver's reviews kept).

They may import the store's plumbing (``database``, ``errors``, ``models``, ``records``),
the engine and :mod:`server.kinds`, and each other (``fairplay`` and ``after`` read games as
``queries`` does); never the parts, the :class:`~server.store.Store`, ``api``, the
leaderboard, the action log's writer or any layer above the store.
"""

from .after import AfterDayRecords, DayFigures, ReportRecord
from .fairplay import IN_QUEUE, FairPlayRecords
from .queries import GAMES_WITH_PLAYERS, GameRecords, game_record

__all__ = [
    "GAMES_WITH_PLAYERS",
    "IN_QUEUE",
    "AfterDayRecords",
    "DayFigures",
    "FairPlayRecords",
    "GameRecords",
    "ReportRecord",
    "game_record",
]
