"""Limits per client address, and on the whole server, applied before a session sees a frame.

::

    gate = Gate(Limits.of(settings), monotonic=time.monotonic)
    address = gate.client_address(peer="10.0.0.5", forwarded=["203.0.113.7"])
    wait = gate.registration(address)     # 0.0: go on; else refused: try again in wait s

Connections are counted twice: at accept, by the TCP peer (before a byte is read, so
silent sockets from one address cannot fill the server), and once the request is read, by
the client address (:mod:`.addresses`: a trusted proxy's ``X-Forwarded-For``, IPv6 by its
/64, the exempt networks).

Every limiter takes the time from an injected monotonic clock, so tests move time by hand.
Memory stays bounded: each table keeps at most :data:`MAX_ADDRESSES` addresses, dropping
those back at rest first, then the oldest. The limiters are in :mod:`.limiters`; the grace
period before signing in in :mod:`.grace`; who a client is in :mod:`.addresses`.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from server.i18n import N_, say
from server.protocol import Error, ErrorCode

from .addresses import Addresses, Network, networks, parse_address
from .grace import CLOSE_POLICY, SignInGrace
from .limiters import MAX_ADDRESSES, AuthBackoff, Bucket, Monotonic, Offenders, RateTable

if TYPE_CHECKING:
    from server.settings import Settings

log = logging.getLogger(__name__)

#: Connections accepted past the cap in all that still get an answer (503) rather than
#: being dropped at accept.
HANDSHAKE_SLACK = 64
#: The same for one address past its cap (they get a 429 once their request is read).
ADDRESS_SLACK = 8
#: Frames refused in a row for the budget before the connection is closed (1008).
OVERDRAFT = 10
#: An offender (an address, for one kind of offence) is logged once in this many seconds.
OFFENDER_LOG_SECONDS = 600.0
#: Requests of the address's HTTP budget a replay costs (``/replay/ID``, its page, the
#: websocket's ``replay``): each is a whole game's actions read, sent and (a page) drawn,
#: many times a light page's work.
REPLAY_COST = 5


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
    messages: int = 100
    message_window: float = 10.0
    address_messages: int = 300
    address_message_window: float = 10.0
    first_bytes: float = 5.0
    fragments: int = 8

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
            messages=settings.rate_limit_messages,
            message_window=settings.rate_limit_window_seconds,
            address_messages=settings.messages_per_address,
            address_message_window=settings.address_message_window_seconds,
            first_bytes=settings.first_bytes_timeout_seconds,
            fragments=settings.max_message_fragments,
        )


@dataclass
class LimitRefusal:
    """A request refused by a limit: the error code, a sentence (a catalog id, ``params``
    its values, said in the language being spoken), and when to try again."""

    code: ErrorCode
    message: str
    retry_after: float | None = None
    status: int = 429
    params: dict[str, object] | None = None

    @property
    def sentence(self) -> str:
        """The message in the language being spoken."""
        return say(self.message, self.params)

    def error(self, message_id: Any = None) -> Error:
        detail = None if self.retry_after is None else {"retry_after": _seconds(self.retry_after)}
        return Error(id=message_id, code=self.code, message=self.sentence, detail=detail)


def _seconds(wait: float) -> int:
    return max(1, math.ceil(wait))


class FrameBudget:
    """One connection's budget: every frame it sends, a message or a control frame (ping,
    pong), takes a token from the connection's bucket and from its address's (shared by
    all the address's connections, so reconnecting buys nothing). A client that goes on
    after :data:`OVERDRAFT` refusals in a row is to be closed (:attr:`overdrawn`)."""

    __slots__ = ("_bucket", "_exempt", "_gate", "address", "refused_in_a_row")

    def __init__(self, gate: Gate, address: str) -> None:
        self._gate = gate
        self.address = address
        #: Worked out once: the address's budget is asked on every frame.
        self._exempt = gate.exempt(address)
        limits = gate.limits
        self._bucket = Bucket(
            limits.messages, limits.messages / limits.message_window, gate.connection_clock()
        )
        self.refused_in_a_row = 0

    def take(self) -> LimitRefusal | None:
        """None: go on (counted); else the refusal (nothing counted)."""
        refused = self._gate.frame(self.address, self._bucket, self._exempt)
        if refused is None:
            self.refused_in_a_row = 0
        else:
            self.refused_in_a_row += 1
        return refused

    @property
    def overdrawn(self) -> bool:
        return self.refused_in_a_row > OVERDRAFT


class Gate:
    """Every limit of one server: connection counts, per-address budgets, the sign-in
    back-off (limiters from :mod:`.limiters`), and the grace period of connections that
    have not signed in (:mod:`.grace`), each client counted by its address
    (:mod:`.addresses`)."""

    def __init__(
        self, limits: Limits, *, monotonic: Monotonic, connection_clock: Monotonic | None = None
    ) -> None:
        self.limits = limits
        self._clock = monotonic
        #: Who a client is: the address it is counted by, and whether that is exempt.
        self.addresses = Addresses(limits.trusted_proxies, limits.exempt)
        self.client_address = self.addresses.client_address
        self.trusted_peer = self.addresses.trusted_peer
        self.exempt = self.addresses.exempt
        #: What each connection's own budget refills by (the hub's clock, which tests move).
        self.connection_clock = connection_clock or monotonic
        #: TCP connections open now (counted from accept to close), by TCP peer (not
        #: trusted proxies, nor exempt addresses), and by client address.
        self.total = 0
        self.by_peer: dict[str, int] = {}
        self.by_address: dict[str, int] = {}
        #: Connections dropped at accept, and closed for sending nothing in time.
        self.dropped = 0
        self.silent = 0
        self.registrations = RateTable(limits.registrations, limits.registration_window, monotonic)
        self.http = RateTable(limits.http_requests, limits.http_window, monotonic)
        self.messages = RateTable(limits.address_messages, limits.address_message_window, monotonic)
        self.offenders = Offenders(OFFENDER_LOG_SECONDS, monotonic)
        self.auth = AuthBackoff(
            free=limits.auth_failures_free,
            base=limits.auth_backoff,
            most=limits.auth_backoff_max,
            memory=limits.auth_failure_memory,
            monotonic=monotonic,
        )
        #: Refusals so far, by code.
        self.refused: dict[str, int] = {}
        #: Called with the code of each refusal (metrics).
        self.on_refuse: Callable[[str], None] | None = None
        #: The grace period before signing in (its connections, its sweep).
        self.grace = SignInGrace(limits.unauthenticated_grace, monotonic=monotonic)
        self.unauthenticated = self.grace.unauthenticated
        self.authenticated = self.forget = self.grace.authenticated
        self.sweep = self.grace.sweep
        self.start = self.grace.start
        self.close = self.grace.close

    @property
    def expired(self) -> int:
        """Connections closed for want of signing in."""
        return self.grace.expired

    # -- refusals -----------------------------------------------------------------------

    def _refuse(self, refusal: LimitRefusal) -> LimitRefusal:
        self._refuse_code(refusal.code)
        return refusal

    def _refuse_code(self, code: ErrorCode) -> None:
        self.refused[code.value] = self.refused.get(code.value, 0) + 1
        if self.on_refuse is not None:
            self.on_refuse(code.value)

    # -- connections ---------------------------------------------------------------------

    def opened(self, peer: str | None = None) -> str | None:
        """A TCP connection was accepted from ``peer``: counted in all, and by the peer's
        address unless that is a trusted proxy (its clients are counted once their request
        is read) or exempt. Returns the address it was counted by, for :meth:`closed`."""
        self.total += 1
        parsed = parse_address(peer)
        if parsed is None or self.addresses.trusted(parsed):
            return None
        key = self.client_address(peer)
        if self.exempt(key):
            return None
        self.by_peer[key] = self.by_peer.get(key, 0) + 1
        return key

    def drop_at_accept(self, peer_key: str | None) -> bool:
        """Whether a connection just :meth:`opened` is to be dropped before a byte is read:
        far past the cap in all, or past its address's (a few past it are kept, to be
        answered 429 once their request is read)."""
        limits = self.limits
        over = self.total > limits.max_connections + HANDSHAKE_SLACK or (
            peer_key is not None
            and self.by_peer[peer_key] > limits.connections_per_address + ADDRESS_SLACK
        )
        if over:
            self.dropped += 1
            self._refuse_code(ErrorCode.TOO_MANY_CONNECTIONS)
            if peer_key is not None:
                self.offenders.offended(
                    "accept",
                    peer_key,
                    "dropping connections from %s at accept: more than %d open",
                    peer_key,
                    limits.connections_per_address,
                )
        return over

    def closed(self, address: str | None, peer_key: str | None = None) -> None:
        """A TCP connection closed (``address``: the one it was admitted as, if it was;
        ``peer_key``: what :meth:`opened` returned)."""
        self.total -= 1
        for table, key in ((self.by_address, address), (self.by_peer, peer_key)):
            if key is not None:
                left = table.get(key, 0) - 1
                if left > 0:
                    table[key] = left
                else:
                    table.pop(key, None)

    def fell_silent(self, peer_key: str | None) -> None:
        """A connection sent nothing within the first bytes' deadline (it is closed)."""
        self.silent += 1
        if peer_key is not None:
            self.offenders.offended(
                "silent",
                peer_key,
                "closing connections from %s that send nothing within %g s",
                peer_key,
                self.limits.first_bytes,
            )

    def admit(self, address: str) -> LimitRefusal | None:
        """Count a connection (websocket or HTTP) for ``address``, or refuse it. A connection
        admitted must be let go with :meth:`closed` and that address."""
        if self.total > self.limits.max_connections:
            return self._refuse(
                LimitRefusal(
                    ErrorCode.TOO_MANY_CONNECTIONS,
                    "the server is full: try again in a little while",
                    retry_after=5.0,
                    status=503,
                )
            )
        count = self.by_address.get(address, 0)
        if count >= self.limits.connections_per_address and not self.exempt(address):
            return self._refuse(
                LimitRefusal(
                    ErrorCode.TOO_MANY_CONNECTIONS,
                    "at most %(most)s connections from one address: close one first",
                    params={"most": self.limits.connections_per_address},
                )
            )
        self.by_address[address] = count + 1
        return None

    # -- per-address budgets -------------------------------------------------------------

    def http_request(self, address: str, cost: int = 1) -> LimitRefusal | None:
        """An HTTP request from ``address`` (or a database read over the websocket) that
        costs ``cost`` of its budget (a heavy one more, :data:`REPLAY_COST`), or the
        refusal (nothing taken)."""
        if self.exempt(address):
            return None
        sentence = N_("too many requests: at most %(most)s every %(seconds)s s from one address")
        return self._budget(address, cost, sentence)

    def account_request(self, player_id: int, cost: int = 1) -> LimitRefusal | None:
        """A request about an account's sign-ins: ``cost`` of the account's own budget, the
        size of an address's, whichever addresses ask (guesses at one account's codes)."""
        sentence = N_("too many requests about this account: at most %(most)s every %(seconds)s s")
        return self._budget(f"account:{player_id}", cost, sentence)

    def _budget(self, key: str, cost: int, sentence: str) -> LimitRefusal | None:
        wait = self.http.take(key, cost)
        params = {
            "most": self.limits.http_requests,
            "seconds": format(self.limits.http_window, "g"),
        }
        refusal = LimitRefusal(ErrorCode.RATE_LIMITED, sentence, params=params, retry_after=wait)
        return self._refuse(refusal) if wait else None

    def frame_budget(self, address: str) -> FrameBudget:
        """The budget of a connection from ``address`` (see :class:`FrameBudget`)."""
        return FrameBudget(self, address)

    def frame(self, address: str, bucket: Bucket, exempt: bool = False) -> LimitRefusal | None:
        """One frame of a connection whose own budget is ``bucket``, from ``address``
        (``exempt`` from the addresses' budgets)."""
        wait = bucket.take(self.connection_clock())
        if wait:
            limits = self.limits
            return self._refuse(
                LimitRefusal(
                    ErrorCode.RATE_LIMITED,
                    "too many messages: at most %(most)s every %(seconds)s s",
                    params={"most": limits.messages, "seconds": format(limits.message_window, "g")},
                    retry_after=wait,
                )
            )
        if exempt:
            return None
        refused = self.handshake(address)
        if refused is not None:
            bucket.give_back()  # not spent after all
        return refused

    def handshake(self, address: str) -> LimitRefusal | None:
        """A websocket handshake from ``address``: one message of the address's budget, so
        an address that has spent it cannot open connection after connection either."""
        if self.exempt(address):
            return None
        wait = self.messages.take(address)
        if not wait:
            return None
        return self._refuse(
            LimitRefusal(
                ErrorCode.RATE_LIMITED,
                "too many messages from your address: at most %(most)s every %(seconds)s s",
                params={
                    "most": self.limits.address_messages,
                    "seconds": format(self.limits.address_message_window, "g"),
                },
                retry_after=wait,
            )
        )

    def overdrawn(self, address: str, what: str) -> None:
        """A connection from ``address`` is closed for going on over its budget."""
        self.offenders.offended(
            "budget",
            address,
            "closing a connection from %s: too many %s, sent on over the budget",
            address,
            what,
        )

    def fragmented(self, address: str) -> None:
        """A connection from ``address`` is closed for a message in too many fragments."""
        self._refuse_code(ErrorCode.INVALID_MESSAGE)
        self.offenders.offended(
            "fragments",
            address,
            "closing a connection from %s: a message in more than %d fragments",
            address,
            self.limits.fragments,
        )

    def registration(self, address: str) -> LimitRefusal | None:
        """A new account's place in the address's budget, taken before the account is
        made (so registrations under way at once cannot all pass), or the refusal. One
        that makes no account gives its place back (:meth:`registration_failed`)."""
        if self.exempt(address):
            return None
        wait = self.registrations.take(address)
        if not wait:
            return None
        return self._refuse(
            LimitRefusal(
                ErrorCode.RATE_LIMITED,
                "too many new accounts from your address: at most %(most)s every %(seconds)s "
                "s; try again in %(wait)s s",
                params={
                    "most": self.limits.registrations,
                    "seconds": format(self.limits.registration_window, "g"),
                    "wait": _seconds(wait),
                },
                retry_after=wait,
            )
        )

    def registration_failed(self, address: str) -> None:
        """A registration :meth:`registration` let through made no account (a name taken
        or refused, a connection signed in already): only accounts made count."""
        if not self.exempt(address):
            self.registrations.give_back(address)

    def sign_in(self, address: str) -> LimitRefusal | None:
        """Refused while the address is locked out for failed sign-ins (not even checked)."""
        if self.exempt(address):
            return None
        wait = self.auth.wait(address)
        if not wait:
            return None
        return self._refuse(
            LimitRefusal(
                ErrorCode.RATE_LIMITED,
                "too many failed sign-ins from your address: try again in %(wait)s s",
                params={"wait": _seconds(wait)},
                retry_after=wait,
            )
        )

    def sign_in_failed(self, address: str) -> None:
        if not self.exempt(address):
            self.auth.failed(address)


__all__ = [
    "ADDRESS_SLACK",
    "CLOSE_POLICY",
    "HANDSHAKE_SLACK",
    "MAX_ADDRESSES",
    "OVERDRAFT",
    "REPLAY_COST",
    "AuthBackoff",
    "Bucket",
    "FrameBudget",
    "Gate",
    "LimitRefusal",
    "Limits",
    "Monotonic",
    "Offenders",
    "RateTable",
]
