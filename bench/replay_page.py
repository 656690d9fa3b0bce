"""Replay page flood: what one address asking a long game's replay page again and again
costs a real ``simon-server``, and another client's ping round trip meanwhile.

Run from the repository root::

    python -m bench.replay_page                      # this tree's server
    python -m bench.replay_page --tree ../other      # another checkout's, for a before/after

Before the server starts, a public replay of ``--actions`` actions (yesterday's ranked
daily: a move and its undo, again and again) is written into a fresh embedded SQLite
database in a temporary folder. The server then runs as a process of its own on it
(:mod:`bench.solo`, no limit exempt), listening on 127.0.0.1. An attacker process, from
127.0.0.2, asks ``/replay/ID?utm_source=N`` (a new ``N`` each time, so that a cache keyed
by the raw query never answers twice) with ``--concurrency`` requests at a time, for
``--seconds``. Meanwhile a client from 127.0.0.3 sends websocket pings one after the other
and times each answer. Printed: the page's size, the attacker's answers by status, the
server's CPU seconds over the flood (from ``/proc``), its resident memory before and
after, and the other client's ping round trip (median, 99th percentile and most) with no
flood and under it.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import multiprocessing
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.solo import round_trips, solo_server, summary  # noqa: E402
from server.store import Store  # noqa: E402
from tests.support.store import resigned_long_daily  # noqa: E402

ATTACKER = "127.0.0.2"


async def long_game(folder: str, actions: int) -> str:
    """Write yesterday's ranked daily of ``actions`` actions into the folder's database: its
    id (the day is the machine's UTC yesterday, over for the server that starts next)."""
    store = await Store.open(f"sqlite+aiosqlite:///{Path(folder) / 'simon.sqlite3'}")
    try:
        now = datetime.now(UTC)
        yesterday = now - timedelta(days=1)
        game = await resigned_long_daily(
            store, day=yesterday.date(), actions=actions, finished_at=yesterday
        )
        return game.id
    finally:
        await store.close()


def _get_page(port: int, path: str, source: str, timeout: float) -> tuple[int, bytes]:
    """A GET of ``path`` from ``source`` as a browser asks for a page (HTML, not the JSON a
    program gets): its status and body."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, source_address=(source, 0)
    )
    try:
        connection.request("GET", path, headers={"Accept": "text/html"})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _attack(port: int, path: str, seconds: float, concurrency: int, found: Any) -> None:
    """Ask ``path?utm_source=N`` from :data:`ATTACKER` until ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    counter = iter(range(10**9))

    def one_worker() -> Counter[int]:
        statuses: Counter[int] = Counter()
        while time.monotonic() < deadline:
            try:
                status, _ = _get_page(port, f"{path}?utm_source={next(counter)}", ATTACKER, 60)
            except OSError:
                status = 0
            statuses[status] += 1
        return statuses

    with ThreadPoolExecutor(concurrency) as pool:
        total: Counter[int] = sum((f.result() for f in [pool.submit(one_worker) for _ in
                                   range(concurrency)]), Counter())  # fmt: skip
    found.put(dict(total))


async def run(
    tree: Path, actions: int, seconds: float, concurrency: int, log_level: str
) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder:
        game = await long_game(folder, actions)
        async with solo_server(tree, log_level, folder=Path(folder)) as server:
            path = f"/replay/{game}"
            started = time.perf_counter()
            status, body = await asyncio.to_thread(_get_page, server.port, path, "127.0.0.4", 120)
            first_seconds = time.perf_counter() - started
            quiet = await round_trips(server.url, seconds, answer_within=60)
            rss_before = server.rss_mib()
            found: Any = multiprocessing.Queue()
            attacker = multiprocessing.Process(
                target=_attack, args=(server.port, path, seconds, concurrency, found)
            )
            cpu_before = server.cpu_seconds()
            began = time.monotonic()
            attacker.start()
            under = await round_trips(server.url, seconds, answer_within=60)
            statuses = await asyncio.to_thread(found.get, True, 600)
            attacker.join()
            elapsed = time.monotonic() - began
            cpu = server.cpu_seconds() - cpu_before
            rss_after = server.rss_mib()
    return {
        "tree": str(tree),
        "actions": actions,
        "page_status": status,
        "page_bytes": len(body),
        "page_first_seconds": round(first_seconds, 3),
        "seconds": round(elapsed, 2),
        "attacker_answers": statuses,
        "server_cpu_seconds": round(cpu, 2),
        "server_rss_mib_before": rss_before,
        "server_rss_mib_after": rss_after,
        "ping_quiet": summary(quiet),
        "ping_under_flood": summary(under),
    }


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--actions 300 --seconds 1 --concurrency 2"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose server runs")
    parser.add_argument("--actions", type=int, default=6000, help="the long game's actions")
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the flood lasts")
    parser.add_argument("--concurrency", type=int, default=12, help="requests at a time")
    parser.add_argument("--log-level", default="WARNING", help="the server's SIMON_LOG_LEVEL")
    args = parser.parse_args()
    report = asyncio.run(
        run(args.tree.resolve(), args.actions, args.seconds, args.concurrency, args.log_level)
    )
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
