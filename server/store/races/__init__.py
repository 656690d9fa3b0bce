"""Race rooms in the database: the record of every room, its racers, their games and results.

Every change of a room is one transaction that first bumps the room's ``revision`` (an
UPDATE: a row lock on PostgreSQL, the write lock on SQLite), so two nodes acting on one
room at once take turns: a room never takes more racers than its capacity, and its
countdown begins once (``open`` -> ``started`` happens in exactly one transaction, which
fixes the deal and creates every racer's game, all starting at the reveal)::

    races = RaceStore.of(store)
    room = await races.create(code="KXR4M-7M2PQ", owner=alice, suits=1, now=now, ...)
    room, _ = await races.join("KXR4M-7M2PQ", player=bob, now=now, auto_wait=30.0)
    room = await races.start("KXR4M-7M2PQ", by=alice.id, deal="SS1-S1-ABCDEFG", now=now)

Refusals raise :class:`RaceRefused`, whose ``reason`` (a :class:`Refusal`) says which rule
refused; nothing is changed then. A driver's failure is
:class:`~server.store.errors.StoreUnavailable`.

Modules: ``queries`` (:class:`RaceStore`: its changes), ``reads`` (its reads), ``rows`` (the
work inside one transaction), ``records`` (what the queries hand out and take, and a room's
states), ``errors`` (the refusals).
"""

from .errors import CodeTaken, RaceRefused, Refusal
from .queries import RaceStore
from .records import (
    EXPIRED,
    OPEN,
    OVER,
    STARTED,
    Due,
    EntrantRecord,
    EntrantResult,
    RaceRecord,
    RaceState,
    RoomOptions,
)

__all__ = [
    "EXPIRED",
    "OPEN",
    "OVER",
    "STARTED",
    "CodeTaken",
    "Due",
    "EntrantRecord",
    "EntrantResult",
    "RaceRecord",
    "RaceRefused",
    "RaceState",
    "RaceStore",
    "Refusal",
    "RoomOptions",
]
