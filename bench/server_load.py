"""Benchmark of the game server against a bare websocket echo server, in one run.

Run from the repository root::

    python -m bench.server_load                    # 1000 bots, 2 moves/s each, about 4 minutes
    python -m bench.server_load --rate 0           # each bot as fast as the answers come
    python -m bench.server_load --bots 200 --seconds 5 --rounds 1   # a quick look
    python -m bench.server_load --mode services    # on PostgreSQL + Redis instead of SQLite
    python -m bench.server_load --redis redis://127.0.0.1:6379/0    # our server as a node of many
    python -m bench.server_load --bots 10000 --rate 0.2 --client-processes 2 --warmup 15
                                                   # 10,000 players, a move every 5 s each
    python -m bench.server_load ... --json figures.json            # every figure, for the docs
    python -m bench.server_load ... --profile server.prof          # where our server's CPU goes
    python -m bench.server_load --without-log      # also our server with the action log off
    python -m bench.server_load --before ../main   # also the server of another checkout

What is measured
----------------
Each server runs in a subprocess of its own, which inherits this process's soft limit on
open files, raised to the hard limit, and raises it again before it starts: ours as
``simon-server`` runs it, except that the daily deal is not searched (the bots play
practice games) and the message budget is lifted; the echo server with the same websocket
options (compression off, the same frame limit) sends every frame back. Rounds alternate
echo then simon, each on a fresh server.

Two more servers can take their turn in every round, for figures side by side in one run:

- ``--without-log``: ours with the action log switched off (``simon-nolog``): the store's
  ``append`` returns at once, so nothing is written or waited for. A bench-only setting,
  made in the bench's own server process: the server has no way to run without its log.
- ``--before DIR``: ours as the source tree ``DIR`` (another checkout, say of the commit
  before a change) has it (``before``, and ``before-nolog`` with ``--without-log``).

Where our server keeps its data (``--mode``, or the two URLs one by one):

- ``embedded`` (the default): an SQLite file in a temporary folder, the in-process bus.
- ``services``: PostgreSQL and Redis. ``--database`` names a PostgreSQL server by an
  admin URL (default ``postgresql://postgres@127.0.0.1:5432/postgres``): every simon round
  gets a fresh database ``simon_bench_<random>`` on it, made with asyncpg and dropped at the
  end of the round (also when it fails or the run is stopped with Ctrl-C or a TERM
  signal). ``--redis`` (default
  ``redis://127.0.0.1:6379/0``): every round gets a fresh key prefix ``simon-bench-<random>``,
  whose keys are deleted at the end of the round.

How the load is made
--------------------
N bot players connect over real websockets, at most 50 connection attempts in flight at
a time across all client processes (the servers listen with a backlog of 100, so the
accept queue does not overflow). With our server every bot registers, starts a practice game
and plays a precomputed sequence of up to 60 legal moves (at least 30: a deal that gets
stuck sooner is passed over for the next one the bot's seed draws), sending ``restart``
between sequences; every move carries an id of its own, so no move is ever answered from
the server's memory of replies. The echo server gets the same frames, the restarts
included; only the moves' round trips are timed and counted. Each bot runs a closed loop:
a move, then its answer, then (with ``--rate R``) a pause so that the bot makes R moves a
second, its first move at a random point of its first interval so the bots spread evenly;
``--rate 0`` sends the next move as soon as the answer is in. A bot that falls behind does
not burst to catch up.

A move refused with an ``error`` of code ``unavailable`` (the database or Redis failed) is
counted as refused and sent again, with the same id, after 0.1 s, as a client should;
only the answer that is not refused is timed. A refused register, start or restart is sent
again the same way. Any other error answering a move makes the bot restart its deal
(counted by code): no answer to a move stops the run.

By default all bots run in this process (one core at most, enough for a thousand bots
at 2 moves a second). ``--client-processes N`` splits them across N worker processes
(this module run with a worker flag, each with the file limit raised); each connects its
share, reports on stdout when all are connected, is told over stdin the measured window
(its start and end on the machine's monotonic clock, half a second ahead, so that every
process times the same window however late the message reaches it), times the round
trips that end inside it, and when told to stop sends back their times as a histogram (one
bucket per microsecond below 1 ms, three significant digits above) and its counts, as one
JSON line. This process merges them. Run at most one client process per free core; on a
machine of 2 cores the bots and the server share the cores, which is fine for paced
loads (a move every 5 s from 10,000 players is 2,000 moves a second) but bounds the
round trips a second of ``--rate 0``.

A round goes through three phases: connecting (every bot connects, registers and starts
its game; our server pays several milliseconds of CPU per player for that, so 10,000 take
a minute or two), warm-up (``--warmup`` seconds of play, paced as in the window; at
``--rate 0.2`` give it at least the 5 s it takes every bot to make its first move), and
the measured window (``--seconds``). Bots stop playing when the window ends.

Figures
-------
Per round: round trips per second in the measured window (``--seconds``, after
``--warmup`` seconds of play), round-trip p50/p99/p99.9 as the bots see it, the server
process's CPU time (user + system, from /proc, over the window) per round trip, its
resident memory per connected player (RSS growth from before the bots connect to the end
of the warm-up, divided by N), refused moves, the time it took to connect every bot, and
the server's CPU time per connected player in that phase.
In services mode also the CPU of the PostgreSQL backends serving the round's database
and of the Redis server (shared with anything else that uses it) per round trip, when
those processes run on this machine. And ``others``: the CPU that other work on the
machine took in the window, in cores (all the machine's busy time from /proc/stat, less the
server's, the bots' and the services', plus the time the hypervisor gave its CPUs to other
machines). A round is disturbed (marked ``*``) when others
took more than a fifth of a core, or when the server fell behind the bots' pace (under 98%
of the round trips asked for): a starved server answers in bigger batches and spends less
CPU a round trip, not more. The least CPU per round trip of the undisturbed rounds (of all,
with a warning, when every round of a server was disturbed) is the summary, and its ratio
simon / echo is the figure to compare: both servers are measured back to back with the
same clients. Beside it, round by round: the median (and range) of each undisturbed
round's ratio to the echo of the same round, which a slow drift of the machine's speed
does not move.
``--json FILE`` writes every figure.

Its parts: the servers and where ours keeps its data (:mod:`bench.server_load_servers`), and
the bots (:mod:`bench.server_load_bots`); this module runs the rounds and reports them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.server_load_bots import (  # noqa: E402
    CONNECT_AT_ONCE,
    InProcessClients,
    Load,
    WorkerClients,
    merge,
    percentile,
    split,
    worker,
)
from bench.server_load_servers import (  # noqa: E402
    CLOCK_TICKS,
    ECHO,
    Backend,
    Variant,
    cpu_seconds,
    raise_file_limit,
    rss_bytes,
    services_cpu,
    start_server,
    stop_server,
    variants,
)
from tests.support.services import POSTGRES_ADMIN_DSN, REDIS_URL  # noqa: E402

WINDOW_NOTICE = 0.5  # seconds between telling the clients the measured window and its start
POSTGRES_ADMIN = POSTGRES_ADMIN_DSN
REDIS = REDIS_URL


# -- one round, and the run ----------------------------------------------------------------------


@dataclass
class Figures:
    kind: str
    backend: str
    bots: int
    round_trips: int
    seconds: float
    p50_ms: float
    p99_ms: float
    p999_ms: float
    cpu_us_per_rt: float
    rss_per_player_kib: float
    rss_before_mib: float
    rss_playing_mib: float
    database: str | None  # the fresh PostgreSQL database of the round (dropped at its end)
    refused: int
    refused_all: int
    errors: dict[str, int]
    connect_seconds: float
    connect_cpu_ms_per_player: float  # the server's, connecting (and registering) every bot
    service_cpu_us_per_rt: dict[str, float | None]
    #: CPU taken in the window by other work on the machine (and by other machines: steal),
    #: in cores.
    others_cores: float
    #: Round trips a second the bots asked for (0: as fast as answers came).
    asked_per_second: float

    @property
    def per_second(self) -> float:
        return self.round_trips / self.seconds

    @property
    def disturbed(self) -> bool:
        """Whether other work took more than a fifth of a core, or the server fell behind."""
        behind = self.asked_per_second > 0 and self.per_second < 0.98 * self.asked_per_second
        return self.others_cores > DISTURBED_CORES or behind


#: Other work on the machine above this many cores disturbs a round.
DISTURBED_CORES: Final = 0.2


def machine_seconds() -> tuple[float, float]:
    """CPU time the whole machine has spent busy since boot, and the time the hypervisor
    took its CPUs away for other machines (steal), from /proc/stat."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(f) for f in fields[:8])
    return (user + nice + system + irq + softirq) / CLOCK_TICKS, steal / CLOCK_TICKS


