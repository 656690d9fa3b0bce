"""Web pages benchmark: ``/`` and the other pages at a million finished daily results.

::

    python -m bench.web --rows 1000000

Makes a fresh PostgreSQL database, fills it in the server (``INSERT ... SELECT`` over
``generate_series``) with ``--rows`` finished daily results, ``--per-day`` of them a day
(split 5:3:2 over 1, 2 and 4 suits) back from today, then starts a whole server on it
(PostgreSQL and the Redis rank cache) with a manual clock at noon of the fullest day, and
measures, for each page:

- the **server time**: the server's own answer to a plain GET, from the parsed request to
  the response (``server.net.http.respond``, what websockets' ``process_request`` calls),
  one request at a time, with the node's one-second page cache off so every request reads
  the database and renders (and once more with the cache on, for ``/``);
- the **bytes transferred**: a real GET over a socket with a browser's ``Accept-Encoding`` (Brotli),
  status line, headers and body counted as they arrive.

The database and the Redis keys are removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import time
import uuid
from datetime import UTC, date, datetime, timedelta
from datetime import time as clock_time
from pathlib import Path
from typing import Any, Final

import asyncpg
import redis.asyncio as redis
from websockets.datastructures import Headers
from websockets.http11 import Request

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.net import run_server
from server.net.http import respond
from server.play.clock import ManualClock
from server.play.daily.deals import Proof
from server.settings import Settings
from server.web import Source
from tests.support.services import POSTGRES_ADMIN_DSN, REDIS_URL

TODAY = date(2026, 11, 1)
SHARES = {1: 0.5, 2: 0.3, 4: 0.2}
BROWSER = {
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "Accept-Encoding": "gzip, deflate, br, zstd",
    "Accept-Language": "en-GB,en;q=0.9",
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko)",
}

FILL_BOARD = """
WITH drawn AS (
    SELECT n,
           random() < 0.6 AS won,
           50 + floor(random() * 200)::int AS moves,
           floor(random() * 4)::int AS removed,
           round((40 + random() * 3560)::numeric, 3)::float8 AS elapsed,
           ($1::date::timestamp AT TIME ZONE 'UTC') + make_interval(secs => random() * 43000)
               AS finished
    FROM generate_series(1, $3::int) AS n
)
INSERT INTO games (id, player_id, mode, code, suits, day, bot, held, started_at, finished_at,
                   won, resigned, moves, score, removed, elapsed)
SELECT md5($1::date::text || '-' || $2::smallint::text || '-' || n), n, 'daily',
       'SS1-S1-AAAAAAB', $2::smallint, $1::date,
       false, false, finished - make_interval(secs => elapsed), finished, won, false, moves,
       500 - moves + 100 * CASE WHEN won THEN 4 ELSE removed END,
       CASE WHEN won THEN 4 ELSE removed END, elapsed
