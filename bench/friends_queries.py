"""Friends' boards and league seasons at a million daily results, on PostgreSQL.

Makes a fresh PostgreSQL database (the migrations applied), fills it with SQL
(``generate_series`` for the players and the results, COPY for the follows and leagues):
``--players`` accounts, ``--rows`` finished 1-suit dailies spread over ``--days`` days up
to the day timed, ``--followers`` players each following ``--follows`` others at random
(100,000 edges by default), and ``--leagues`` leagues of ``--members`` members. Then it
times, one query at a time:

- the friends' board (``SocialStore.friends_results``) of a random follower, on a random
  day and on the last day;
- a league's season (``SocialStore.league_results``) over a month;
- a league's whole page (``Leagues.page``: members, ~13 months of results, today, the
  season, past winners and streaks) as a member sees it;

and prints each query's plan (EXPLAIN ANALYZE) with the indexes it used. The database is
dropped at the end. Usage::

    python -m bench.friends_queries                      # 1,000,000 results, 100,000 follows
    python -m bench.friends_queries --queries 500 --json # every figure as JSON too
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, timedelta
from datetime import time as day_time
from pathlib import Path
from typing import Any, Final

import asyncpg
import sqlalchemy as sa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.bus.memory import InProcessBus
from server.play.accounts import Accounts
from server.play.clock import ManualClock
from server.play.social import Leagues
from server.protocol import ROOM_ALPHABET, ROOM_CODE_SYMBOLS, grouped_room_code
from server.store import Store
from server.store.models import Follow, LeagueMember
from server.store.social import SocialStore
from server.store.social.follows import day_results
from tests.support.services import POSTGRES_ADMIN_DSN

#: The last day of the results: the day the boards are "today" on.
TODAY = date(2026, 12, 15)


def code(rng: random.Random) -> str:
    """A league's invitation code, as :func:`server.play.rooms.rules.room_code` makes one."""
    return grouped_room_code("".join(rng.choice(ROOM_ALPHABET) for _ in range(ROOM_CODE_SYMBOLS)))


