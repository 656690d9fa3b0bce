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
and plays a precomputed sequence of up to 60 legal moves, sending ``restart`` between
sequences; every move carries an id of its own, so no move is ever answered from the
server's memory of replies. The echo server gets the same move frames. Each bot runs a
closed loop: a move, then its answer, then (with ``--rate R``) a pause so that the bot
makes R moves a second, its first move at a random point of its first interval so the
bots spread evenly; ``--rate 0`` sends the next move as soon as the answer is in. A bot
that falls behind does not burst to catch up.

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
those processes run on this machine. The least CPU per round trip of the rounds is the
summary (other work on the machine only ever adds to it), and its ratio simon / echo is
the figure to compare: both servers are measured back to back with the same clients.
``--json FILE`` writes every figure.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import math
import os
import platform
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
#: Where a server process of ``--before`` takes the server's code from (this tree otherwise).
SOURCE = Path(os.environ.get("SIMON_BENCH_SOURCE") or ROOT)
sys.path.insert(0, str(SOURCE))

from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from server.engine import Game, GameCode  # noqa: E402
from tests.support.services import POSTGRES_ADMIN_DSN, REDIS_URL  # noqa: E402

MAX_SIZE = 4096
MOVES_PER_SEQUENCE = 60
CONNECT_AT_ONCE = 50  # connection attempts in flight, over all client processes
RETRY_PAUSE = 0.1  # seconds before a refused request is sent again
WINDOW_NOTICE = 0.5  # seconds between telling the clients the measured window and its start
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
POSTGRES_ADMIN = POSTGRES_ADMIN_DSN
REDIS = REDIS_URL
UNAVAILABLE = "unavailable"


# -- pure helpers ----------------------------------------------------------------------------


def bucket(seconds: float) -> int:
    """A round trip's histogram bucket: microseconds, to 3 significant digits from 1 ms."""
    us = int(seconds * 1e6)
    if us < 1000:
        return us
    step: int = 10 ** (int(math.log10(us)) - 2)
    return us // step * step


def merge(histograms: Iterable[Mapping[int, int] | Mapping[str, int]]) -> Counter[int]:
    """Histograms added up (keys may be strings, as JSON leaves them)."""
    total: Counter[int] = Counter()
    for histogram in histograms:
        for key, count in histogram.items():
            total[int(key)] += count
    return total


def percentile(histogram: Mapping[int, int], q: float) -> float:
    """The q-quantile (0 <= q < 1) of a histogram, in milliseconds: the value at index
    ``int(n * q)`` of the sorted samples, as with a sorted list of them."""
    n = sum(histogram.values())
    if n == 0:
        return math.nan
    index = min(int(n * q), n - 1)
    seen = 0
    for key in sorted(histogram):
        seen += histogram[key]
        if seen > index:
            return key / 1000
    raise AssertionError("unreachable")


def split(total: int, parts: int) -> list[tuple[int, int]]:
    """``total`` bots as ``parts`` shares (first index, count), as even as can be."""
    parts = max(1, min(parts, total))
    size, extra = divmod(total, parts)
    shares, first = [], 0
    for part in range(parts):
        count = size + (part < extra)
        shares.append((first, count))
        first += count
    return shares


def database_url(admin: str, name: str) -> str:
    """The URL of database ``name`` on the server that ``admin`` (a PostgreSQL URL) names."""
    scheme, sep, rest = admin.partition("://")
    server, _, path = rest.partition("/")
    if not sep or not server:
        raise ValueError(f"not a database URL: {admin}")
    query = path.partition("?")[2]
    return f"{scheme}://{server}/{name}" + (f"?{query}" if query else "")


def move_frame(message_id: int, move: str) -> str:
    """The frame of a move, as ``json.dumps`` writes it (cheaper to make)."""
    return f'{{"type": "move", "id": {message_id}, "move": "{move}"}}'


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
    from server.play.daily import Proof
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


# -- the bots ------------------------------------------------------------------------------


