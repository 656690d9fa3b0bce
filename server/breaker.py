"""A circuit breaker for calls to a service that is only a cache (Redis' rank cache).

A hung service costs each call its whole timeout; a breaker makes only the first failure
pay it. After a failure (the caller says which errors are one) the breaker is *open* for
``open_seconds``: every call is refused at once (with the caller's own exception) and the
caller reads the record instead. Then one call is let through as a trial (*half-open*):
its success closes the breaker, its failure opens it again for as long. Opening and
closing are logged once each, never per call::

    breaker = Breaker("rank cache", failures=(RedisError, OSError), refused=CacheSkipped)
    async with breaker.call():          # CacheSkipped while open; a failure inside opens it
        await client.zcard(key)
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Final, Literal

log = logging.getLogger(__name__)

State = Literal["closed", "open", "half-open"]

#: Seconds a breaker stays open after a failure, unless told otherwise.
OPEN_SECONDS: Final = 5.0


class Breaker:
    """One service's (one client's) breaker; ``failures`` are the exceptions that count as
    the service failing (anything else passes through and counts for nothing); ``refused``
    is raised, with a sentence, for a call not made."""

    def __init__(
        self,
        name: str,
        *,
        failures: tuple[type[BaseException], ...],
        refused: Callable[[str], Exception],
        open_seconds: float = OPEN_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self.open_seconds = open_seconds
        self._failures = failures
        self._refused = refused
        self._monotonic = monotonic
        self._opened_at: float | None = None  # None: closed
        self._trial = False  # a trial call is on its way (half-open)
        #: Times the breaker opened, and calls it skipped (never made).
        self.opened = 0
        self.skipped = 0

    @property
    def state(self) -> State:
        if self._opened_at is None:
            return "closed"
        if self._trial or self._monotonic() - self._opened_at >= self.open_seconds:
            return "half-open"
        return "open"

    def _allow(self) -> bool:
        """Whether a call may go now (while half-open, the trial's call alone)."""
        if self._opened_at is None:
            return True
        if self._trial or self._monotonic() - self._opened_at < self.open_seconds:
            return False
        self._trial = True
        return True

    @asynccontextmanager
    async def call(self) -> AsyncIterator[None]:
        """Make one call to the service inside the block, or raise ``refused``."""
        if not self._allow():
            self.skipped += 1
            raise self._refused(f"{self.name} skipped: it failed in the last {self.open_seconds} s")
        trial = self._opened_at is not None
        try:
            yield
        except self._failures as error:
            self._failed(error)
            raise
        except BaseException:
            if trial:  # not the service's fault (a cancelled caller): let another try
                self._trial = False
            raise
        else:
            if trial:
                self._closed()

    def _failed(self, error: BaseException) -> None:
        was_closed = self._opened_at is None
        self._opened_at = self._monotonic()
        self._trial = False
        if was_closed:
            self.opened += 1
            log.warning(
                "%s failed (%s): skipped for %.1f s at a time until it answers",
                self.name,
                str(error) or type(error).__name__,
                self.open_seconds,
            )

    def _closed(self) -> None:
        self._opened_at = None
        self._trial = False
        log.warning("%s answers again: used again", self.name)


__all__ = ["OPEN_SECONDS", "Breaker", "State"]
