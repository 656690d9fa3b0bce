"""A layer's boundary: the failures of what it drives (a database driver, Redis) leave it as
that layer's own "unavailable" error, raised from the original, so no layer above names a
driver's exception::

    @boundary((RedisError, OSError), BusUnavailable)
    class RedisBus: ...

Every public coroutine method, async generator method and async classmethod is guarded;
signatures are kept (``functools.wraps``), so ``inspect.signature`` and type checkers see
the originals.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
from collections.abc import AsyncGenerator, Callable, Coroutine, Iterator
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")
C = TypeVar("C", bound=type)

Failures = tuple[type[BaseException], ...]


@contextlib.contextmanager
def translated(failures: Failures, into: type[Exception]) -> Iterator[None]:
    """Raise ``into`` from any of ``failures`` raised inside the block (an ``into`` already
    passes unchanged), with the first line of the original's message."""
    try:
        yield
    except into:
        raise
    except failures as error:
        raise _translation(error, into) from error


def _translation(error: BaseException, into: type[Exception]) -> Exception:
    text = str(error).strip()  # the first line: SQLAlchemy appends the statement
    return into(text.splitlines()[0] if text else type(error).__name__)


def boundary(failures: Failures, into: type[Exception]) -> Callable[[C], C]:
    """A class decorator guarding the class's public async methods with :func:`translated`."""

    def coroutine(
        method: Callable[P, Coroutine[Any, Any, R]],
    ) -> Callable[P, Coroutine[Any, Any, R]]:
        # try/except rather than translated(): a context manager per call costs a few
        # microseconds, and every move goes through one of these
        @functools.wraps(method)
        async def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
            try:
                return await method(*args, **kwargs)
            except into:
                raise
            except failures as error:
                raise _translation(error, into) from error

        return guarded

    def generator(
        method: Callable[P, AsyncGenerator[T, None]],
    ) -> Callable[P, AsyncGenerator[T, None]]:
        @functools.wraps(method)
        async def guarded(*args: P.args, **kwargs: P.kwargs) -> AsyncGenerator[T, None]:
            with translated(failures, into):
                # aclosing: a caller that stops early closes the inner generator (and its
                # session) now, not whenever it is collected
                async with contextlib.aclosing(method(*args, **kwargs)) as items:
                    async for item in items:
                        yield item

        return guarded

    def decorate(cls: C) -> C:
        for name, member in list(vars(cls).items()):
            if name.startswith("_"):
                continue
            if isinstance(member, classmethod) and inspect.iscoroutinefunction(member.__func__):
                setattr(cls, name, classmethod(coroutine(member.__func__)))
            elif inspect.iscoroutinefunction(member):
                setattr(cls, name, coroutine(member))
            elif inspect.isasyncgenfunction(member):
                setattr(cls, name, generator(member))
        return cls

    return decorate
