"""The servers of the load benchmark (:mod:`bench.server_load`), each in a process of its
own: the echo server, or ours (with its action log or not, from this source tree or another
checkout's), and where ours keeps its data.

A server process is this file run as a script (``--serve echo|simon``, see
:func:`start_server`). It imports nothing else of ``bench``: run for another checkout
(``--before``), it takes that tree's ``server`` package, and that tree may not have this
one's benches.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import resource
import signal
import subprocess
import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
#: Where a server process of ``--before`` takes the server's code from (this tree otherwise).
SOURCE = Path(os.environ.get("SIMON_BENCH_SOURCE") or ROOT)
sys.path.insert(0, str(SOURCE))

MAX_SIZE = 4096
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def database_url(admin: str, name: str) -> str:
    """The URL of database ``name`` on the server that ``admin`` (a PostgreSQL URL) names."""
    scheme, sep, rest = admin.partition("://")
    server, _, path = rest.partition("/")
    if not sep or not server:
        raise ValueError(f"not a database URL: {admin}")
    query = path.partition("?")[2]
    return f"{scheme}://{server}/{name}" + (f"?{query}" if query else "")


# -- where our server keeps its data ------------------------------------------------------------


@dataclass
class Backend:
    """The data services of one simon round: the database and Redis key prefix it owns."""

    admin: str | None = None  # PostgreSQL admin URL; None: an SQLite file
    redis_url: str | None = None  # None: the in-process bus
    database: str | None = None  # the fresh database's name, while it exists
    database_name: str | None = None  # the last one made
    prefix: str = "simon-bench"

    @property
    def label(self) -> str:
        store = "PostgreSQL" if self.admin else "SQLite"
        bus = "Redis" if self.redis_url else "in-process bus"
        return f"{store} + {bus}"

    @property
    def database_url(self) -> str | None:
        return database_url(self.admin, self.database) if self.admin and self.database else None

    async def open(self) -> None:
        run = uuid.uuid4().hex[:10]
        self.prefix = f"simon-bench-{run}"
        if self.admin:
            import asyncpg

            admin = await asyncpg.connect(self.admin, timeout=10)
            try:
                await admin.execute(f'CREATE DATABASE "simon_bench_{run}"')
            finally:
                await admin.close()
            self.database = self.database_name = f"simon_bench_{run}"

    async def close(self) -> None:
        if self.admin and self.database:
            import asyncpg

            admin = await asyncpg.connect(self.admin, timeout=10)
            try:
                await admin.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
            finally:
                await admin.close()
            self.database = None
        if self.redis_url:
            import redis.asyncio as redis

            client = redis.Redis.from_url(self.redis_url)
            try:
                keys = [key async for key in client.scan_iter(match=f"{self.prefix}:*", count=1000)]
                for start in range(0, len(keys), 1000):
                    await client.delete(*keys[start : start + 1000])
            finally:
                await client.aclose()

    async def service_pids(self) -> dict[str, list[int]]:
        """The PostgreSQL backends serving our database, and the Redis server's process."""
        pids: dict[str, list[int]] = {}
        if self.admin and self.database:
            import asyncpg

            admin = await asyncpg.connect(self.admin, timeout=10)
            try:
                rows = await admin.fetch(
                    "SELECT pid FROM pg_stat_activity WHERE datname = $1", self.database
                )
            finally:
                await admin.close()
            pids["postgres"] = [row["pid"] for row in rows]
        if self.redis_url:
            import redis.asyncio as redis

            client = redis.Redis.from_url(self.redis_url)
            try:
                pids["redis"] = [int((await client.info("server"))["process_id"])]
            finally:
                await client.aclose()
        return pids


def services_cpu(pids: Mapping[str, list[int]]) -> dict[str, float | None]:
    """CPU seconds so far of each service's processes (None when they are not local)."""
    seconds: dict[str, float | None] = {}
    for name, ids in pids.items():
        try:
            seconds[name] = sum(cpu_seconds(pid) for pid in ids)
        except (OSError, IndexError, ValueError):
            seconds[name] = None
    return seconds


# -- the servers, each in its own process ------------------------------------------------


async def until_terminated() -> None:
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()


async def serve_echo(port: int) -> None:
    from websockets.asyncio.server import ServerConnection, serve

    async def echo(websocket: ServerConnection) -> None:
        async for message in websocket:
            await websocket.send(message)

    async with serve(
        echo, "127.0.0.1", port, compression=None, max_size=MAX_SIZE, ping_interval=None
    ):
        print("READY", flush=True)
        await until_terminated()