def move_sequence(code: str, rng: random.Random) -> list[str]:
    """Legal moves from the deal, explicit counts, never moving a whole column to an empty one."""
    game = Game.from_code(code)
    moves = []
    for _ in range(MOVES_PER_SEQUENCE):
        legal = [
            m
            for m in game.legal_moves()
            if game.column(m.target) or m.count != len(game.column(m.source))
        ]
        if not legal:
            break
        moves.append(game.push(rng.choice(legal)).text())
    return moves


@dataclass
class Tally:
    """What the bots of one process saw."""

    histogram: Counter[int] = field(default_factory=Counter)  # measured round trips
    count: int = 0  # measured round trips
    refused: int = 0  # moves refused as unavailable in the measured window
    refused_all: int = 0  # requests refused as unavailable, connecting and warming up too
    errors: Counter[str] = field(default_factory=Counter)  # other error codes, at any time
    connect_seconds: float = 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "histogram": dict(self.histogram),
            "count": self.count,
            "refused": self.refused,
            "refused_all": self.refused_all,
            "errors": dict(self.errors),
            "connect_seconds": self.connect_seconds,
        }


@dataclass
class Bot:
    websocket: ClientConnection
    moves: list[str]  # the moves it plays, in order
    start: str | None  # the frame that starts its game (None: echo)
    next_id: int = 0

    @property
    def simon(self) -> bool:
        return self.start is not None


RESTART = json.dumps({"type": "restart"})


def reply_error(reply: str | bytes) -> str:
    """The error code of a reply to a move that is not ``moved``."""
    message = json.loads(reply)
    if message.get("type") == "error":
        return str(message.get("code", "?"))
    return f"unexpected-{message.get('type')}"


async def request(bot: Bot, tally: Tally, frame: str, want: str, stop: asyncio.Event) -> str:
    """Send a frame until it is not refused as unavailable: the reply of type ``want`` (after
    any pushed messages), else the error code, or ``""`` once the run stops."""
    while not stop.is_set():
        await bot.websocket.send(frame)
        while True:
            message = json.loads(await bot.websocket.recv())
            kind = message.get("type")
            if kind == want:
                return want
            if kind == "error":
                break
            # a `finished` after a winning move, race events: not the answer yet
        code = str(message.get("code", "?"))
        if code != UNAVAILABLE:
            tally.errors[code] += 1
            return code
        tally.refused_all += 1
        await asyncio.sleep(RETRY_PAUSE)
    return ""


async def make_bot(
    kind: str, url: str, index: int, seed: int, tally: Tally, stop: asyncio.Event
) -> Bot:
    rng = random.Random(seed * 1_000_003 + index)  # one bot, the same whatever process plays it
    code = str(GameCode(1 + (index % 3 == 1) + 3 * (index % 3 == 2), rng.randrange(26**7)))
    moves = move_sequence(code, rng)
    websocket = await connect(url, compression=None, max_size=MAX_SIZE, ping_interval=None)
    if kind == "echo":
        return Bot(websocket, moves, None)
    start = json.dumps({"type": "start", "mode": "practice", "code": code})
    bot = Bot(websocket, moves, start)
    name = f"bot-{index}-{rng.getrandbits(32):x}"
    register = json.dumps({"type": "register", "name": name})
    for frame, want in ((register, "registered"), (start, "state")):
        got = await request(bot, tally, frame, want, stop)
        if got != want:
            raise RuntimeError(f"bot {index}: {want} refused with {got or 'the run stopping'}")
    return bot


