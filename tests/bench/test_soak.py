"""The soak bench: its arithmetic, and one short run end to end (two real nodes on PostgreSQL
and Redis behind Debian's nginx, a handful of clients for about 20 s), so the commands in
docs/performance.md keep working and the report keeps its shape."""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from websockets.asyncio.server import ServerConnection, serve

from bench import crowd_clients
from bench.cluster import errors_by_code
from bench.crowd import Crowd
from bench.crowd_clients import Client
from bench.crowd_fleet import spread, spread_over
from bench.crowd_tally import Share, Takes, Tally, Unexpected, merged
from bench.race_digest import client_shares
from bench.soak import Options, slope_mib_per_minute
from tests.support.nginx import NGINX_CONF, templated
from tests.support.services import POSTGRES_ADMIN_DSN, REDIS_URL

ROOT = Path(__file__).resolve().parents[2]


def test_tallies_of_several_processes_add_up_and_keep_the_extremes() -> None:
    one = Tally(moves=3, followers=2, follower_max=4, follower_min=1, resent_unavailable=2)
    two = Tally(moves=5, resent_unavailable=1)
    one.histogram[500] += 3
    two.histogram[500] += 1
    two.histogram[1230] += 4
    one.expected["bad-json"] += 2
    two.unexpected["player: move illegal-move"] += 1
    two.examples["player: move illegal-move"] = ["{...}"]
    two.min_gap = 0.98
    total = merged([json.loads(json.dumps(t.as_json())) for t in (one, two)])
    assert total["moves"] == 8 and total["followers"] == 2
    assert total["resent_unavailable"] == 3
    assert total["histogram"] == {500: 4, 1230: 4}
    assert total["expected"] == {"bad-json": 2}
    assert total["unexpected"] == {"player: move illegal-move": 1}
    assert total["examples"] == {"player: move illegal-move": ["{...}"]}
    assert total["min_gap"] == 0.98
    assert (total["follower_max"], total["follower_min"]) == (4, 1)  # two had no followers


