"""``/metrics`` in the Prometheus text format, read back with prometheus-client's own
parser after real traffic; and ``SIMON_LOG_FORMAT=json``."""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
import urllib.request
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from server.logs import JsonFormatter
from server.net.metrics import ROUND_TRIP_BUCKETS, MessageTimes
from server.play.daily.deals import Proof
from tests.conftest import Backend
from tests.support.kills import ROOT, embedded_environment, server_command
from tests.support.servers import (
    Client,
    fresh_clock,
    get_json,
    quick_prover,
    server_settings,
    serving,
    unique_name,
)


def _scrape(url: str) -> tuple[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]]:
    with urllib.request.urlopen(url, timeout=10) as response:
        content_type = response.headers["Content-Type"]
        text = response.read().decode()
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    return content_type, samples


async def test_metrics_count_messages_commits_errors_and_backends(backend: Backend) -> None:
    async with serving(server_settings(backend)) as server, Client.connect(server.url) as client:
        await client.request({"type": "register", "name": unique_name("m")})
        await client.request({"type": "start", "mode": "practice", "code": "SS1-S1-AAAAABD"})
        moved = await client.request({"type": "move", "move": "1-4"})
        assert moved["type"] in ("moved", "error"), moved
        await client.request({"type": "auto", "column": 1})
        await client.request({"type": "ping", "suits": 1.5})  # invalid-message
        await client.request({"type": "resume", "game": "nope"})  # not-found
        status, _ = await get_json(server.http_url + "/leaderboard?limit=0")
        assert status == 400
        await client.request({"type": "race", "suits": 2})  # one follower
        await client.request({"type": "race_new"})  # and one racer in a room

        content_type, samples = await asyncio.to_thread(_scrape, server.http_url + "/metrics")
        assert content_type.startswith("text/plain")

        def value(name: str, **labels: str) -> float:
            return samples.get((name, tuple(sorted(labels.items()))), 0.0)

        assert value("simon_messages_total", type="register") == 1
        assert value("simon_messages_total", type="start") == 1
        assert value("simon_messages_total", type="auto") == 1
        assert value("simon_round_trip_seconds_count", type="move") == 1
        assert value("simon_round_trip_seconds_sum", type="move") > 0
        assert value("simon_commit_seconds_count", outcome="ok") >= 1
        assert value("simon_errors_total", code="invalid-message") == 2  # websocket + HTTP
        assert value("simon_errors_total", code="not-found") == 1
        assert value("simon_websockets") == 1 and value("simon_connections") >= 1
        assert value("simon_race_followers") == 1
        assert value("simon_room_followers") == 1
        assert value("simon_backend_up", service="database") == 1
        assert value("simon_backend_latency_seconds", service="database") > 0
        if backend.redis_url:
            assert value("simon_backend_up", service="redis") == 1


async def test_healthz_while_proving_answers_200_and_counts_no_error(backend: Backend) -> None:
    go = asyncio.Event()

    async def prover(code: str) -> Proof:
        await go.wait()  # today's deals are being proven until the test says
        return await quick_prover(code)

    settings = server_settings(backend)
    async with serving(settings, clock=fresh_clock(), prover=prover, ready=False) as server:
        try:
            for _ in range(3):
                status, health = await get_json(server.http_url + "/healthz")
                assert status == 200 and health["daily"] == "proving"  # serving meanwhile
            status, _ = await get_json(server.http_url + "/leaderboard?limit=0")
            assert status == 400  # a refusal still counts
            _, samples = await asyncio.to_thread(_scrape, server.http_url + "/metrics")
        finally:
            go.set()
    errors = {
        labels: value for (name, labels), value in samples.items() if name == "simon_errors_total"
    }
    assert errors == {(("code", "invalid-message"),): 1.0}


def test_json_log_lines_carry_level_logger_message_and_exception() -> None:
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.LogRecord("server.x", logging.ERROR, "f", 1, "failed %s", ("a",), None)
        record.exc_info = sys.exc_info()
    line = json.loads(JsonFormatter().format(record))
    assert line["level"] == "ERROR" and line["logger"] == "server.x"
    assert line["message"] == "failed a" and "ValueError: boom" in line["exception"]
    assert line["time"].endswith("Z")


def test_simon_log_format_json_makes_every_line_json(tmp_path: Path) -> None:
    env = embedded_environment(tmp_path / "data")
    env.update(SIMON_LOG_FORMAT="json", SIMON_LOG_LEVEL="INFO")
    result = subprocess.run(
        [*server_command(), "migrate"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stderr.splitlines() if line.strip()]
    assert lines, result.stderr
    assert {"time", "level", "logger", "message"} <= set(lines[-1]), lines[-1]
    assert any(line["message"] == "the database schema is up to date" for line in lines), lines


def test_message_times_match_prometheus_clients_own_counter_and_histogram() -> None:
    """The lock-free message timings expose what a Counter and a Histogram would."""
    seconds = [0.0, 0.0005, 0.0004, 0.001, 0.003, 0.05, 0.7, 5.0, 12.0, 0.0005]
    times = MessageTimes()
    ours = CollectorRegistry()
    ours.register(times)
    theirs = CollectorRegistry()
    messages = Counter("simon_messages", "client messages handled, by type", ["type"],
                       registry=theirs)  # fmt: skip
    round_trips = Histogram(
        "simon_round_trip_seconds",
        "from a client message read to its replies sent, by type",
        ["type"],
        buckets=ROUND_TRIP_BUCKETS,
        registry=theirs,
    )
    for n, value in enumerate(seconds):
        message_type = "move" if n % 3 else "ping"
        times.observe(message_type, value)
        messages.labels(message_type).inc()
        round_trips.labels(message_type).observe(value)

    def samples(registry: CollectorRegistry) -> set[tuple[str, tuple[tuple[str, str], ...], float]]:
        return {
            (sample.name, tuple(sorted(sample.labels.items())), sample.value)
            for family in text_string_to_metric_families(generate_latest(registry).decode())
            for sample in family.samples
            if not sample.name.endswith("_created")
        }

    assert samples(ours) == samples(theirs)
    assert ("simon_round_trip_seconds_count", (("type", "move"),), 6.0) in samples(ours)
