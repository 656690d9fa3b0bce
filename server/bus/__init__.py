"""The bus: what crosses server nodes, race events and standings; never the only copy of
anything (games live in the database's action log).

:class:`Bus` is the interface; :class:`InProcessBus` serves one node with no Redis and
:class:`RedisBus` shares race rooms between nodes through Redis (pub/sub channels
``<prefix>:race:<day>:<suits>``, standings in a hash; race rooms of friends on
``<prefix>:room:<code>``, their state in the database). What travels is encoded
:data:`~server.protocol.NodeMessage` frames (a daily race's ``race_event``, a room's
``race_room`` and ``race_update``), read with that union; a room's frames go on to its
followers as they came, never encoded again. It also keeps counts of a day that every
node shares (an account's reviews: ``<prefix>:count:<day>:<name>``).
"""

from typing import Any

from .base import Bus, BusError, BusUnavailable, DayCounts, StandingsHandler, StandingUpdate
from .memory import InProcessBus
from .redis import RedisBus, redis_client


def open_bus(redis_url: str | None, *, prefix: str = "simon", **options: Any) -> Bus:
    """The Redis bus when a URL is given (``options``: timeouts and the breaker's, see
    :class:`RedisBus`), else the in-process one."""
    if redis_url:
        return RedisBus(redis_url, prefix=prefix, **options)
    return InProcessBus()


__all__ = [
    "Bus",
    "BusError",
    "BusUnavailable",
    "DayCounts",
    "InProcessBus",
    "RedisBus",
    "StandingUpdate",
    "StandingsHandler",
    "open_bus",
    "redis_client",
]