async def serve_simon(
    port: int,
    data: str,
    database: str | None,
    redis_url: str | None,
    prefix: str,
    profile: str | None = None,
    log: bool = True,
) -> None:
    from server.main import tune_gc
    from server.net import run_server

    try:
        from server.play.daily.deals import Proof
    except ImportError:  # a --before tree from before server/play's packages
        from server.play.daily import Proof  # type: ignore[no-redef,attr-defined]
    from server.settings import Settings

    async def no_solver(code: str) -> Proof:  # bots play practice games: no daily needed
        return Proof(True, None)

    settings = Settings(
        host="127.0.0.1",
        port=port,
        data_dir=Path(data),
        database_url=database,
        redis_url=redis_url,
        redis_prefix=prefix,
        rate_limit_messages=1_000_000,
        limits_exempt="127.0.0.0/8",  # thousands of players from one address
        ping_interval_seconds=None,
        log_level="WARNING",
    )
    async with run_server(settings, prover=no_solver) as running:
        if not log:  # --without-log: the store takes every append at once, writing nothing

            async def appended(*args: Any, **kwargs: Any) -> None:
                return None

            running.hub.store.append = appended  # type: ignore[method-assign]
        tune_gc()
        if profile:
            profile_on_signals(profile)
        print("READY", flush=True)
        await until_terminated()  # and close the store and bus on the way out


def profile_on_signals(path: str) -> None:
    """cProfile this process between a USR1 signal and a USR2 signal (the measured window);
    the statistics go to ``path`` (read them with ``python -m pstats``)."""
    profiler = cProfile.Profile()

    def stop() -> None:
        profiler.disable()
        profiler.dump_stats(path)

    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, profiler.enable)
    loop.add_signal_handler(signal.SIGUSR2, stop)


def raise_file_limit() -> int:
    """Raise the soft limit on open files to the hard limit; return it."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


@dataclass(frozen=True)
class Variant:
    """One server of a round: the echo, or ours (with its log or not, from a source tree)."""

    name: str
    simon: bool = True
    log: bool = True
    source: Path | None = None  # None: this tree

    @property
    def kind(self) -> str:
        return "simon" if self.simon else "echo"


ECHO = Variant("echo", simon=False)


def variants(without_log: bool, before: Path | None) -> list[Variant]:
    """The servers of each round, in the order they run."""
    found = [ECHO, Variant("simon")]
    if without_log:
        found.append(Variant("simon-nolog", log=False))
    if before is not None:
        found.append(Variant("before", source=before))
        if without_log:
            found.append(Variant("before-nolog", log=False, source=before))
    return found


def start_server(
    variant: Variant, port: int, data: str, backend: Backend, profile: Path | None = None
) -> subprocess.Popen[str]:
    kind = variant.kind
    command = [sys.executable, __file__, "--serve", kind, "--port", str(port), "--data", data]
    if kind == "simon":
        if not variant.log:
            command.append("--no-log")
        if profile is not None:
            command += ["--profile", str(profile)]
        if backend.database_url:
            command += ["--database", backend.database_url]
        if backend.redis_url:
            command += ["--redis", backend.redis_url]
        command += ["--prefix", backend.prefix]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": str(variant.source or ROOT),
            "SIMON_BENCH_SOURCE": str(variant.source or ROOT),
        },
    )  # it inherits this process's raised file limit, and raises it again in main()
    assert process.stdout is not None
    line = process.stdout.readline()
    if line.strip() != "READY":
        process.kill()
        raise SystemExit(f"the {variant.name} server did not start")
    return process


def start_node(script: str, port: int, backend: Backend) -> subprocess.Popen[str]:
    """A node of a two-node bench on PostgreSQL and Redis: ``script`` run with ``--serve``
    (its own ``serve``), once it says READY."""
    assert backend.database_url is not None and backend.redis_url is not None
    command = [
        sys.executable, script, "--serve", "--port", str(port), "--database",
        backend.database_url, "--redis", backend.redis_url, "--prefix", backend.prefix,
    ]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}
    )
    assert process.stdout is not None
    if process.stdout.readline().strip() != "READY":
        process.kill()
        raise SystemExit("a node did not start")
    return process


def stop_server(process: subprocess.Popen[str]) -> None:
    process.terminate()
    try:
        process.wait(30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime


def rss_bytes(pid: int) -> int:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE


#: No bench of its own: bench.server_load (and the benches built on it) start it.
SMOKE: Final = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", choices=("echo", "simon"), required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--no-log", action="store_true")
    parser.add_argument("--database")
    parser.add_argument("--redis")
    parser.add_argument("--prefix", default="simon-bench")
    parser.add_argument("--profile")
    args = parser.parse_args()
    raise_file_limit()
    if args.serve == "echo":
        asyncio.run(serve_echo(args.port))
    else:
        asyncio.run(
            serve_simon(
                args.port,
                args.data,
                args.database,
                args.redis,
                args.prefix,
                args.profile,
                log=not args.no_log,
            )
        )


if __name__ == "__main__":
    main()
