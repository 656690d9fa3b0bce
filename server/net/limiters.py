"""The limiters the gate (:mod:`server.net.limits`) is made of: a token bucket, so many
events per window for each address, the sign-in back-off, and one log line per offender.
Each takes the time from an injected monotonic clock, and keeps at most
:data:`MAX_ADDRESSES` addresses, dropping those back at rest first, then the oldest."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

log = logging.getLogger(__name__)

Monotonic = Callable[[], float]
#: What an offender is logged for: connections dropped at accept, connections that send
#: nothing, messages sent on over a budget.
Offence = Literal["accept", "silent", "budget", "fragments"]
#: Addresses remembered per table at most; past that the ones at rest, then the oldest, go.
MAX_ADDRESSES = 100_000


class Bucket:
    """A token bucket: bursts of up to ``capacity``, refilled at ``per_second``."""

    __slots__ = ("capacity", "last", "per_second", "tokens")

    def __init__(self, capacity: int, per_second: float, now: float) -> None:
        self.capacity = float(capacity)
        self.per_second = per_second
        self.tokens = float(capacity)
        self.last = now

    def _refill(self, now: float) -> None:
        elapsed = max(0.0, now - self.last)
        self.tokens = min(self.capacity, self.tokens + elapsed * self.per_second)
        self.last = now

    def take(self, now: float, tokens: float = 1.0) -> float:
        """Take ``tokens`` (one by default, at most ``capacity``): 0.0, or (too few left,
        nothing taken) the seconds until there are enough."""
        self._refill(now)
        if tokens > self.capacity:  # not min(): this runs for every message
            tokens = self.capacity
        if self.tokens >= tokens:
            self.tokens -= tokens
            return 0.0
        return (tokens - self.tokens) / self.per_second

    def give_back(self) -> None:
        """Return a token taken for something that did not happen after all."""
        self.tokens = min(self.capacity, self.tokens + 1.0)

    def at_rest(self, now: float) -> bool:
        self._refill(now)
        return self.tokens >= self.capacity


@dataclass(slots=True)
class _Failures:
    count: int
    last: float
    locked_until: float

    def at_rest(self, now: float) -> bool:
        return now >= self.locked_until


Entry = TypeVar("Entry", Bucket, _Failures)


class _Table(Generic[Entry]):
    """Entries by address, at most :data:`MAX_ADDRESSES` of them."""

    def __init__(self, make: Callable[[float], Entry], limit: int = MAX_ADDRESSES) -> None:
        self._make: Callable[[float], Entry] = make
        self._limit = limit
        self.entries: dict[str, Entry] = {}

    def get(self, address: str, now: float) -> Entry:
        entry = self.entries.get(address)
        if entry is None:
            if len(self.entries) >= self._limit:
                self._prune(now)
            entry = self.entries[address] = self._make(now)
        return entry

    def _prune(self, now: float) -> None:
        for address in [a for a, entry in self.entries.items() if entry.at_rest(now)]:
            del self.entries[address]
        while len(self.entries) >= self._limit * 9 // 10:  # the oldest, forgiven
            del self.entries[next(iter(self.entries))]


class RateTable:
    """So many events per window for each address (a token bucket each)."""

    def __init__(self, budget: int, window: float, monotonic: Monotonic) -> None:
        self.budget = budget
        self.window = window
        self._clock = monotonic
        per_second = budget / window
        self._table: _Table[Bucket] = _Table(lambda now: Bucket(budget, per_second, now))

    def take(self, address: str, cost: int = 1) -> float:
        """0.0 when allowed (and counted as ``cost`` events); else the seconds to wait."""
        return self._table.get(address, self._clock()).take(self._clock(), cost)

    def give_back(self, address: str) -> None:
        """Uncount an event :meth:`take` allowed that did not happen after all."""
        bucket = self._table.entries.get(address)
        if bucket is not None:  # else forgotten meanwhile: back at rest already
            bucket.give_back()


class AuthBackoff:
    """Failed sign-ins per address: ``free`` of them cost nothing; each one after locks the
    address out for ``base`` seconds, doubling each time up to ``most``. Failures are
    forgotten after ``memory`` seconds without one."""

    def __init__(
        self, *, free: int, base: float, most: float, memory: float, monotonic: Monotonic
    ) -> None:
        self.free = free
        self.base = base
        self.most = most
        self.memory = memory
        self._clock = monotonic
        self._table: _Table[_Failures] = _Table(lambda now: _Failures(0, now, now))

    def wait(self, address: str) -> float:
        """The seconds this address must still wait before it may try again (0.0: none)."""
        entry = self._table.entries.get(address)
        if entry is None:
            return 0.0
        return max(0.0, entry.locked_until - self._clock())

    def failed(self, address: str) -> float:
        """Count a failure; returns the lockout it starts (0.0 while failures are free)."""
        now = self._clock()
        entry = self._table.get(address, now)
        if now - entry.last > self.memory:
            entry.count = 0
        entry.count += 1
        entry.last = now
        over = entry.count - self.free
        if over <= 0:
            return 0.0
        lockout = min(self.most, self.base * 2.0 ** min(over - 1, 60))
        entry.locked_until = now + lockout
        return lockout


class Offenders:
    """One log line per offender (an address, for one kind of offence) per ``interval``
    seconds, however many offences: a flood writes a line, not thousands."""

    def __init__(self, interval: float, monotonic: Monotonic, limit: int = MAX_ADDRESSES) -> None:
        self.interval = interval
        self._clock = monotonic
        self._limit = limit
        self._next: dict[tuple[Offence, str], float] = {}
        self.lines = 0

    def offended(self, kind: Offence, address: str, message: str, *args: object) -> None:
        """Log ``message % args`` (at WARNING) unless ``address`` was logged for ``kind``
        less than ``interval`` seconds ago."""
        now = self._clock()
        key = (kind, address)
        if self._next.get(key, -math.inf) > now:
            return
        if key not in self._next and len(self._next) >= self._limit:
            for old in [k for k, until in self._next.items() if until <= now]:
                del self._next[old]
            while len(self._next) >= self._limit:  # the oldest, forgotten
                del self._next[next(iter(self._next))]
        self._next.pop(key, None)  # to the end: the order is the age
        self._next[key] = now + self.interval
        self.lines += 1
        log.warning(message, *args)