async def fill(dsn: str, args: argparse.Namespace) -> tuple[list[int], list[tuple[int, str]]]:
    """Fill the database; the followers' ids, and the leagues' (id, code)."""
    rng = random.Random(args.seed)
    first_day = TODAY - timedelta(days=args.days - 1)
    share = min(1.0, args.rows / (args.players * args.days))
    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute(
            "INSERT INTO players (id, name, name_key, look_key, created_at) "
            "SELECT n, 'player' || n, 'player' || n, 'player' || n, $1 "
            "FROM generate_series(1, $2::int) AS n",
            datetime(2025, 1, 1, tzinfo=UTC),
            args.players,
        )
        await connection.execute(f"SELECT setval('players_id_seq', {args.players})")
        # Each (day, player) finished with probability ``share``: a player's one attempt a
        # day, as the unique index wants; random results with many ties in the score.
        await connection.execute(f"SELECT setseed({(args.seed % 1000) / 1000})")
        await connection.execute(
            """
            INSERT INTO games (id, player_id, mode, code, suits, day, started_at, finished_at,
                               won, resigned, moves, score, removed, elapsed)
            SELECT md5(d::text || '/' || p), p, 'daily', 'SS1-S1-AAAAAAB', 1, d::date,
                   d + make_interval(secs => at) - make_interval(secs => spent),
                   d + make_interval(secs => at),
                   won, NOT won AND at < 43200, moves,
                   500 - moves + 100 * (CASE WHEN won THEN 4 ELSE moves % 4 END),
                   CASE WHEN won THEN 4 ELSE moves % 4 END, spent
            FROM (
                SELECT d, p, random() < 0.6 AS won, 50 + floor(random() * 200)::int AS moves,
                       round((40 + random() * 3560)::numeric, 3)::float8 AS spent,
                       1 + floor(random() * 86000)::int AS at
                FROM generate_series($1::timestamptz, $2::timestamptz, '1 day') AS d,
                     generate_series(1, $3::int) AS p
                WHERE random() < $4::float8
            ) AS draws
            """,
            datetime.combine(first_day, day_time(), UTC),
            datetime.combine(TODAY, day_time(), UTC),
            args.players,
            share,
        )
        created = datetime(2026, 1, 1, tzinfo=UTC)
        followers = rng.sample(range(1, args.players + 1), args.followers)
        edges = [
            (follower, followed, created)
            for follower in followers
            for followed in [
                p for p in rng.sample(range(1, args.players + 1), args.follows + 1) if p != follower
            ][: args.follows]
        ]
        await connection.copy_records_to_table(
            "follows", records=edges, columns=["follower_id", "followed_id", "created_at"]
        )
        leagues = [
            (n + 1, code(rng), f"league {n + 1}", rng.randint(1, args.players), 1, created)
            for n in range(args.leagues)
        ]
        await connection.copy_records_to_table(
            "leagues",
            records=leagues,
            columns=["id", "code", "name", "owner_id", "suits", "created_at"],
        )
        await connection.execute(f"SELECT setval('leagues_id_seq', {args.leagues})")
        members = []
        for league_id, _code, _name, owner, _suits, _at in leagues:
            others = [p for p in rng.sample(range(1, args.players + 1), args.members) if p != owner]
            for player in [owner, *others][: args.members]:
                joined = first_day + timedelta(days=rng.randrange(max(1, args.days // 2)))
                # one member in ten has left since
                left = (
                    joined + timedelta(days=rng.randrange(1, args.days))
                    if player != owner and rng.random() < 0.1
                    else None
                )
                members.append(
                    (league_id, player, joined, left if left and left <= TODAY else None)
                )
        await connection.copy_records_to_table(
            "league_members",
            records=members,
            columns=["league_id", "player_id", "joined_on", "left_on"],
        )
        for table in ("players", "games", "follows", "leagues", "league_members"):
            await connection.execute(f"VACUUM ANALYZE {table}")
    finally:
        await connection.close()
    return followers, [(league[0], league[1]) for league in leagues]


async def timed(
    label: str, count: int, make: Callable[[int], Awaitable[Any]]
) -> dict[str, float | str]:
    for n in range(min(20, count)):  # warm-up: connections, prepared statements, caches
        await make(n)
    samples, rows = [], 0
    for n in range(count):
        start = time.perf_counter()
        got = await make(n)
        samples.append((time.perf_counter() - start) * 1000)
        rows += len(got) if isinstance(got, list) else len(getattr(got, "season", ()))
    samples.sort()
    figures: dict[str, float | str] = {
        "query": label,
        "p50_ms": round(statistics.median(samples), 3),
        "p99_ms": round(samples[min(len(samples) - 1, int(len(samples) * 0.99))], 3),
        "mean_ms": round(statistics.fmean(samples), 3),
        "rows_mean": round(rows / count, 1),
    }
    print(
        f"{label:58} p50 {figures['p50_ms']:8.3f} ms   p99 {figures['p99_ms']:8.3f} ms   "
        f"{figures['rows_mean']:>7} rows"
    )
    return figures


def literal_sql(query: Any, dialect: sa.Dialect) -> str:
    return str(query.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = (
    "--players 300 --rows 3000 --days 40 --followers 50 --follows 10 --leagues 2 "
    "--members 40 --queries 5"
)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20_000, help="accounts")
    parser.add_argument("--rows", type=int, default=1_000_000, help="finished daily results")
    parser.add_argument("--days", type=int, default=400, help="days the results cover")
    parser.add_argument("--followers", type=int, default=2_000, help="players who follow")
    parser.add_argument("--follows", type=int, default=50, help="players each of them follows")
    parser.add_argument("--leagues", type=int, default=20, help="leagues")
    parser.add_argument("--members", type=int, default=200, help="members of each league")
    parser.add_argument("--queries", type=int, default=300, help="timed queries per kind")
    parser.add_argument("--postgres", default=POSTGRES_ADMIN_DSN)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON too")
    args = parser.parse_args()

    name = f"simon_bench_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(args.postgres)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    dsn = f"{args.postgres.rsplit('/', 1)[0]}/{name}"
    url = dsn.replace("postgresql://", "postgresql+asyncpg://", 1)
    store = None
    report: dict[str, Any] = {"command": ["python", "-m", "bench.friends_queries", *sys.argv[1:]]}
    try:
        store = await Store.open(url)  # migrates
        start = time.perf_counter()
        followers, leagues = await fill(dsn, args)
        async with store.engine.connect() as connection:
            counts = {
                table: await connection.scalar(sa.text(f"SELECT count(*) FROM {table}"))
                for table in ("games", "follows", "league_members")
            }
        print(
            f"filled {counts['games']:,} results over {args.days} days, {counts['follows']:,} "
            f"follows, {args.leagues} leagues ({counts['league_members']:,} memberships) in "
            f"{time.perf_counter() - start:.1f} s"
        )
        report["sizes"] = {"players": args.players, "days": args.days, **counts}
        social = SocialStore(store.engine)
        clock = ManualClock(datetime.combine(TODAY, day_time(18), UTC))
        pages = Leagues(social, store, Accounts(store, clock, InProcessBus()), clock)
        rng = random.Random(args.seed)
        viewers = [rng.choice(followers) for _ in range(args.queries)]
        days = [TODAY - timedelta(days=rng.randrange(args.days)) for _ in range(args.queries)]
        month_from = TODAY.replace(day=1)
        # a member of each league, to see its page (its page is for members)
        async with store.engine.connect() as connection:
            member_of = {
                league_id: (
                    await connection.execute(
                        sa.select(LeagueMember.player_id)
                        .where(LeagueMember.league_id == league_id, LeagueMember.left_on.is_(None))
                        .limit(1)
                    )
                ).scalar_one()
                for league_id, _code in leagues
            }
        viewers_of = {lid: await store.player_by_id(pid) for lid, pid in member_of.items()}
        n = args.queries
        figures = [
            await timed(
                "friends' board, a random follower, a random day",
                n,
                lambda i: social.friends_results(viewer_id=viewers[i], day=days[i], suits=1),
            ),
            await timed(
                "friends' board, a random follower, today",
                n,
                lambda i: social.friends_results(viewer_id=viewers[i], day=TODAY, suits=1),
            ),
            await timed(
                f"league season ({args.members} members, {month_from:%B})",
                n,
                lambda i: social.league_results(
                    leagues[i % len(leagues)][0], suits=1, day_from=month_from, day_to=TODAY
                ),
            ),
            await timed(
                "league page (Leagues.page: ~13 months, members, winners)",
                max(10, n // 5),
                lambda i: pages.page(
                    leagues[i % len(leagues)][1], viewers_of[leagues[i % len(leagues)][0]]
                ),
            ),
        ]
        report["queries"] = figures
        plans: dict[str, str] = {}
        followed = sa.select(Follow.followed_id).where(Follow.follower_id == viewers[0])
        friends = sa.union_all(followed, sa.select(sa.literal(viewers[0])))

        def members(since: date) -> Any:  # as league_results asks for them
            return sa.select(LeagueMember.player_id).where(
                LeagueMember.league_id == leagues[0][0],
                sa.or_(LeagueMember.left_on.is_(None), LeagueMember.left_on > since),
                LeagueMember.joined_on <= TODAY,
            )

        year_ago = TODAY - timedelta(days=400)
        async with store.engine.connect() as connection:
            for label, query in (
                ("friends' board", day_results(friends, TODAY, TODAY, 1)),
                ("league season (a month)", day_results(members(month_from), month_from, TODAY, 1)),
                (
                    "league page's results (~13 months)",
                    day_results(members(year_ago), year_ago, TODAY, 1),
                ),
            ):
                explain = await connection.exec_driver_sql(
                    "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) "
                    + literal_sql(query, store.engine.dialect)
                )
                plans[label] = "\n".join(row[0] for row in explain)
        report["plans"] = plans
        for label, text in plans.items():
            print(f"\nplan of the {label}:\n{text}")
        if args.json:
            print(json.dumps(report, indent=2))
    finally:
        if store is not None:
            await store.close()
        admin = await asyncpg.connect(args.postgres)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


if __name__ == "__main__":
    asyncio.run(main())
