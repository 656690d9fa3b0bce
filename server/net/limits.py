"""Limits per client address, and on the whole server, applied before a session sees a frame.

::

    gate = Gate(Limits.of(settings), monotonic=time.monotonic)
    address = gate.client_address(peer="10.0.0.5", forwarded=["203.0.113.7"])
    wait = gate.registration(address)     # 0.0: go on; else refused: try again in wait s

The client address is the TCP peer, or, when the peer is a trusted proxy
(``SIMON_TRUSTED_PROXIES``), the nearest address in ``X-Forwarded-For`` that is not one.
IPv6 clients are counted by their /64 (one host usually holds the whole prefix).

Every limiter takes the time from an injected monotonic clock, so tests move time by hand.
Memory stays bounded: each table keeps at most :data:`MAX_ADDRESSES` addresses, dropping
those back at rest first, then the oldest.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from server.protocol import Error, ErrorCode, encode

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from server.settings import Settings

log = logging.getLogger(__name__)

Monotonic = Callable[[], float]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
#: Addresses remembered per table at most; past that the ones at rest, then the oldest, go.
MAX_ADDRESSES = 100_000
#: Close code of a connection that did not sign in within its grace period (policy).
CLOSE_POLICY = 1008


def networks(text: str) -> tuple[Network, ...]:
    """``"127.0.0.1, 10.0.0.0/8"``: comma-separated addresses or CIDR networks."""
    return tuple(
        ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip()
    )


@dataclass(frozen=True)
class Limits:
    """The limit settings, in one place (see docs/operations.md)."""

    trusted_proxies: tuple[Network, ...] = ()
    exempt: tuple[Network, ...] = ()
    registrations: int = 5
    registration_window: float = 3600.0
    auth_failures_free: int = 5
    auth_backoff: float = 1.0
    auth_backoff_max: float = 300.0
    auth_failure_memory: float = 900.0
    connections_per_address: int = 64
    max_connections: int = 10_000
    unauthenticated_grace: float | None = 30.0
    http_requests: int = 120
    http_window: float = 60.0

    @classmethod
    def of(cls, settings: Settings, *, max_connections: int | None = None) -> Limits:
        return cls(
            trusted_proxies=networks(settings.trusted_proxies),
            exempt=networks(settings.limits_exempt),
            registrations=settings.registrations_per_address,
            registration_window=settings.registration_window_seconds,
            auth_failures_free=settings.auth_failures_free,
            auth_backoff=settings.auth_backoff_seconds,
            auth_backoff_max=settings.auth_backoff_max_seconds,
            auth_failure_memory=settings.auth_failure_memory_seconds,
            connections_per_address=settings.max_connections_per_address,
            max_connections=max_connections or settings.max_connections,
            unauthenticated_grace=settings.unauthenticated_grace_seconds or None,
            http_requests=settings.http_requests_per_address,
            http_window=settings.http_window_seconds,
        )


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

    def take(self, now: float) -> float:
        """Take one token: 0.0, or (none left, nothing taken) the seconds until one is."""
        self._refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.per_second

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

    def take(self, address: str) -> float:
        """0.0 when allowed (and counted); else the seconds to wait."""
        return self._table.get(address, self._clock()).take(self._clock())


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


@dataclass
class Refusal:
    """A request refused by a limit: the error code, a sentence, and when to try again."""

    code: ErrorCode
    message: str
    retry_after: float | None = None
    status: int = 429

    def error(self, message_id: Any = None) -> Error:
        detail = None if self.retry_after is None else {"retry_after": _seconds(self.retry_after)}
        return Error(id=message_id, code=self.code, message=self.message, detail=detail)


def _seconds(wait: float) -> int:
    return max(1, math.ceil(wait))


class Gate:
    """Every limit of one server: connection counts, per-address budgets, the sign-in
    back-off, and the grace period of connections that have not signed in."""

    def __init__(self, limits: Limits, *, monotonic: Monotonic) -> None:
        self.limits = limits
        self._clock = monotonic
        #: TCP connections open now (counted from accept to close), and by client address.
        self.total = 0
        self.by_address: dict[str, int] = {}
        self.registrations = RateTable(limits.registrations, limits.registration_window, monotonic)
        self.http = RateTable(limits.http_requests, limits.http_window, monotonic)
        self.auth = AuthBackoff(
            free=limits.auth_failures_free,
            base=limits.auth_backoff,
            most=limits.auth_backoff_max,
            memory=limits.auth_failure_memory,
            monotonic=monotonic,
        )
        #: Connections not signed in yet, in the order they opened, with when.
        self._unauthenticated: dict[ServerConnection, float] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        #: Refusals so far, by code, and connections closed for want of signing in.
        self.refused: dict[str, int] = {}
        self.expired = 0
        #: Called with the code of each refusal (metrics).
        self.on_refuse: Callable[[str], None] | None = None

    # -- addresses -----------------------------------------------------------------------

    def client_address(self, peer: str | None, forwarded: Iterable[str] = ()) -> str:
        """The address a client is counted by (see the module's docstring)."""
        address = _parse(peer)
        if address is None:
            return peer or "unknown"
        if self._trusted(address):
            hops = [hop.strip() for value in forwarded for hop in value.split(",")]
            for hop in reversed(hops):
                parsed = _parse(hop)
                if parsed is None:
                    break  # not written by a proxy of ours: stop at the last one we trust
                address = parsed
                if not self._trusted(parsed):
                    break
        if isinstance(address, ipaddress.IPv6Address):
            if address.ipv4_mapped is not None:
                return str(address.ipv4_mapped)
            return str(ipaddress.IPv6Network((address, 64), strict=False))
        return str(address)

    def _trusted(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        return any(address in network for network in self.limits.trusted_proxies)

    def exempt(self, address: str) -> bool:
        if not self.limits.exempt:
            return False
        try:
            network = ipaddress.ip_network(address, strict=False)
        except ValueError:
            return False
        return any(
            network.version == ex.version and network.subnet_of(ex)  # type: ignore[arg-type]
            for ex in self.limits.exempt
        )

    def _refuse(self, refusal: Refusal) -> Refusal:
        self.refused[refusal.code.value] = self.refused.get(refusal.code.value, 0) + 1
        if self.on_refuse is not None:
            self.on_refuse(refusal.code.value)
        return refusal

    # -- connections ---------------------------------------------------------------------

    def opened(self) -> None:
        """A TCP connection was accepted."""
        self.total += 1

    def closed(self, address: str | None) -> None:
        """A TCP connection closed (``address``: the one it was admitted as, if it was)."""
        self.total -= 1
        if address is not None:
            left = self.by_address.get(address, 0) - 1
            if left > 0:
                self.by_address[address] = left
            else:
                self.by_address.pop(address, None)

    def admit(self, address: str) -> Refusal | None:
        """Count a connection (websocket or HTTP) for ``address``, or refuse it. A connection
        admitted must be let go with :meth:`closed` and that address."""
        if self.total > self.limits.max_connections:
            return self._refuse(
                Refusal(
                    ErrorCode.TOO_MANY_CONNECTIONS,
                    "the server is full: try again in a little while",
                    retry_after=5.0,
                    status=503,
                )
            )
        count = self.by_address.get(address, 0)
        if count >= self.limits.connections_per_address and not self.exempt(address):
            return self._refuse(
                Refusal(
                    ErrorCode.TOO_MANY_CONNECTIONS,
                    f"at most {self.limits.connections_per_address} connections from one "
                    "address: close one first",
                )
            )
        self.by_address[address] = count + 1
        return None

    # -- per-address budgets -------------------------------------------------------------

    def http_request(self, address: str) -> Refusal | None:
        if self.exempt(address):
            return None
        wait = self.http.take(address)
        if not wait:
            return None
        return self._refuse(
            Refusal(
                ErrorCode.RATE_LIMITED,
                f"too many requests: at most {self.limits.http_requests} every "
                f"{self.limits.http_window:g} s from one address",
                retry_after=wait,
            )
        )

    def registration(self, address: str) -> Refusal | None:
        if self.exempt(address):
            return None
        wait = self.registrations.take(address)
        if not wait:
            return None
        return self._refuse(
            Refusal(
                ErrorCode.RATE_LIMITED,
                f"too many new accounts from your address: at most {self.limits.registrations}"
                f" every {self.limits.registration_window:g} s; try again in "
                f"{_seconds(wait)} s",
                retry_after=wait,
            )
        )

    def sign_in(self, address: str) -> Refusal | None:
        """Refused while the address is locked out for failed sign-ins (not even checked)."""
        if self.exempt(address):
            return None
        wait = self.auth.wait(address)
        if not wait:
            return None
        return self._refuse(
            Refusal(
                ErrorCode.RATE_LIMITED,
                f"too many failed sign-ins from your address: try again in {_seconds(wait)} s",
                retry_after=wait,
            )
        )

    def sign_in_failed(self, address: str) -> None:
        if not self.exempt(address):
            self.auth.failed(address)

    # -- the grace period before signing in ---------------------------------------------

    def unauthenticated(self, connection: ServerConnection) -> None:
        if self.limits.unauthenticated_grace is not None:
            self._unauthenticated[connection] = self._clock()

    def authenticated(self, connection: ServerConnection) -> None:
        self._unauthenticated.pop(connection, None)

    forget = authenticated

    def sweep(self) -> int:
        """Close the connections that have not signed in within the grace period (each
        gets an ``error`` ``not-authenticated``, then close code 1008); returns how many."""
        grace = self.limits.unauthenticated_grace
        if grace is None:
            return 0
        deadline = self._clock() - grace
        expired = []
        for connection, since in self._unauthenticated.items():
            if since > deadline:
                break  # in the order they opened: the rest are younger
            expired.append(connection)
        for connection in expired:
            del self._unauthenticated[connection]
            task = asyncio.create_task(self._expire(connection, grace))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)
        self.expired += len(expired)
        return len(expired)

    async def _expire(self, connection: ServerConnection, grace: float) -> None:
        from websockets.exceptions import ConnectionClosed

        message = f"sign in (auth or register) within {grace:g} s of connecting; closing"
        try:
            await connection.send(encode(Error(code=ErrorCode.NOT_AUTHENTICATED, message=message)))
            await connection.close(CLOSE_POLICY, "sign in first")
        except ConnectionClosed:
            pass

    def start(self) -> None:
        grace = self.limits.unauthenticated_grace
        if grace is not None and self._sweeper is None:
            self._sweeper = asyncio.create_task(self._sweep_every(min(1.0, grace / 4)))

    async def _sweep_every(self, interval: float) -> None:
        while True:
            await asyncio.sleep(interval)
            self.sweep()

    async def close(self) -> None:
        tasks = [task for task in (self._sweeper, *self._closing) if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _parse(text: str | None) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    if not text:
        return None
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None


__all__ = [
    "AuthBackoff",
    "Bucket",
    "Gate",
    "Limits",
    "RateTable",
    "Refusal",
    "networks",
]
