"""Leaderboard benchmark: pages and ranks at a million finished daily results.

Makes a fresh PostgreSQL database, fills it with ``--rows`` finished daily games (COPY),
one day holding ``--big-day`` of them, then times the store's queries one at a time:

- a top page, and a page deep in the big day reached through a cursor;
- a player's rank deep in the big day through the store (the Redis rank cache),
  and the same rank by counting rows in PostgreSQL (the store's fallback, for comparison);
- a player's rank with the rows around it.

The database and the Redis keys are removed at the end. Usage::

    python -m bench.leaderboard --rows 1000000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, Final

import asyncpg
import redis.asyncio as redis
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.kinds import DayBoard
from server.store import Store
from server.store.errors import CacheNotReady
from server.store.leaderboard import encode_cursor
from server.store.models import LEADERBOARD_KEY, ON_LEADERBOARD, GameRow
from server.store.order import ResultKey
from server.store.ranks import (
    Loader,
    LocalRankCache,
    Position,
    RankCache,
)
from tests.support.services import POSTGRES_ADMIN_DSN, REDIS_URL

BIG_DAY = date(2026, 11, 1)
# A page as the store asks for it, for EXPLAIN and for the bare-driver baseline.
PAGE_SQL = (
    "SELECT g.id, g.score, g.elapsed, g.finished_at, g.moves, g.won, g.removed, g.bot, p.name "
    "FROM games g JOIN players p ON p.id = g.player_id "
    "WHERE g.mode = 'daily' AND g.finished_at IS NOT NULL AND g.held = false AND g.day = $1 "
    "AND g.suits = 1 AND g.bot = false AND g.newcomer = false {where}ORDER BY {order} LIMIT 21"
)
# The leaderboard order (server.store.order.ORDER) as the store's SQL reads it.
ORDER_SQL = "-CAST(g.won AS INTEGER), -g.removed, -g.score, g.elapsed, g.finished_at, g.id"


class NoRankCache(RankCache):
    """Always unavailable: the store counts rows in the database instead."""

    async def position(
        self, board: DayBoard, member: str, load: Loader, *, inclusive: bool = False
    ) -> Position:
        raise CacheNotReady("benchmark: counting")

    async def total(self, board: DayBoard, load: Loader) -> int:
        raise CacheNotReady("benchmark: counting")

    async def add(self, board: DayBoard, member: str) -> None:
        return None

    async def remove(self, board: DayBoard, member: str) -> None:
        return None


def _days(rows: int, big_day: int, per_day: int) -> list[tuple[date, int]]:
    """(day, rows) with the big day first and the rest in days of ``per_day`` rows."""
    plan = [(BIG_DAY, min(rows, big_day))]
    left, day = rows - plan[0][1], BIG_DAY
    while left > 0:
        day -= timedelta(days=1)
        plan.append((day, min(left, per_day)))
        left -= plan[-1][1]
    return plan


def _result(rng: random.Random) -> tuple[int, int, bool, int, float]:
    """A plausible (score, moves, won, removed, elapsed): many ties in the score."""
    won = rng.random() < 0.6
    moves = rng.randint(50, 250)
    removed = 4 if won else rng.randint(0, 3)
    elapsed = round(rng.uniform(40, 3600), 3)
    return 500 - moves + 100 * removed, moves, won, removed, elapsed


async def fill(dsn: str, rows: int, big_day: int, per_day: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    plan = _days(rows, big_day, per_day)
    players = max(count for _, count in plan)
    connection = await asyncpg.connect(dsn)
    try:
        created = datetime(2026, 1, 1, tzinfo=UTC)
        await connection.copy_records_to_table(
            "players",
            records=((n + 1, f"player{n + 1}", f"player{n + 1}", created) for n in range(players)),
            columns=["id", "name", "name_key", "created_at"],
        )
        await connection.execute(f"SELECT setval('players_id_seq', {players})")

        def games() -> Any:
            for day, count in plan:
                midnight = datetime(day.year, day.month, day.day, tzinfo=UTC)
                for player in rng.sample(range(1, players + 1), count):
                    score, moves, won, removed, elapsed = _result(rng)
                    finished = midnight + timedelta(microseconds=rng.randrange(86_400 * 10**6))
                    yield (
                        uuid.UUID(int=rng.getrandbits(128)).hex,
                        player,
                        "daily",
                        "SS1-S1-AAAAAAB",
                        1,
                        day,
                        finished - timedelta(seconds=elapsed),
                        finished,
                        won,
                        not won and rng.random() < 0.5,
                        moves,
                        score,
                        removed,
                        elapsed,
                    )

        await connection.copy_records_to_table(
            "games",
            records=games(),
            columns=[
                "id",
                "player_id",
                "mode",
                "code",
                "suits",
                "day",
                "started_at",
                "finished_at",
                "won",
                "resigned",
                "moves",
                "score",
                "removed",
                "elapsed",
            ],
        )
        # Index-only scans need the visibility map; the planner needs statistics.
        await connection.execute("VACUUM ANALYZE players")
        await connection.execute("VACUUM ANALYZE games")
    finally:
        await connection.close()
    return plan


async def timed(
    label: str, count: int, make: Callable[[int], Awaitable[Any]]
) -> dict[str, float | str]:
    for n in range(min(20, count)):  # warm-up: connections, prepared statements, caches
        await make(n)
    samples = []
    for n in range(count):
        start = time.perf_counter()
        await make(n)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    figures: dict[str, float | str] = {
        "query": label,
        "p50_ms": round(statistics.median(samples), 3),
        "p99_ms": round(samples[min(len(samples) - 1, int(len(samples) * 0.99))], 3),
        "mean_ms": round(statistics.fmean(samples), 3),
    }
    print(f"{label:52} p50 {figures['p50_ms']:8.3f} ms   p99 {figures['p99_ms']:8.3f} ms")
    return figures


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--rows 1000 --big-day 500 --per-day 250 --queries 3"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="finished daily results")
    parser.add_argument("--big-day", type=int, default=200_000, help="results on the big day")
    parser.add_argument("--per-day", type=int, default=100_000, help="results on other days")
    parser.add_argument("--queries", type=int, default=300, help="timed queries per kind")
    parser.add_argument("--limit", type=int, default=20, help="rows per page")
    parser.add_argument("--postgres", default=POSTGRES_ADMIN_DSN)
    parser.add_argument("--redis", default=REDIS_URL)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args()
    # The counting store's "cache unavailable, counting" notices are the point, not news.
    logging.getLogger("server.store.leaderboard").setLevel(logging.ERROR)

    run = uuid.uuid4().hex[:10]
    name = f"simon_bench_{run}"
    prefix = f"simon-bench-{run}"
    admin = await asyncpg.connect(args.postgres)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    dsn = f"{args.postgres.rsplit('/', 1)[0]}/{name}"
    url = dsn.replace("postgresql://", "postgresql+asyncpg://", 1)
    client = redis.Redis.from_url(args.redis)
    figures: list[dict[str, float | str]] = []
    store = counting = local = None
    try:
        store = await Store.open(url, redis=client, redis_prefix=prefix)  # migrates
        start = time.perf_counter()
        plan = await fill(dsn, args.rows, args.big_day, args.per_day, args.seed)
        print(
            f"filled {args.rows} results over {len(plan)} days (big day {plan[0][1]}) "
            f"in {time.perf_counter() - start:.1f} s"
        )
        counting = Store(store.engine, NoRankCache(), store.log)
        local = Store(store.engine, LocalRankCache(), store.log)
        day, size = plan[0]
        rng = random.Random(args.seed)

        # Rows deep in the big day (ranks from 50% to 90% down): their players and cursors.
        offsets = sorted(rng.sample(range(size // 2, size * 9 // 10), args.queries))
        async with store.engine.connect() as connection:
            deep = []
            for offset in offsets[:: max(1, len(offsets) // 50)]:
                query = (
                    sa.select(
                        GameRow.player_id,
                        GameRow.won,
                        GameRow.removed,
                        GameRow.score,
                        GameRow.elapsed,
                        GameRow.finished_at,
                        GameRow.id,
                    )
                    .where(ON_LEADERBOARD, GameRow.day == day, GameRow.suits == 1)
                    .order_by(*LEADERBOARD_KEY)
                    .offset(offset)
                    .limit(1)
                )
                deep.append((await connection.execute(query)).one())
            middle = deep[len(deep) // 2]
            plans = {}
            for label, where in (
                ("top page", ""),
                (
                    "deep page",
                    f"AND ({ORDER_SQL}) > ({-int(middle.won)}, {-middle.removed}, "
                    f"{-middle.score}, {middle.elapsed!r}, '{middle.finished_at.isoformat()}', "
                    f"'{middle.id}') ",
                ),
            ):
                explain = await connection.exec_driver_sql(
                    "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) "
                    + PAGE_SQL.format(where=where, order=ORDER_SQL),
                    (day,),
                )
                plans[label] = "\n".join(row[0] for row in explain)
        raw = await asyncpg.connect(dsn)
        statement = await raw.prepare(PAGE_SQL.format(where="", order=ORDER_SQL))
        cursors = [encode_cursor(ResultKey.of(r)) for r in deep]
        players = [r.player_id for r in deep]

        start = time.perf_counter()
        await store.rank_of(DayBoard(day, 1), player_id=players[0], around=0)
        print(f"rank cache warmed for {size} results in {time.perf_counter() - start:.2f} s")
        start = time.perf_counter()
        await local.rank_of(DayBoard(day, 1), player_id=players[0], around=0)
        print(f"in-process cache warmed in {time.perf_counter() - start:.2f} s")

        n = args.queries
        limit = args.limit
        figures += [
            await timed(
                "baseline: the top page's SQL alone (bare asyncpg)",
                n,
                lambda i: statement.fetch(day),
            ),
            await timed(
                "baseline: one Redis round trip (ZCARD)", n, lambda i: client.zcard(prefix)
            ),
            await timed(
                f"top page ({limit} rows, ranks and total from Redis)",
                n,
                lambda i: store.leaderboard_page(DayBoard(day, 1), limit=limit),
            ),
            await timed(
                "deep page via cursor (ranks 50%-90% down)",
                n,
                lambda i: store.leaderboard_page(
                    DayBoard(day, 1), limit=limit, after=cursors[i % len(cursors)]
                ),
            ),
            await timed(
                "rank of a deep player (Redis rank cache)",
                n,
                lambda i: store.rank_of(
                    DayBoard(day, 1), player_id=players[i % len(players)], around=0
                ),
            ),
            await timed(
                "rank of a deep player (in-process rank cache)",
                n,
                lambda i: local.rank_of(
                    DayBoard(day, 1), player_id=players[i % len(players)], around=0
                ),
            ),
            await timed(
                "rank of a deep player (counting rows in PostgreSQL)",
                max(20, n // 5),
                lambda i: counting.rank_of(
                    DayBoard(day, 1), player_id=players[i % len(players)], around=0
                ),
            ),
            await timed(
                "rank and 5 rows either side (Redis rank cache)",
                n,
                lambda i: store.rank_of(
                    DayBoard(day, 1), player_id=players[i % len(players)], around=5
                ),
            ),
        ]
        await raw.close()
        for label, text in plans.items():
            print(f"\nplan of a {label}:\n{text}")
        if args.json:
            print(json.dumps(figures, indent=2))
    finally:
        if store is not None:
            await store.close()
        keys = [key async for key in client.scan_iter(match=f"{prefix}:*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()
        admin = await asyncpg.connect(args.postgres)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


if __name__ == "__main__":
    asyncio.run(main())
