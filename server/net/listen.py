"""The listening socket, and what happens at the file-descriptor limit.

When a process runs out of descriptors, asyncio's accept loop logs ``socket.accept() out of
system resource`` for every connection waiting in the backlog, on every loop turn (measured:
140,699 lines in 30 s) and spins. Here, instead:

- :func:`raise_descriptor_limit` lifts the soft ``RLIMIT_NOFILE`` to the hard limit at start;
- the server caps its connections below that limit (``SIMON_MAX_CONNECTIONS``, and the limit
  less ``SIMON_DESCRIPTOR_RESERVE`` for the database, Redis and logs);
- should accept still fail for want of descriptors, :class:`Listener` makes asyncio stop
  after the first failure of a burst (asyncio then rests the listener for a second), and
  :class:`AcceptErrors` logs one line per interval, with the count.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import resource
import socket
import time
from typing import Any

from .errors import CannotListen
from .limits import Monotonic

log = logging.getLogger(__name__)

#: asyncio's message for an accept that failed for want of descriptors or memory.
ACCEPT_OUT_OF_RESOURCES = "socket.accept() out of system resource"
_OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
#: After an accept fails for want of resources, the rest of that burst is skipped for this
#: long (asyncio itself tries the listener again a second later).
REST_SECONDS = 0.5
#: Used when the hard limit is unlimited.
UNLIMITED_TARGET = 1 << 20


def raise_descriptor_limit() -> tuple[int, int]:
    """Lift the soft ``RLIMIT_NOFILE`` to the hard limit; returns (before, now)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = UNLIMITED_TARGET if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError) as error:
            log.warning(
                "could not raise the descriptor limit from %d to %d: %s", soft, target, error
            )
    return soft, resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def connection_cap(max_connections: int, reserve: int) -> int:
    """At most ``max_connections``, and never more than the descriptors left after
    ``reserve`` (each connection holds one descriptor)."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        return max_connections
    return max(1, min(max_connections, soft - reserve))


class Listener(socket.socket):
    """A listening socket whose ``accept`` ends asyncio's burst after the first failure for
    want of resources: the later calls of the burst answer "nothing waiting" at once."""

    __slots__ = ("_monotonic", "_resting_until")

    def __init__(self, family: int, *, monotonic: Monotonic = time.monotonic) -> None:
        super().__init__(family, socket.SOCK_STREAM)
        self._monotonic = monotonic
        self._resting_until = 0.0

    def accept(self) -> tuple[socket.socket, Any]:
        if self._resting_until and self._monotonic() < self._resting_until:
            raise BlockingIOError(errno.EAGAIN, "resting after running out of descriptors")
        try:
            return super().accept()
        except OSError as error:
            if error.errno in _OUT_OF_RESOURCES:
                self._resting_until = self._monotonic() + REST_SECONDS
            raise


def bind(host: str, port: int) -> Listener:
    """A non-blocking :class:`Listener` bound to ``host`` (its first address) and ``port``,
    not listening yet (a connection is refused, not left waiting, until :func:`listen`);
    :class:`CannotListen` if the address cannot be had. Bound first thing at start, a busy
    port fails the start at once."""
    try:
        infos = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except OSError as error:
        raise CannotListen(host, port, error) from error
    family, _, _, _, address = infos[0]
    listener = Listener(family)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.setblocking(False)
    except OSError as error:
        listener.close()
        raise CannotListen(host, port, error) from error
    except BaseException:
        listener.close()
        raise
    return listener


def listen(host: str, port: int, *, backlog: int = 1024, bound: Listener | None = None) -> Listener:
    """A non-blocking :class:`Listener` on ``host`` and ``port`` (``bound`` by :func:`bind`
    already, or bound now), listening; :class:`CannotListen` if that fails."""
    listener = bound if bound is not None else bind(host, port)
    try:
        listener.listen(backlog)
    except OSError as error:
        listener.close()
        raise CannotListen(host, port, error) from error
    return listener


class _Tally:
    """Counts one kind of event and says when to log it: the first, then one line per
    ``interval`` seconds, with how many there were since the last line."""

    def __init__(self, interval: float, monotonic: Monotonic) -> None:
        self.interval = interval
        self._clock = monotonic
        self._next_log = float("-inf")
        self.failures = 0  # since the last line
        self.total = 0
        self.lines = 0

    def _count(self) -> int | None:
        """Count one; the number since the last line when this one is to be logged."""
        self.failures += 1
        self.total += 1
        now = self._clock()
        if now < self._next_log:
            return None
        self._next_log = now + self.interval
        self.lines += 1
        count, self.failures = self.failures, 0
        return count


class AcceptErrors(_Tally):
    """A loop exception handler that turns asyncio's flood of failed accepts into one log
    line per ``interval`` seconds (with how many there were); anything else goes on to the
    handler that was there before."""

    def __init__(
        self, interval: float, *, monotonic: Monotonic = time.monotonic, previous: Any = None
    ) -> None:
        super().__init__(interval, monotonic)
        self._previous = previous

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") != ACCEPT_OUT_OF_RESOURCES:
            if self._previous is not None:
                self._previous(loop, context)
            else:
                loop.default_exception_handler(context)
            return
        count = self._count()
        if count is not None:
            log.error(
                "cannot accept connections: %s (%d failed accepts since the last report); "
                "accepting slows to one try a second; raise the descriptor limit or lower "
                "SIMON_MAX_CONNECTIONS",
                context.get("exception"),
                count,
            )


#: asyncio's warning for a write to a socket the peer has reset (one per write after the
#: fifth, on every connection that keeps being written to).
SEND_FAILED = "socket.send() raised exception."


class SendFailures(_Tally, logging.Filter):
    """A filter for asyncio's logger: of its warnings of writes to reset sockets, one line
    per ``interval`` seconds server-wide, with how many there were; other records pass."""

    def __init__(self, interval: float, *, monotonic: Monotonic = time.monotonic) -> None:
        _Tally.__init__(self, interval, monotonic)
        logging.Filter.__init__(self)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg != SEND_FAILED:
            return True
        count = self._count()
        if count is None:
            return False
        record.msg = "%s (%d such writes since the last report; one report per %g s)"
        record.args = (SEND_FAILED, count, self.interval)
        return True


class ConnectionLines(logging.Filter):
    """A filter for websockets' server logger: its INFO lines come one per connection
    opened, answered or closed (a client reconnecting as fast as it can writes hundreds a
    second), so they pass only while that logger is enabled for DEBUG."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno != logging.INFO or logging.getLogger(record.name).isEnabledFor(
            logging.DEBUG
        )


__all__ = [
    "ACCEPT_OUT_OF_RESOURCES",
    "SEND_FAILED",
    "AcceptErrors",
    "ConnectionLines",
    "Listener",
    "SendFailures",
    "connection_cap",
    "listen",
    "raise_descriptor_limit",
]