FROM drawn
"""


def plan(rows: int, per_day: int) -> list[tuple[date, int, int]]:
    """(day, suits, results) from today back, ``per_day`` a day until ``rows``."""
    boards = []
    left, day = rows, TODAY
    while left > 0:
        today = min(left, per_day)
        for suits, share in SHARES.items():
            count = round(today * share)
            if count:
                boards.append((day, suits, count))
        left -= today
        day -= timedelta(days=1)
    return boards


async def fill(dsn: str, rows: int, per_day: int) -> list[tuple[date, int, int]]:
    boards = plan(rows, per_day)
    players = max(count for _, _, count in boards)
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute(
            "INSERT INTO players (id, name, name_key, created_at, bot, flagged) "
            "SELECT n, 'player' || n, 'player' || n, "
            "'2026-01-01T00:00:00Z', false, false FROM generate_series(1, $1::int) AS n",
            players,
        )
        await connection.execute(f"SELECT setval('players_id_seq', {players})")
        for day, suits, count in boards:
            await connection.execute(FILL_BOARD, day, suits, count)
        # Index-only scans need the visibility map; the planner needs statistics.
        await connection.execute("VACUUM ANALYZE players")
        await connection.execute("VACUUM ANALYZE games")
    finally:
        await connection.close()
    return boards


async def prove(code: str) -> Proof:
    return Proof(True, 61)  # every deal counts as winnable, par 61: no solver in the bench


def request(path: str) -> Request:
    return Request(path, Headers(BROWSER))


async def server_time(hub: Any, path: str, count: int) -> dict[str, Any]:
    for _ in range(min(20, count)):  # warm-up: connections, prepared statements, templates
        response = await respond(hub, request(path))
        assert response.status_code == 200, (path, response.status_code, response.body[:300])
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        await respond(hub, request(path))
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return {
        "p50_ms": round(statistics.median(samples), 2),
        "p99_ms": round(samples[min(len(samples) - 1, int(len(samples) * 0.99))], 2),
    }


async def transferred(host: str, port: int, path: str) -> dict[str, int]:
    """One real GET: every byte the server sent, and the body alone."""
    reader, writer = await asyncio.open_connection(host, port)
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}"]
    lines += [f"{name}: {value}" for name, value in BROWSER.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    await writer.drain()
    data = await reader.read()  # the server closes the connection after one answer
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    assert b"Content-Encoding: br" in head or b"Content-Encoding: gzip" in head, head
    return {"bytes": len(data), "body_bytes": len(body)}


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--rows 1000 --per-day 100 --requests 3"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="finished daily results")
    parser.add_argument("--per-day", type=int, default=100_000, help="results a day")
    parser.add_argument("--requests", type=int, default=300, help="timed requests per page")
    parser.add_argument("--postgres", default=POSTGRES_ADMIN_DSN)
    parser.add_argument("--redis", default=REDIS_URL)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)

    run = uuid.uuid4().hex[:10]
    name = f"simon_bench_web_{run}"
    prefix = f"simon-bench-web-{run}"
    admin = await asyncpg.connect(args.postgres)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    dsn = f"{args.postgres.rsplit('/', 1)[0]}/{name}"
    settings = Settings(
        host="127.0.0.1",
        port=0,
        database_url=dsn,
        redis_url=args.redis,
        redis_prefix=prefix,
        secret=f"bench-{run}",
        ping_interval_seconds=None,
        log_level="WARNING",
    )
    clock = ManualClock(datetime.combine(TODAY, clock_time(12), UTC))
    figures: dict[str, Any] = {"rows": args.rows}
    try:
        async with run_server(settings, clock=clock, prover=prove) as server:  # migrates
            start = time.perf_counter()
            boards = await fill(dsn, args.rows, args.per_day)
            today = {suits: count for day, suits, count in boards if day == TODAY}
            print(
                f"filled {args.rows} results over {len({b[0] for b in boards})} days "
                f"(today {today}) in {time.perf_counter() - start:.1f} s"
            )
            for suits in SHARES:
                await server.hub.daily.deal(TODAY - timedelta(days=1), suits)
            source = Source.of(server.hub)
            source.cache_seconds = 0
            start = time.perf_counter()
            await respond(server.hub, request("/"))  # loads the rank caches of today's boards
            print(f"first / (rank caches loaded) in {time.perf_counter() - start:.2f} s")
            deep = (await server.hub.queries.leaderboard(
                day=TODAY, suits=1, limit=1, after=None, board="humans"
            )).next  # fmt: skip
            pages = {
                "/": "/",
                "/live/ (what the page fetches every 3 s)": "/live/",
                "/day (a whole day, first 50)": f"/day/{TODAY}?suits=1",
                "/day (the second page, by cursor)": f"/day/{TODAY}?suits=1&after={deep}",
                "/day?player= (the search)": f"/day/{TODAY}?suits=1&player=player{today[1] // 2}",
                "/player/NAME (30 dailies)": "/player/player7",
                "/race": "/race?suits=1",
            }
            print(f"{'page':44} {'p50 ms':>8} {'p99 ms':>8} {'br bytes':>11}")
            for label, path in pages.items():
                timed = await server_time(server.hub, path, args.requests)
                sent = await transferred(server.host, server.port, path)
                figures[label] = {"path": path, **timed, **sent}
                print(
                    f"{label:44} {timed['p50_ms']:8.2f} {timed['p99_ms']:8.2f} {sent['bytes']:11}"
                )
            source.cache_seconds = 1.0
            cached = await server_time(server.hub, "/", args.requests)
            figures["/ with the one-second page cache"] = cached
            print(f"{'/ with the one-second page cache':44} {cached['p50_ms']:8.2f} "
                  f"{cached['p99_ms']:8.2f}")  # fmt: skip
    finally:
        admin = await asyncpg.connect(args.postgres)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
        client = redis.Redis.from_url(args.redis)
        keys = [key async for key in client.scan_iter(match=f"{prefix}*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()
    if args.json:
        print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