async def test_a_sign_in_answered_unavailable_is_sent_again_and_counted_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stand-in server answers ``unavailable`` twice, then ``registered``; a move's
    ``unavailable`` stays a failure."""
    monkeypatch.setattr(crowd_clients, "RESEND_PAUSE", 0.01)
    received: list[dict[str, object]] = []

    async def answer(websocket: ServerConnection) -> None:
        async for frame in websocket:
            message = json.loads(frame)
            received.append(message)
            if len(received) <= 2 or message["type"] == "undo":
                reply = {"type": "error", "id": message["id"], "code": "unavailable"}
            else:
                reply = {"type": "registered", "id": message["id"], "token": "t"}
            await websocket.send(json.dumps(reply))

    async with serve(answer, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        share = Share(worker=0, urls=[f"ws://127.0.0.1:{port}"], run="t")
        client = Client(Crowd(share), 0, "127.0.0.1", share.urls[0])
        await client.open()
        await client.sign_in("someone")
        assert client.token == "t"
        assert [m["id"] for m in received] == [1, 1, 1]  # the same id each time
        assert client.crowd.tally.resent_unavailable == 2
        with pytest.raises(Unexpected):
            await client.request({"type": "undo"}, "state")
        assert client.crowd.tally.unexpected == {"client: undo unavailable": 1}
        assert client.crowd.tally.resent_unavailable == 2
        await asyncio.wait_for(client.close(), 5)


def test_clients_are_spread_evenly_over_the_processes() -> None:
    assert spread(10, 3) == [4, 3, 3]
    assert spread(2, 4) == [1, 1, 0, 0]


def test_each_kind_of_client_goes_only_to_the_processes_that_take_it() -> None:
    takes: list[Takes] = ["players", "players", "followers", "followers", "followers"]
    assert spread_over(5, takes, "players") == [3, 2, 0, 0, 0]
    assert spread_over(7, takes, "followers") == [0, 0, 3, 2, 2]
    assert spread_over(4, ["all", "followers"], "players") == [4, 0]
    assert spread_over(4, ["all", "followers"], "followers") == [2, 2]
    assert spread_over(0, ["followers"], "players") == [0]
    with pytest.raises(ValueError, match="no client process takes players"):
        spread_over(1, ["followers"], "players")


def test_the_race_bench_runs_its_followers_apart_and_nicer_only_when_asked() -> None:
    def shares(**options: int) -> list[tuple[int, str, int]]:
        args = argparse.Namespace(seed=1, rate=0.2, connect_at_once=25, follower_nice=10, **options)
        return [(s.worker, s.takes, s.nice) for s in client_shares(args, ["ws://n"], "run")]

    assert shares(client_processes=2, follower_processes=0) == [(0, "all", 0), (1, "all", 0)]
    assert shares(client_processes=2, follower_processes=1) == [
        (0, "players", 0),
        (1, "players", 0),
        (2, "followers", 10),
    ]


def test_a_nodes_error_counts_are_read_from_its_metrics() -> None:
    text = (
        "# TYPE simon_errors_total counter\n"
        'simon_errors_total{code="bad-json"} 12.0\n'
        'simon_errors_total{code="not-authenticated"} 3.0\n'
        'simon_errors_created{code="bad-json"} 1.7e+09\n'
    )
    assert errors_by_code(text) == {"bad-json": 12, "not-authenticated": 3}


def test_memory_slope_is_per_minute_and_intervals_follow_the_length() -> None:
    assert slope_mib_per_minute([0, 30, 60], [100, 101, 102]) == pytest.approx(2.0)
    assert slope_mib_per_minute([60], [100]) is None
    assert Options(minutes=30).seconds_per_interval == 60
    assert Options(minutes=30).intervals == 30 and Options(minutes=30).warmup_intervals == 3
    assert Options(minutes=5).seconds_per_interval == 10 and Options(minutes=5).intervals == 30
    assert Options(minutes=5).warmup_intervals == 6
    assert Options(minutes=0.34, interval=5).warmup_intervals == 1


def test_nginx_conf_is_templated_for_addresses_only() -> None:
    text = templated(listen=18080, resolver=15353, node_port=18765)
    original = NGINX_CONF.read_text()
    assert "listen 127.0.0.1:18080 " in text and "resolver 127.0.0.1:15353 " in text
    assert "http://$simon_nodes:18765;" in text
    assert len(text.splitlines()) == len(original.splitlines())


def test_a_short_soak_reports_every_interval_and_no_unexpected_error(tmp_path: Path) -> None:
    figures = tmp_path / "soak.json"
    done = subprocess.run(
        [sys.executable, "-m", "bench.soak", "--minutes", "0.34", "--interval", "5",
         "--players", "6", "--followers", "3", "--vandals", "1", "--bad-rate", "4",
         "--registrations", "1", "--client-processes", "1",
         "--postgres", POSTGRES_ADMIN_DSN, "--redis", REDIS_URL, "--json", str(figures)],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-3000:]
    report = json.loads(figures.read_text())
    assert report["passed"] and report["problems"] == []
    rows = report["intervals"]
    assert len(rows) == 4
    for row in rows:
        assert len(row["rss_mib"]) == 2 and all(mib > 10 for mib in row["rss_mib"].values())
        assert row["moves"] > 0 and row["p50_ms"] <= row["p99_ms"]
        assert 0 < row["follower_digests_per_second"] <= 2
        assert row["unexpected"] == {}
        assert set(row["cpu_percent"]) >= {"nginx", "postgres", "redis", "clients"}
    totals = report["totals"]
    assert totals["unexpected"] == {}
    # every kind of bad frame and sign-up refusal got its code, and the nodes counted the same
    assert {"bad-json", "unknown-type", "invalid-message", "close-1009"} <= set(totals["expected"])
    assert {"not-authenticated", "already-authenticated"} <= set(totals["expected"])
    assert totals["registrations"] >= 10
    assert totals["server_errors"]["bad-json"] == totals["expected"]["bad-json"]
    assert set(report["memory"]) == {"node 127.0.0.2", "node 127.0.0.3"}