@dataclass
class Options:
    bots: int
    seconds: float
    warmup: float
    rate: float
    rounds: int
    processes: int
    backend: Backend
    seed: int
    profile: Path | None = None
    variants: tuple[Variant, ...] = (ECHO, Variant("simon"))


async def measure(variant: Variant, options: Options) -> Figures:
    kind = variant.kind
    port = 20000 + random.randrange(20000)
    backend = options.backend if kind == "simon" else Backend()
    with tempfile.TemporaryDirectory() as data:
        if kind == "simon":
            await backend.open()
        try:
            profile = options.profile if kind == "simon" else None
            process = start_server(variant, port, data, backend, profile)
            url = f"ws://127.0.0.1:{port}"
            shares = split(options.bots, options.processes)
            loads = [
                Load(
                    kind=kind,
                    url=url,
                    first=first,
                    count=count,
                    rate=options.rate,
                    seed=options.seed,
                    connect_at_once=max(1, CONNECT_AT_ONCE // len(shares)),
                )
                for first, count in shares
            ]
            clients = InProcessClients(loads[0]) if len(loads) == 1 else WorkerClients(loads)
            try:
                await asyncio.sleep(0.5)
                rss_before = rss_bytes(process.pid)
                cpu_before = cpu_seconds(process.pid)
                await clients.connect()
                connect_cpu = cpu_seconds(process.pid) - cpu_before
                await asyncio.sleep(options.warmup)
                rss_playing = rss_bytes(process.pid)
                pids = await backend.service_pids()
                # the window is set ahead, on the machine's monotonic clock, so that every
                # client process times the same one whenever the message reaches it
                start = time.monotonic() + WINDOW_NOTICE
                end = start + options.seconds
                await clients.measure(start, end)
                await asyncio.sleep(start - time.monotonic())
                if profile is not None:
                    process.send_signal(signal.SIGUSR1)
                cpu_start, services_start = cpu_seconds(process.pid), services_cpu(pids)
                bots_start, (busy_start, steal_start) = clients.cpu_seconds(), machine_seconds()
                await asyncio.sleep(end - time.monotonic())
                cpu_used = cpu_seconds(process.pid) - cpu_start
                busy_end, steal_end = machine_seconds()
                machine_used, stolen = busy_end - busy_start, steal_end - steal_start
                bots_used = clients.cpu_seconds() - bots_start
                if profile is not None:
                    process.send_signal(signal.SIGUSR2)
                    await asyncio.sleep(1.0)  # it writes the statistics
                services_end = services_cpu(pids)
                wall = options.seconds
                tallies = await clients.finish()
            except BaseException:
                await clients.abort()
                raise
            finally:
                stop_server(process)
        finally:
            if kind == "simon":
                await backend.close()
    histogram = merge(t.histogram for t in tallies)
    count = sum(t.count for t in tallies)
    if not count:
        raise SystemExit(f"no {variant.name} round trip was measured")
    errors: Counter[str] = Counter()
    for t in tallies:
        errors.update(t.errors)
    service_cpu: dict[str, float | None] = {}
    services_used = 0.0
    for name, before in services_start.items():
        after = services_end.get(name)
        service_cpu[name] = (
            None if before is None or after is None else (after - before) / count * 1e6
        )
        services_used += 0.0 if before is None or after is None else after - before
    others = max(0.0, machine_used - cpu_used - bots_used - services_used)
    return Figures(
        kind=variant.name,
        backend=backend.label if kind == "simon" else "echo",
        bots=options.bots,
        round_trips=count,
        seconds=wall,
        p50_ms=percentile(histogram, 0.5),
        p99_ms=percentile(histogram, 0.99),
        p999_ms=percentile(histogram, 0.999),
        cpu_us_per_rt=cpu_used / count * 1e6,
        rss_per_player_kib=(rss_playing - rss_before) / options.bots / 1024,
        rss_before_mib=rss_before / 2**20,
        rss_playing_mib=rss_playing / 2**20,
        database=backend.database_name,
        refused=sum(t.refused for t in tallies),
        refused_all=sum(t.refused_all for t in tallies),
        errors=dict(errors),
        connect_seconds=max(t.connect_seconds for t in tallies),
        connect_cpu_ms_per_player=connect_cpu / options.bots * 1000,
        service_cpu_us_per_rt=service_cpu,
        others_cores=(others + stolen) / wall,
        asked_per_second=options.rate * options.bots,
    )


def row(r: Figures, services: bool) -> str:
    line = (
        f"{r.kind:<13}{r.per_second:>14,.0f}{r.p50_ms:>9.2f}{r.p99_ms:>9.2f}{r.p999_ms:>10.2f}"
        f"{r.cpu_us_per_rt:>11.1f}{r.rss_per_player_kib:>12.1f}{r.refused:>9,}"
        f"{r.connect_seconds:>11.1f}{r.others_cores:>8.2f}{'*' if r.disturbed else ''}"
    )
    if services:
        for name in ("postgres", "redis"):
            value = r.service_cpu_us_per_rt.get(name)
            line += f"{'-' if value is None else f'{value:.1f}':>12}"
    return line


async def run(options: Options, json_path: Path | None) -> None:
    backend = options.backend
    services = bool(backend.admin or backend.redis_url)
    pace = f"{options.rate:g} moves/s each" if options.rate else "as fast as answers come"
    clients = split(options.bots, options.processes)
    where = f"{len(clients)} client processes" if len(clients) > 1 else "this process"
    print(
        f"{options.bots} bots ({pace}) from {where}, {options.seconds:g} s measured after "
        f"{options.warmup:g} s of warm-up, {options.rounds} rounds of echo then simon "
        f"(simon on {backend.label})"
    )
    header = (
        f"{'server':<13}{'round trips/s':>14}{'p50 ms':>9}{'p99 ms':>9}{'p99.9 ms':>10}"
        f"{'CPU us/rt':>11}{'KiB/player':>12}{'refused':>9}{'connect s':>11}{'others':>8}"
    )
    if services:
        header += f"{'PG us/rt':>12}{'Redis us/rt':>12}"
    print(header)
    results: dict[str, list[Figures]] = {variant.name: [] for variant in options.variants}
    for _ in range(options.rounds):
        for variant in options.variants:
            r = await measure(variant, options)
            results[variant.name].append(r)
            print(row(r, services), flush=True)
            if r.errors or r.refused_all != r.refused:
                print(
                    f"  {r.kind}: {r.refused_all} requests refused as unavailable in all "
                    f"(connecting and warm-up included), other errors: {r.errors or 'none'}"
                )
    least = {name: least_undisturbed_cpu(name, figures) for name, figures in results.items()}
    echo, simon = least["echo"], least["simon"]
    memory = statistics.median(r.rss_per_player_kib for r in results["simon"])
    echo_memory = statistics.median(r.rss_per_player_kib for r in results["echo"])
    # a short run may measure no CPU at all for the echo (the clock ticks every 10 ms)
    ratio = simon / echo if echo > 0 else None
    ratios = {name: cpu / echo if echo > 0 else None for name, cpu in least.items()}
    print(
        "least CPU per round trip: "
        + ", ".join(f"{name} {cpu:.1f} us" for name, cpu in least.items())
    )
    for name, cpu_ratio in ratios.items():
        if name == "echo":
            continue
        if cpu_ratio is None:
            print(f"CPU per round trip, {name} / echo: no ratio (the echo's CPU was too small)")
        else:
            paired = round_ratios(results[name], results["echo"])
            steadier = (
                f"; round by round {statistics.median(paired):.2f}x "
                f"({min(paired):.2f}-{max(paired):.2f}x over {len(paired)})"
                if paired
                else ""
            )
            print(f"CPU per round trip, {name} / echo: {cpu_ratio:.2f}x{steadier}")
    print(
        f"memory per connected player with a game in progress: {memory:.1f} KiB "
        f"(echo server, per connection: {echo_memory:.1f} KiB)"
    )
    connecting = min(r.connect_cpu_ms_per_player for r in results["simon"])
    print(
        f"server CPU to connect a player (websocket handshake, register, start): simon "
        f"{connecting:.2f} ms, echo (handshake only) "
        f"{min(r.connect_cpu_ms_per_player for r in results['echo']):.2f} ms"
    )
    refused = sum(r.refused for r in results["simon"])
    moves = sum(r.round_trips for r in results["simon"])
    print(f"moves refused as unavailable in the measured windows: {refused} of {moves + refused}")
    if json_path is not None:
        load = os.getloadavg()
        document = {
            "command": ["python", "-m", "bench.server_load", *sys.argv[1:]],
            "bots": options.bots,
            "rate": options.rate,
            "seconds": options.seconds,
            "warmup": options.warmup,
            "rounds": options.rounds,
            "client_processes": len(clients),
            "simon_backend": backend.label,
            "machine": {
                "cpus": os.cpu_count(),
                "load_average_at_end": [round(x, 2) for x in load],
                "python": platform.python_version(),
                "websockets": _version("websockets"),
                "platform": platform.platform(),
            },
            "results": [
                asdict(r) | {"per_second": r.per_second}
                for figures in results.values()
                for r in figures
            ],
            "summary": {
                "echo_cpu_us_per_rt": echo,
                "simon_cpu_us_per_rt": simon,
                "cpu_ratio": ratio,
                "least_cpu_us_per_rt": least,
                "cpu_ratios": ratios,
                "simon_rss_per_player_kib": memory,
                "echo_rss_per_connection_kib": echo_memory,
                "simon_refused": refused,
            },
        }
        await asyncio.to_thread(json_path.write_text, json.dumps(document, indent=2) + "\n")
        print(f"figures written to {json_path}")


def least_undisturbed_cpu(name: str, rounds: list[Figures]) -> float:
    """The least CPU per round trip of a server's undisturbed rounds (of all of them, with a
    warning, when none was undisturbed)."""
    quiet = [r for r in rounds if not r.disturbed]
    if not quiet:
        print(f"warning: every round of {name} was disturbed; its figure is the least of all")
        quiet = rounds
    return min(r.cpu_us_per_rt for r in quiet)


def round_ratios(rounds: list[Figures], echoes: list[Figures]) -> list[float]:
    """Each undisturbed round's CPU per round trip over its own round's echo (run just
    before it): a slow drift of the machine's speed cancels within a pair."""
    return [
        r.cpu_us_per_rt / echo.cpu_us_per_rt
        for r, echo in zip(rounds, echoes, strict=True)
        if not r.disturbed and not echo.disturbed and echo.cpu_us_per_rt > 0
    ]


def _version(package: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package)
    except PackageNotFoundError:
        return None


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--bots 4 --seconds 1 --warmup 0.5 --rounds 1"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bots", type=int, default=1000)
    # long enough that every game is checkpointed to the database in the window
    parser.add_argument("--seconds", type=float, default=35.0, help="measured window")
    parser.add_argument("--warmup", type=float, default=5.0, help="play before measuring")
    parser.add_argument("--rounds", type=int, default=2, help="echo then simon, this many times")
    parser.add_argument(
        "--rate", type=float, default=2.0, help="moves per second per bot (0: closed loop)"
    )
    parser.add_argument(
        "--mode",
        choices=("embedded", "services"),
        help="embedded: SQLite file + in-process bus (the default); services: PostgreSQL "
        f"({POSTGRES_ADMIN}) + Redis ({REDIS}) unless --database/--redis say otherwise",
    )
    parser.add_argument(
        "--database",
        metavar="URL",
        help="run our server on PostgreSQL: an admin URL of the server, on which each round "
        "makes (and drops) a fresh database simon_bench_<random>",
    )
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="run our server with this Redis (race events and the rank cache), under a "
        "fresh key prefix per round, deleted at its end",
    )
    parser.add_argument(
        "--client-processes",
        type=int,
        default=1,
        metavar="N",
        help="split the bots across N worker processes (1: all in this process)",
    )
    parser.add_argument("--seed", type=int, default=7, help="seeds the bots' deals and moves")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the figures here")
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="cProfile our server over the measured window (it slows the server: its figures "
        "are not comparable) and write the statistics here",
    )
    parser.add_argument(
        "--without-log",
        action="store_true",
        help="also run our server with the action log switched off (a bench-only setting)",
    )
    parser.add_argument(
        "--before",
        type=Path,
        metavar="DIR",
        help="also run our server from the source tree DIR (another checkout), side by side",
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    limit = raise_file_limit()
    if args.worker:
        asyncio.run(worker(Load(**json.loads(args.worker))))
    else:
        if args.bots < 1 or args.rounds < 1 or args.client_processes < 1:
            parser.error("--bots, --rounds and --client-processes must be at least 1")
        database, redis_url = args.database, args.redis
        if args.mode == "services":
            database = database or POSTGRES_ADMIN
            redis_url = redis_url or REDIS
        elif args.mode == "embedded" and (database or redis_url):
            parser.error("--mode embedded takes neither --database nor --redis")
        if args.bots + 100 > limit:
            print(
                f"warning: {args.bots} bots need as many open files in the server, and the "
                f"limit on open files is {limit}",
                file=sys.stderr,
            )
        # stopped early (Ctrl-C, or a TERM signal): still drop the database, delete the
        # keys and stop the servers and client processes on the way out
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        options = Options(
            bots=args.bots,
            seconds=args.seconds,
            warmup=args.warmup,
            rate=args.rate,
            rounds=args.rounds,
            processes=args.client_processes,
            backend=Backend(admin=database, redis_url=redis_url),
            seed=args.seed,
            profile=Path(args.profile).resolve() if args.profile else None,
            variants=tuple(
                variants(args.without_log, args.before.resolve() if args.before else None)
            ),
        )
        asyncio.run(run(options, args.json))


if __name__ == "__main__":
    main()
