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

import contextlib
import functools
import inspect
import sqlite3
from collections.abc import AsyncGenerator, Callable, Coroutine, Iterator
from typing import Any, Final, ParamSpec, TypeVar

import asyncpg
import redis
from sqlalchemy.exc import SQLAlchemyError

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

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")
C = TypeVar("C", bound=type)


@contextlib.contextmanager
def unavailable_on_driver_failure() -> Iterator[None]:
    """Raise :class:`StoreUnavailable` from any driver error raised inside the block (a
    StoreUnavailable already, being an OSError too, passes unchanged)."""
    try:
        yield
    except StoreUnavailable:
        raise
    except DRIVER_ERRORS as error:
        text = str(error).strip()  # the first line: SQLAlchemy appends the statement
        raise StoreUnavailable(text.splitlines()[0] if text else type(error).__name__) from error


def _coroutine(method: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, Coroutine[Any, Any, R]]:
    @functools.wraps(method)
    async def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        with unavailable_on_driver_failure():
            return await method(*args, **kwargs)

    return guarded


def _generator(
    method: Callable[P, AsyncGenerator[T, None]],
) -> Callable[P, AsyncGenerator[T, None]]:
    @functools.wraps(method)
    async def guarded(*args: P.args, **kwargs: P.kwargs) -> AsyncGenerator[T, None]:
        with unavailable_on_driver_failure():
            # aclosing: a caller that stops early closes the inner generator (and its
            # session) now, not whenever it is collected
            async with contextlib.aclosing(method(*args, **kwargs)) as items:
                async for item in items:
                    yield item

    return guarded


def store_boundary(cls: C) -> C:
    """Guard every public coroutine method, async generator method and async classmethod of
    ``cls`` with :func:`unavailable_on_driver_failure`. Signatures are kept
    (``functools.wraps``): ``inspect.signature`` and type checkers see the originals."""
    for name, member in list(vars(cls).items()):
        if name.startswith("_"):
            continue
        if isinstance(member, classmethod) and inspect.iscoroutinefunction(member.__func__):
            setattr(cls, name, classmethod(_coroutine(member.__func__)))
        elif inspect.iscoroutinefunction(member):
            setattr(cls, name, _coroutine(member))
        elif inspect.isasyncgenfunction(member):
            setattr(cls, name, _generator(member))
    return cls