async def play(
    bot: Bot, tally: Tally, stop: asyncio.Event, window: list[float], rate: float
) -> None:
    """Send moves, each after the previous answer, ``rate`` a second (0: no pause); time
    the round trips that end inside ``window`` (start and end, on ``time.monotonic``)."""
    websocket, moves, simon = bot.websocket, bot.moves, bot.simon
    clock = time.monotonic  # one clock for every process of the machine
    histogram = tally.histogram
    interval = 1 / rate if rate else 0.0
    due = clock() + random.random() * interval  # spread the bots over the interval
    message_id = bot.next_id
    while not stop.is_set():
        for move in moves:
            if interval:
                due += interval
                pause = due - clock()
                if pause > 0:
                    await asyncio.sleep(pause)
                else:
                    due = clock()  # late: do not burst to catch up
            frame = move_frame(message_id, move)
            message_id += 1
            while True:
                started = clock()
                await websocket.send(frame)
                reply = await websocket.recv()
                if not simon or reply[9] == "m":  # {"type":"moved"...}
                    code = ""
                    break
                code = reply_error(reply)
                if code != UNAVAILABLE:
                    break
                tally.refused_all += 1
                if window[0] <= clock() < window[1]:
                    tally.refused += 1
                if stop.is_set():
                    return
                await asyncio.sleep(RETRY_PAUSE)  # and send it again, with the same id
            if code:
                tally.errors[code] += 1
                if stop.is_set():
                    return
                break  # not where the sequence thinks: deal again
            done = clock()
            if window[0] <= done < window[1]:
                histogram[bucket(done - started)] += 1
                tally.count += 1
            if stop.is_set():
                return
        if not moves:
            await asyncio.sleep(0.01)
        if simon:
            got = await request(bot, tally, RESTART, "state", stop)
            if got in ("game-over", "no-game"):  # a won game: start it afresh
                await request(bot, tally, bot.start, "state", stop)  # type: ignore[arg-type]
    bot.next_id = message_id


@dataclass
class Load:
    """One client process's share of the bots."""

    kind: str
    url: str
    first: int  # index of its first bot
    count: int
    rate: float
    seed: int
    connect_at_once: int


@dataclass
class Control:
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    window: list[float] = field(default_factory=lambda: [math.inf, math.inf])
    stop: asyncio.Event = field(default_factory=asyncio.Event)


async def drive(load: Load, control: Control) -> Tally:
    """Connect a share of the bots, let them play until told to stop, and tally."""
    tally = Tally()
    gate = asyncio.Semaphore(load.connect_at_once)

    async def one(index: int) -> Bot:
        async with gate:
            return await make_bot(load.kind, load.url, index, load.seed, tally, control.stop)

    started = time.perf_counter()
    players = await asyncio.gather(*(one(load.first + i) for i in range(load.count)))
    tally.connect_seconds = time.perf_counter() - started
    tasks = [
        asyncio.create_task(play(bot, tally, control.stop, control.window, load.rate))
        for bot in players
    ]
    control.connected.set()
    try:
        await control.stop.wait()
    finally:
        # nothing is measured any more: no bot need finish its pause or its round trip
        for task in tasks:
            task.cancel()
        outcomes = await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*(bot.websocket.close() for bot in players), return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, Exception):  # a bot that failed while playing
            raise outcome
    return tally


class InProcessClients:
    """All the bots in this process."""

    def __init__(self, load: Load) -> None:
        self.load = load
        self.control = Control()
        self.task: asyncio.Task[Tally] | None = None

    async def connect(self) -> None:
        self.task = asyncio.create_task(drive(self.load, self.control))
        connected = asyncio.create_task(self.control.connected.wait())
        await asyncio.wait((self.task, connected), return_when=asyncio.FIRST_COMPLETED)
        connected.cancel()
        if self.task.done():
            self.task.result()  # raises what went wrong
            raise RuntimeError("the bots stopped before they were all connected")

    async def measure(self, start: float, end: float) -> None:
        self.control.window[:] = [start, end]

    async def finish(self) -> list[Tally]:
        self.control.stop.set()
        assert self.task is not None
        return [await self.task]

    async def abort(self) -> None:
        self.control.stop.set()
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)


