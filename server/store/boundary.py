"""The store's public boundary: a driver's failure leaves it as :class:`StoreUnavailable`.

Inside the store, code names the drivers' exceptions where it handles them (a unique key
that means "name taken", a rank cache that is down and counted around). What it does not
handle is turned, once, at the boundary, into :class:`StoreUnavailable` raised from the
driver's exception, so no layer above names SQLAlchemy, asyncpg, sqlite3 or Redis::

    @store_boundary
    class Store:
        async def player_by_id(self, player_id: int) -> PlayerRecord | None: ...
"""

from __future__ import annotations

import functools
import sqlite3
from typing import Final

import asyncpg
import redis
from sqlalchemy.exc import SQLAlchemyError

from server.boundary import boundary, translated
from server.store.errors import StoreUnavailable

#: What a database or Redis that fails raises: through SQLAlchemy or straight from a driver,
#: and the sockets under them (OSError includes TimeoutError and ConnectionError).
DRIVER_ERRORS: Final[tuple[type[BaseException], ...]] = (
    SQLAlchemyError,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    sqlite3.Error,
    redis.RedisError,
    OSError,
)

#: Translates a driver's failure raised inside the block into :class:`StoreUnavailable`.
unavailable_on_driver_failure = functools.partial(translated, DRIVER_ERRORS, StoreUnavailable)

#: Guards every public async method of the class it decorates (see :mod:`server.boundary`).
store_boundary = boundary(DRIVER_ERRORS, StoreUnavailable)
