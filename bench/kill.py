"""Kill benchmark: ``kill -9`` a real ``simon-server`` again and again while bots play, and
count what the restarted server lost of what it had acknowledged (must be 0).

Run from the repository root::

    python -m bench.kill --kills 20 --mode embedded   # an SQLite file in a temporary folder
    python -m bench.kill --kills 20 --mode services   # PostgreSQL and Redis on 127.0.0.1
    python -m bench.kill --kills 20                   # both, one after the other

Each run starts ``simon-server`` as a process of its own; a few bots (``--bots``, one of
them on the day's 1-suit daily, the others on practice deals) register and play legal
moves, auto moves, undos, restarts and resigns as fast as the answers come, each keeping
what the server acknowledged. At a random moment the process gets SIGKILL; it is started
again on the same data, and every bot signs in with its token, resumes every game it
played and compares: ``state.seq`` at least the last ``seq`` a reply showed, and the
board, moves and score of the acknowledged actions. The action in flight at the kill is
sent again with its id: it must be answered and applied once. In services mode every
other kill also deletes the server's Redis keys while it is down (Redis losing its data
with the node): the database alone must hold every game.

Services mode makes a database of its own on the PostgreSQL server (``--postgres``, an
admin DSN) and a Redis key prefix of its own, and removes both afterwards. The summary
line per mode: kills, actions acknowledged, acknowledged actions lost (must be 0), and
each problem found. Exit status 1 if anything was lost or any problem found.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.kills import (  # noqa: E402
    Report,
    ServerProcess,
    embedded_environment,
    run_kills,
    services_environment,
)
from tests.support.services import (  # noqa: E402
    POSTGRES_ADMIN_DSN,
    REDIS_URL,
    delete_redis_prefix,
)


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


async def run_embedded(args: argparse.Namespace, folder: Path) -> Report:
    server = ServerProcess(embedded_environment(folder / "data"), folder / "embedded.log")
    return await run_kills(
        server,
        mode="embedded",
        kills=args.kills,
        bots=args.bots,
        seed=args.seed,
        play_seconds=(args.min_play, args.max_play),
        progress=lambda line: say(f"embedded {line}"),
    )


async def run_services(args: argparse.Namespace, folder: Path) -> Report:
    import asyncpg

    name = f"simon_killbench_{uuid.uuid4().hex[:12]}"
    prefix = f"simon-killbench-{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(args.postgres, timeout=10)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    database_url = f"{args.postgres.rsplit('/', 1)[0]}/{name}"

    async def lose_redis(kill: int) -> None:
        if kill % 2 == 0:
            await delete_redis_prefix(args.redis, prefix)

    try:
        server = ServerProcess(
            services_environment(database_url, args.redis, prefix), folder / "services.log"
        )
        return await run_kills(
            server,
            mode="services",
            kills=args.kills,
            bots=args.bots,
            seed=args.seed,
            play_seconds=(args.min_play, args.max_play),
            after_kill=lose_redis,
            progress=lambda line: say(f"services {line}"),
        )
    finally:
        await delete_redis_prefix(args.redis, prefix)
        admin = await asyncpg.connect(args.postgres, timeout=10)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


async def run(args: argparse.Namespace) -> int:
    modes = ["embedded", "services"] if args.mode == "both" else [args.mode]
    reports: list[Report] = []
    with tempfile.TemporaryDirectory(prefix="simon-killbench-") as temporary:
        folder = Path(temporary)
        for mode in modes:
            started = time.monotonic()
            runner = run_embedded if mode == "embedded" else run_services
            report = await runner(args, folder)
            reports.append(report)
            say(f"{mode}: {time.monotonic() - started:.1f} s")
            if report.problems:
                for line in (folder / f"{mode}.log").read_text(errors="replace").splitlines()[-20:]:
                    say(f"  log: {line}")
    print()
    for report in reports:
        print(report.summary())
        for problem in report.problems:
            print(f"  {problem}")
    total_lost = sum(report.lost for report in reports)
    total_problems = sum(len(report.problems) for report in reports)
    print(
        f"total: {sum(r.kills for r in reports)} kills, "
        f"{sum(r.acknowledged for r in reports)} actions acknowledged, "
        f"{total_lost} actions lost"
    )
    return 1 if total_lost or total_problems else 0


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--kills 1 --bots 1 --max-play 0.5 --mode services"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=20, help="kills per mode (default 20)")
    parser.add_argument(
        "--mode", choices=("embedded", "services", "both"), default="both", help="default both"
    )
    parser.add_argument("--bots", type=int, default=4, help="players (default 4)")
    parser.add_argument("--seed", type=int, help="seed of the bots' choices and kill moments")
    parser.add_argument(
        "--min-play", type=float, default=0.1, help="least seconds of play before a kill"
    )
    parser.add_argument(
        "--max-play", type=float, default=1.5, help="most seconds of play before a kill"
    )
    parser.add_argument("--postgres", default=POSTGRES_ADMIN_DSN, help="admin DSN (services)")
    parser.add_argument("--redis", default=REDIS_URL, help="Redis URL (services)")
    args = parser.parse_args()
    if args.kills < 1 or args.bots < 1:
        parser.error("give at least one kill and one bot")
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
