"""Stop benchmark: how long ``simon-server`` takes to exit when SIGTERM or SIGINT reaches its
whole process group (systemd's ``KillMode=control-group``, Ctrl+C in a terminal), idle and
while proving the day's deals.

Run from the repository root::

    python -m bench.stop --tries 10

Each try starts ``simon-server`` on a fresh data folder (embedded mode) in a session of
its own. ``idle``: once today's deals are proven (the solver worker alive, waiting for a
search); ``proving``: at a random moment up to ``--spread`` seconds after the solver worker
appeared (from its spawn, through its start-up, into a search with a long budget). The
signal goes to the whole group; the time is from the signal to the server's exit. A server
still running after ``--deadline`` seconds counts as hung (and is killed). One line per
moment and signal: tries, median and slowest stop, hung tries, exits with a status other
than 0. Exit status 1 if any try hung or failed.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.kills import ServerProcess, embedded_environment  # noqa: E402

#: How a solver worker shows in ``ps``: spawned, it runs multiprocessing's spawn_main.
WORKER = "spawn_main"


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


async def one_try(
    folder: Path, moment: str, signum: signal.Signals, args: argparse.Namespace
) -> tuple[float | None, int | None]:
    """Seconds to stop (None: hung) and the exit status of one try."""
    env = embedded_environment(folder / "data")
    env["SIMON_DAILY_SOLVER_SECONDS"] = "120" if moment == "proving" else "2"
    server = ServerProcess(env, folder / "server.log")
    try:
        await server.start(ready=moment == "idle")
        if moment == "proving":
            deadline = time.monotonic() + 60
            while not server.others_in_group(WORKER):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"no solver worker:\n{server.log_tail()}")
                await asyncio.sleep(0.01)
            await asyncio.sleep(random.uniform(0, args.spread))
        server.signal_group(signum)
        try:
            status, seconds = await server.exited(args.deadline)
        except AssertionError:
            return None, None
        return seconds, status
    finally:
        server.kill()


async def run(args: argparse.Namespace) -> int:
    bad = 0
    lines = []
    for moment in args.moments:
        for signum in (signal.SIGTERM, signal.SIGINT):
            times: list[float] = []
            hung = failed = 0
            for attempt in range(args.tries):
                with tempfile.TemporaryDirectory(prefix="simon-stopbench-") as temporary:
                    seconds, status = await one_try(Path(temporary), moment, signum, args)
                if seconds is None:
                    hung += 1
                else:
                    times.append(seconds)
                    failed += status != 0
                say(f"{moment} {signum.name} {attempt + 1}: {seconds} s, status {status}")
            bad += hung + failed
            median = f"{statistics.median(times):.2f} s" if times else "-"
            slowest = f"{max(times):.2f} s" if times else "-"
            lines.append(
                f"{moment:8} {signum.name:8} tries {args.tries}  median {median}  "
                f"slowest {slowest}  hung {hung}  failed {failed}"
            )
    print("\n".join(lines))
    return 1 if bad else 0


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--tries 1 --spread 0.2"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=10, help="tries per moment and signal")
    parser.add_argument(
        "--moments", nargs="+", choices=("idle", "proving"), default=["idle", "proving"]
    )
    parser.add_argument(
        "--spread", type=float, default=1.5, help="most seconds after the worker appeared"
    )
    parser.add_argument("--deadline", type=float, default=30.0, help="a stop slower is hung")
    args = parser.parse_args()
    if args.tries < 1:
        parser.error("give at least one try")
    sys.exit(asyncio.run(run(args)))


if __name__ == "__main__":
    main()