class WorkerClients:
    """The bots split across worker processes, driven over their stdin and stdout."""

    def __init__(self, loads: list[Load]) -> None:
        self.loads = loads
        self.workers: list[asyncio.subprocess.Process] = []

    async def connect(self) -> None:
        for load in self.loads:
            self.workers.append(
                await asyncio.create_subprocess_exec(
                    sys.executable,
                    __file__,
                    "--worker",
                    json.dumps(asdict(load)),
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    env={**os.environ, "PYTHONPATH": str(ROOT)},
                    limit=2**26,  # the tally is one line
                )
            )
        for worker in self.workers:
            await self._expect(worker, "CONNECTED")

    @staticmethod
    async def _expect(worker: asyncio.subprocess.Process, word: str) -> str:
        assert worker.stdout is not None
        line = (await worker.stdout.readline()).decode()
        if not line.startswith(word):
            raise RuntimeError(f"a client process failed: {line.strip() or 'it exited'}")
        return line[len(word) :].strip()

    async def _say(self, word: str) -> None:
        for worker in self.workers:
            assert worker.stdin is not None
            worker.stdin.write(f"{word}\n".encode())
        for worker in self.workers:
            assert worker.stdin is not None
            await worker.stdin.drain()

    async def measure(self, start: float, end: float) -> None:
        await self._say(f"measure {start!r} {end!r}")

    async def finish(self) -> list[Tally]:
        await self._say("stop")
        tallies = []
        for worker in self.workers:
            data = json.loads(await self._expect(worker, "TALLY"))
            await worker.wait()
            tallies.append(
                Tally(
                    histogram=merge([data["histogram"]]),
                    count=data["count"],
                    refused=data["refused"],
                    refused_all=data["refused_all"],
                    errors=Counter(data["errors"]),
                    connect_seconds=data["connect_seconds"],
                )
            )
        return tallies

    async def abort(self) -> None:
        for worker in self.workers:
            if worker.returncode is None:
                worker.kill()
            await worker.wait()


async def worker(load: Load) -> None:
    """A client process: connect, then do as the lines on stdin say; print the tally."""
    control = Control()
    task = asyncio.create_task(drive(load, control))
    connected = asyncio.create_task(control.connected.wait())
    await asyncio.wait((task, connected), return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        error = task.exception()
        print(f"FAILED {error!r}", flush=True)
        raise SystemExit(1)
    print("CONNECTED", flush=True)
    while True:  # one line at a time: no read is left waiting at the end
        words = (await asyncio.to_thread(sys.stdin.readline)).split()
        if words[:1] == ["measure"]:
            control.window[:] = [float(words[1]), float(words[2])]
        else:  # "stop", or the parent went away
            break
    control.stop.set()
    tally = await task
    print("TALLY " + json.dumps(tally.as_json(), separators=(",", ":")), flush=True)


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

    @property
    def per_second(self) -> float:
        return self.round_trips / self.seconds


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
                await asyncio.sleep(end - time.monotonic())
                cpu_used = cpu_seconds(process.pid) - cpu_start
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
    for name, before in services_start.items():
        after = services_end.get(name)
        service_cpu[name] = (
            None if before is None or after is None else (after - before) / count * 1e6
        )
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
    )


def row(r: Figures, services: bool) -> str:
    line = (
        f"{r.kind:<13}{r.per_second:>14,.0f}{r.p50_ms:>9.2f}{r.p99_ms:>9.2f}{r.p999_ms:>10.2f}"
        f"{r.cpu_us_per_rt:>11.1f}{r.rss_per_player_kib:>12.1f}{r.refused:>9,}"
        f"{r.connect_seconds:>11.1f}"
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
        f"{'CPU us/rt':>11}{'KiB/player':>12}{'refused':>9}{'connect s':>11}"
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
    # other work on the machine only ever adds CPU time: the least of the rounds is the
    # figure least disturbed by it
    echo = min(r.cpu_us_per_rt for r in results["echo"])
    simon = min(r.cpu_us_per_rt for r in results["simon"])
    memory = statistics.median(r.rss_per_player_kib for r in results["simon"])
    echo_memory = statistics.median(r.rss_per_player_kib for r in results["echo"])
    # a short run may measure no CPU at all for the echo (the clock ticks every 10 ms)
    ratio = simon / echo if echo > 0 else None
    least = {name: min(r.cpu_us_per_rt for r in figures) for name, figures in results.items()}
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
            print(f"CPU per round trip, {name} / echo: {cpu_ratio:.2f}x")
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
    parser.add_argument("--serve", choices=("echo", "simon"), help=argparse.SUPPRESS)
    parser.add_argument("--no-log", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--prefix", default="simon-bench", help=argparse.SUPPRESS)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    limit = raise_file_limit()
    if args.serve == "echo":
        asyncio.run(serve_echo(args.port))
    elif args.serve == "simon":
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
    elif args.worker:
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
