"""``/metrics``: this node's figures in the Prometheus text format (``prometheus-client``).

Each server has a registry of its own (several servers may run in one process: tests).

| metric | kind | what |
|---|---|---|
| ``simon_connections`` | gauge | TCP connections open now (websockets, handshakes, HTTP) |
| ``simon_websockets`` | gauge | websocket sessions open now |
| ``simon_games`` | gauge | games held in memory |
| ``simon_messages_total{type}`` | counter | client messages handled, by type |
| ``simon_round_trip_seconds{type}`` | histogram | from a message read to its replies sent |
| ``simon_commit_seconds{outcome}`` | histogram | one group commit of the action log |
| ``simon_errors_total{code}`` | counter | ``error`` replies and refusals, by code |
| ``simon_backend_up{service}`` | gauge | 1 when the database / Redis answered the last probe |
| ``simon_backend_latency_seconds{service}`` | gauge | that probe's round trip |
| ``simon_breaker_open{service}`` | gauge | 1 while a breaker is open or half-open |
| ``simon_breaker_skipped_total{service}`` | counter | calls a breaker skipped (not made) |
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from server.protocol import Error, Reply

if TYPE_CHECKING:
    from server.breaker import Breaker
    from server.play.hub import Hub
    from server.store import Store

    from .health import Health
    from .limits import Gate

#: Round trips of a move are well under a millisecond on a quiet node; commits a few.
ROUND_TRIP_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)
_COMMIT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
_ERROR_CODE = re.compile(r'"code":"([a-z-]{1,40})"')
CONTENT_TYPE = CONTENT_TYPE_LATEST


class MessageTimes(Collector):
    """``simon_messages_total`` and ``simon_round_trip_seconds``, by message type: observed
    once per message, so kept in plain lists and turned into metrics at scrape time.

    prometheus-client's own Counter and Histogram take a lock per increment (three for one
    message), which the event loop's single thread does not need: 3 us a message, 1-2% of
    a move's CPU.
    """

    def __init__(self, buckets: tuple[float, ...] = ROUND_TRIP_BUCKETS) -> None:
        self._bounds = buckets
        self._labels = [floatToGoString(bound) for bound in buckets]  # type: ignore[no-untyped-call]
        self._labels.append("+Inf")
        #: per type: a count per bucket (the last one above every bound), then the sum
        self._by_type: dict[str, list[float]] = {}

    def observe(self, message_type: str, seconds: float) -> None:
        counts = self._by_type.get(message_type)
        if counts is None:
            counts = self._by_type[message_type] = [0.0] * (len(self._bounds) + 2)
        counts[bisect_left(self._bounds, seconds)] += 1  # the first bound >= seconds: its le
        counts[-1] += seconds

    def collect(self) -> Iterator[Metric]:
        messages = CounterMetricFamily(
            "simon_messages", "client messages handled, by type", labels=["type"]
        )
        round_trips = HistogramMetricFamily(
            "simon_round_trip_seconds",
            "from a client message read to its replies sent, by type",
            labels=["type"],
        )
        for message_type, counts in self._by_type.items():
            cumulative, total = [], 0.0
            for label, count in zip(self._labels, counts[:-1], strict=True):
                total += count
                cumulative.append((label, total))
            messages.add_metric([message_type], total)
            round_trips.add_metric([message_type], cumulative, counts[-1])
        yield messages
        yield round_trips


class _BreakerFigures(Collector):
    """The breakers' figures, read from each at scrape time (each counts for itself)."""

    def __init__(self) -> None:
        self.breakers: dict[str, Breaker] = {}

    def collect(self) -> Iterator[Metric]:
        opened = GaugeMetricFamily(
            "simon_breaker_open",
            "1 while a breaker skips its service (open or half-open)",
            labels=["service"],
        )
        skipped = CounterMetricFamily(
            "simon_breaker_skipped", "calls a breaker skipped (not made)", labels=["service"]
        )
        for service, breaker in self.breakers.items():
            opened.add_metric([service], 0 if breaker.state == "closed" else 1)
            skipped.add_metric([service], breaker.skipped)
        yield opened
        yield skipped


class Metrics:
    def __init__(self, hub: Hub, gate: Gate, health: Health) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._health = health
        Gauge("simon_connections", "TCP connections open now", registry=self.registry).set_function(
            lambda: gate.total
        )
        Gauge(
            "simon_websockets", "websocket sessions open now", registry=self.registry
        ).set_function(lambda: hub.days.listener_count)
        Gauge("simon_games", "games held in memory", registry=self.registry).set_function(
            lambda: len(hub.live)
        )
        Gauge(
            "simon_race_followers", "connections following a daily race", registry=self.registry
        ).set_function(lambda: hub.standings.follower_count)
        Gauge(
            "simon_room_followers",
            "connections in or following a race room (racers and spectators)",
            registry=self.registry,
        ).set_function(lambda: hub.rooms.follower_count)
        self._breakers = _BreakerFigures()
        self.registry.register(self._breakers)
        self.message_times = MessageTimes()
        self.registry.register(self.message_times)
        self.commit = Histogram(
            "simon_commit_seconds",
            "one group commit of the action log, by outcome",
            ["outcome"],
            buckets=_COMMIT_BUCKETS,
            registry=self.registry,
        )
        self.errors = Counter(
            "simon_errors", "error replies and refusals, by code", ["code"], registry=self.registry
        )
        self.backend_up = Gauge(
            "simon_backend_up", "1 when the service answered the last probe", ["service"],
            registry=self.registry,
        )  # fmt: skip
        self.backend_latency = Gauge(
            "simon_backend_latency_seconds", "the last probe's round trip", ["service"],
            registry=self.registry,
        )  # fmt: skip

    def watch_breaker(self, service: str, breaker: Breaker) -> None:
        """``simon_breaker_open`` and ``simon_breaker_skipped_total`` of one breaker."""
        self._breakers.breakers[service] = breaker

    def watch_commits(self, store: Store) -> None:
        ok, failed = self.commit.labels("ok"), self.commit.labels("failed")

        def observe(seconds: float, succeeded: bool) -> None:
            (ok if succeeded else failed).observe(seconds)

        store.log.on_commit = observe

    def handled(self, message_type: str, seconds: float, replies: Sequence[Reply]) -> None:
        """One message answered: count it, time it, and count its error replies."""
        self.message_times.observe(message_type, seconds)
        for reply in replies:
            if type(reply) is Error:
                self.error(reply)

    def error(self, error: Error) -> None:
        self.errors.labels(error.code).inc()

    def http_error(self, body: str) -> None:
        """An HTTP answer over 400: its body is made (and encoded) by the page or the
        handler that refused, so its code is read back from the text."""
        found = _ERROR_CODE.search(body)
        self.errors.labels(found.group(1) if found else "unknown").inc()

    def refused(self, code: str) -> None:
        self.errors.labels(code).inc()

    async def render(self) -> bytes:
        """The text exposition, with the services probed now."""
        for service, report in (await self._health.check()).items():
            self.backend_up.labels(service).set(1 if report["ok"] else 0)
            if "latency_ms" in report:
                self.backend_latency.labels(service).set(report["latency_ms"] / 1000)
        return generate_latest(self.registry)


__all__ = ["CONTENT_TYPE", "Metrics"]
