"""Every error the store raises, under one root: callers catch :class:`StoreError` (or one of
its kinds) and never a driver's exception.

Error tree::

    StoreError
    ├── NameTaken          create_player: the name exists (case-insensitively)
    ├── AttemptExists      start_game: the player's daily attempt exists (carries it)
    ├── StaleGame          the action log already holds one of the appended seqs (another
    │                      node or connection wrote first), or the game is already finished
    ├── AlreadyReported    report: the player reported this result already
    ├── InvalidRequest     arguments the store cannot take (also a ValueError): a limit
    │   │                  below 1, a naive time, a result that cannot be ranked, a text
    │   │                  that is no leaderboard key, race rooms asked of a store that
    │   │                  has no database
    │   └── BadCursor      a leaderboard cursor this store did not make
    ├── RaceRefused        a race room's rule refused a change (its ``reason`` says which),
    ├── CodeTaken          ... or a new room's code is taken (:mod:`server.store.races`)
    ├── CacheNotReady      the rank cache is being filled elsewhere (the store then counts
    │                      in the database: it never reaches a caller)
    ├── CacheSkipped       the rank cache's Redis failed a moment ago: not asked (its
    │                      breaker is open; the store counts in the database)
    └── StoreUnavailable   the database (or Redis) did not answer or failed: nothing was
                           written. Raised from the driver's own exception (``__cause__``)
                           by :mod:`server.store.boundary`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from server.store.records import GameRecord


class StoreError(Exception):
    """A request the store refuses or cannot serve; nothing was changed."""


class NameTaken(StoreError):
    """Another player has this name, ignoring case, or one that looks like it: ``holder``,
    when known."""

    def __init__(self, message: str, *, holder: str | None = None) -> None:
        super().__init__(message)
        self.holder = holder


class AttemptExists(StoreError):
    """The player already started the daily deal of this day and suit count."""

    def __init__(self, game: GameRecord) -> None:
        super().__init__(
            f"player {game.player_id} already has a daily game for {game.day} "
            f"with {game.suits} suit(s): {game.id}"
        )
        self.game = game


class AlreadyReported(StoreError):
    """The player has reported this result already."""


class StaleGame(StoreError):
    """The log moved on without this writer: its copy of the game is out of date."""


class InvalidRequest(StoreError, ValueError):
    """Arguments the store cannot take. A ValueError too: a caller's mistake, like one."""


class BadCursor(InvalidRequest):
    """A leaderboard cursor that no page of this store handed out."""


class CacheNotReady(StoreError):
    """The rank cache's set is being warmed elsewhere and did not complete in time: ask the
    database."""


class CacheSkipped(StoreError):
    """The rank cache's Redis failed a moment ago, so it was not asked (its breaker is
    open): ask the database."""


class StoreUnavailable(StoreError):
    """The database (or the rank cache's Redis) could not be reached or failed; nothing was
    written."""
