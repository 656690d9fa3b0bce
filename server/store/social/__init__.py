"""Players following players, and private leagues (:mod:`.follows`, :mod:`.leagues`), on the
store's database: :class:`SocialStore`, made from a :class:`~server.store.Store` as the race
rooms' queries are."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine

from server.store.api import PlayStore
from server.store.boundary import store_boundary
from server.store.database import Database
from server.store.errors import InvalidRequest

from .follows import FollowOutcome, FollowPart
from .leagues import JoinOutcome, LeaguePart
from .records import DayResult, Followed, LeagueRecord, MemberRecord


@store_boundary
class SocialStore(FollowPart, LeaguePart):
    """Follows, blocks and leagues."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._database = Database(engine)

    @classmethod
    def of(cls, store: PlayStore) -> SocialStore:
        """The queries on the database of ``store``: a :class:`Store` has one, the tests'
        in-memory store none (:class:`InvalidRequest`)."""
        from server.store.store import Store

        if not isinstance(store, Store):
            raise InvalidRequest(f"follows and leagues need a database: {type(store).__name__}")
        return cls(store.engine)


__all__ = [
    "DayResult",
    "FollowOutcome",
    "Followed",
    "JoinOutcome",
    "LeagueRecord",
    "MemberRecord",
    "SocialStore",
]
