"""Benchmark of race rooms: racers in rooms of 10 on two server nodes sharing PostgreSQL
and Redis, against the daily path and plain practice games on the same nodes.

Run from the repository root::

    python -m bench.race                              # 1000 racers, 100 rooms; about 4 minutes
    python -m bench.race --racers 200 --seconds 10    # a quick look
    python -m bench.race --paths rooms                # rooms only
    python -m bench.race --json figures.json          # every figure, for the docs

What is measured
----------------
Two ``simon-server`` nodes (each a process of its own, as ``simon-server`` runs it but
with no message budget and no solver: every deal counts as proven) share a fresh
PostgreSQL database and a fresh Redis key prefix. Bots connect over real websockets, a
racer of each room on one node and the next on the other, so every room's events cross
between the nodes through Redis. Paths, one after the other on the same nodes, each with
bots of its own:

- ``rooms``: the racers open rooms of ``--room-size`` (one of them ``race_new``, the rest
  ``race_join``), the owner starts each room, every racer gets its game at the reveal and
  plays random legal moves, ``--rate`` a second (a closed loop: a move, its answer, a
  pause). Every move is told to the others of its room (``race_update``, moves at most
  twice a second per racer, so every move of a paced racer goes out).
- ``daily``: ``--daily-players`` players on the day's deal (``start`` of the daily, which
  follows its race), at the same rate: each node sends its followers a digest of the race
  (the leaders and the rows around their own) at most once a second.
- ``practice``: the same, on practice games: no race, no events (the baseline).

Figures per path, over the measured window (``--seconds`` after ``--warmup`` of play):
moves a second; the CPU time of both nodes per move (user + system, from /proc), and of
the PostgreSQL backends of the database and the Redis server; the latency from the moment
a racer sends a move to the moment each other racer of its room receives the update that
carries it (for the daily: the first digest that shows it, to those whose digest has that
player's row), p50 and p99 (sender and receivers are in the same client process, so one
monotonic clock times both); and the updates each move made.
The bots run in ``--client-processes`` worker processes (a room's racers all in one).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import subprocess
import sys
import time
import uuid
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from bench.server_load_bots import bucket, merge, move_sequence, percentile, split  # noqa: E402
from bench.server_load_servers import (  # noqa: E402
    Backend,
    cpu_seconds,
    raise_file_limit,
    services_cpu,
    start_node,
    stop_server,
)
from tests.support.services import POSTGRES_ADMIN_DSN as POSTGRES_ADMIN  # noqa: E402
from tests.support.services import REDIS_URL as REDIS  # noqa: E402

MAX_SIZE = 1 << 16
PATHS = ("rooms", "daily", "practice")
COUNTDOWN = 2.0
#: Rooms (or players) a worker seats at once.
SEATING_AT_ONCE = 20
REPLY_SECONDS = 60.0


# -- the nodes ---------------------------------------------------------------------------


async def serve(port: int, database: str, redis_url: str, prefix: str) -> None:
    import signal

    from server.main import tune_gc
    from server.net import run_server
    from server.play.daily.deals import Proof
    from server.settings import Settings

    async def no_solver(code: str) -> Proof:  # random moves are played: no proof needed
        return Proof(True, None)

    settings = Settings(
        host="127.0.0.1",
        port=port,
        database_url=database,
        redis_url=redis_url,
        redis_prefix=prefix,
        rate_limit_messages=1_000_000,
        limits_exempt="127.0.0.0/8",  # a thousand players from one address
        ping_interval_seconds=None,
        log_level="WARNING",
        race_countdown_seconds=COUNTDOWN,
    )
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with run_server(settings, prover=no_solver):
        tune_gc()
        print("READY", flush=True)
        await stop.wait()


# -- the bots ----------------------------------------------------------------------------


@dataclass
class Share:
    """One worker's bots: ``count`` of them from ``first``, in rooms of ``room_size``."""

    path: str
    urls: list[str]
    first: int
    count: int
    room_size: int
    rate: float
    seed: int
    play_at: float  # when every bot starts playing (time.monotonic, one clock per machine)
    window: tuple[float, float]


@dataclass
class Tally:
    histogram: Counter[int] = field(default_factory=Counter)  # move -> others' update
    updates: int = 0  # updates received in the window (the others' lines)
    moves: int = 0  # moves answered in the window
    answered: int = 0  # moves answered at any time (says why a window saw none)
    slowest: float = 0.0  # the slowest move's round trip, seconds
    errors: Counter[str] = field(default_factory=Counter)
    late: bool = False  # the bots were not all ready when play began


class Bot:
    """One player: a reader task dispatches replies to the waiting request and times the
    updates about the others' moves."""

    def __init__(self, websocket: ClientConnection, name: str, world: World) -> None:
        self.websocket = websocket
        self.name = name
        self.world = world
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.pushed: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.next_id = 1
        #: The moves of each other player last seen in a digest (each change timed once).
        self.seen: dict[str, int] = {}
        self.reader = asyncio.create_task(self.read())

    async def read(self) -> None:
        world = self.world
        clock = time.monotonic
        async for frame in self.websocket:
            assert isinstance(frame, str)
            if frame.startswith('{"type":"race_digest"'):
                now = clock()
                for row in json.loads(frame)["players"]:
                    player, moves = row["player"], row["moves"]
                    if player == self.name or self.seen.get(player) == moves:
                        continue
                    self.seen[player] = moves
                    sent = world.sent.get((player, moves))
                    if sent is not None and world.window[0] <= now < world.window[1]:
                        world.tally.histogram[bucket(now - sent)] += 1
                        world.tally.updates += 1
                continue
            if frame.startswith('{"type":"race_update"'):
                now = clock()
                message = json.loads(frame)
                entry = message["entry"]
                if entry["player"] == self.name or message["event"] not in ("moved", "removed"):
                    continue
                sent = world.sent.get((entry["player"], entry["moves"]))
                if sent is not None and world.window[0] <= now < world.window[1]:
                    world.tally.histogram[bucket(now - sent)] += 1
                    world.tally.updates += 1
                continue
            message = json.loads(frame)
            waiter = self.waiting.pop(message.get("id", -1), None)
            if waiter is not None and not waiter.done():
                waiter.set_result(message)
            elif "id" not in message:
                self.pushed.put_nowait(message)

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        message_id = self.next_id
        self.next_id += 1
        waiter: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[message_id] = waiter
        await self.websocket.send(json.dumps({**message, "id": message_id}))
        return await asyncio.wait_for(waiter, REPLY_SECONDS)

    async def pushed_state(self) -> dict[str, Any]:
        while True:
            message = await asyncio.wait_for(self.pushed.get(), REPLY_SECONDS)
            if message["type"] == "state":
                return dict(message["state"])


@dataclass
class World:
    """What one worker's bots share: when each of its players sent which move."""

    window: tuple[float, float]
    tally: Tally = field(default_factory=Tally)
    sent: dict[tuple[str, int], float] = field(default_factory=dict)


async def new_bot(share: Share, index: int, world: World, run: str) -> Bot:
    url = share.urls[index % len(share.urls)]
    websocket = await connect(url, compression=None, max_size=MAX_SIZE, ping_interval=None)
    bot = Bot(websocket, f"r{run}-{index}", world)
    reply = await bot.request({"type": "register", "name": bot.name})
    if reply["type"] != "registered":
        raise RuntimeError(f"register: {reply}")
    return bot


async def seat_room(share: Share, first: int, size: int, world: World, run: str) -> list[Any]:
    """Open a room, fill it, start it; the racers and their revealed games."""
    bots = [await new_bot(share, index, world, run) for index in range(first, first + size)]
    owner = bots[0]
    room = await owner.request({"type": "race_new", "suits": 1, "capacity": size})
    code = room["room"]["code"]
    for bot in bots[1:]:
        joined = await bot.request({"type": "race_join", "code": code})
        if joined["type"] != "race_room":
            raise RuntimeError(f"race_join: {joined}")
    started = await owner.request({"type": "race_start", "code": code})
    if started["type"] != "race_room":
        raise RuntimeError(f"race_start: {started}")
    states = [await bot.pushed_state() for bot in bots]
    return list(zip(bots, states, strict=True))


async def seat_alone(share: Share, index: int, world: World, run: str) -> tuple[Bot, Any]:
    bot = await new_bot(share, index, world, run)
    rng = random.Random(share.seed * 7919 + index)
    if share.path == "daily":
        start: dict[str, Any] = {"type": "start", "mode": "daily", "suits": 1}
    else:
        start = {"type": "start", "mode": "practice", "code": f"SS1-S1-{_letters(rng)}"}
    reply = await bot.request(start)
    if reply["type"] != "state":
        raise RuntimeError(f"start: {reply}")
    return bot, reply["state"]


def _letters(rng: random.Random) -> str:
    return "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(7))


async def play(bot: Bot, code: str, share: Share, index: int, world: World) -> None:
    rng = random.Random(share.seed * 104729 + index)
    moves = move_sequence(code, rng)
    clock = time.monotonic
    interval = 1 / share.rate
    due = share.play_at + rng.random() * interval
    tally, sent, end = world.tally, world.sent, world.window[1]
    played = 0
    while clock() < end:
        for move in moves:
            due += interval
            pause = due - clock()
            if pause > 0:
                await asyncio.sleep(pause)
            else:
                due = clock()
            if clock() >= end:
                return
            played += 1
            sent[(bot.name, played)] = asked = clock()
            reply = await bot.request({"type": "move", "move": move})
            tally.slowest = max(tally.slowest, clock() - asked)
            if reply["type"] != "moved":
                tally.errors[str(reply.get("code", reply["type"]))] += 1
                break
            tally.answered += 1
            if world.window[0] <= clock() < end:
                tally.moves += 1
        await bot.request({"type": "restart"})
        played = 0


async def drive(share: Share) -> dict[str, Any]:
    world = World(share.window)
    run = uuid.uuid4().hex[:6]
    seated: list[tuple[Bot, Any, int]] = []
    at_once = asyncio.Semaphore(SEATING_AT_ONCE)
    if share.path == "rooms":

        async def seat(first: int) -> None:
            size = min(share.room_size, share.first + share.count - first)
            async with at_once:
                pairs = await seat_room(share, first, size, world, run)
            seated.extend((bot, state, first + k) for k, (bot, state) in enumerate(pairs))

        rooms = range(share.first, share.first + share.count, share.room_size)
        await asyncio.gather(*(seat(first) for first in rooms))
    else:

        async def seat_one(index: int) -> None:
            async with at_once:
                bot, state = await seat_alone(share, index, world, run)
            seated.append((bot, state, index))

        await asyncio.gather(*(seat_one(i) for i in range(share.first, share.first + share.count)))
    world.tally.late = time.monotonic() > share.play_at
    await asyncio.gather(
        *(play(bot, state["code"], share, index, world) for bot, state, index in seated)
    )
    for bot, _, _ in seated:
        bot.reader.cancel()
        await bot.websocket.close()
    tally = world.tally
    return {
        "histogram": dict(tally.histogram),
        "updates": tally.updates,
        "moves": tally.moves,
        "answered": tally.answered,
        "slowest": tally.slowest,
        "errors": dict(tally.errors),
        "late": tally.late,
    }


def worker(share: Share) -> dict[str, Any]:
    raise_file_limit()
    return asyncio.run(drive(share))


# -- a path --------------------------------------------------------------------------------


@dataclass
class Figures:
    path: str
    players: int
    moves_per_second: float
    cpu_ms_per_move: float  # both nodes
    postgres_ms_per_move: float | None
    redis_ms_per_move: float | None
    update_p50_ms: float | None
    update_p99_ms: float | None
    updates_per_move: float  # timed deliveries per move (receivers in the mover's process)
    errors: dict[str, int]
    late: bool
    answered: int  # moves answered at any time, the window's and the others
    slowest_ms: float  # the slowest move's round trip


async def measure(
    path: str, options: argparse.Namespace, backend: Backend, pids: list[int]
) -> Figures:
    """One path on the running nodes: the bots play, the window is measured."""
    now = time.monotonic()
    play_at = now + options.setup
    window = (play_at + options.warmup, play_at + options.warmup + options.seconds)
    urls = [f"ws://127.0.0.1:{port}" for port in options.ports]
    size = options.room_size
    players = options.daily_players if path == "daily" else options.racers
    rooms = -(-players // size)
    shares = []
    for first_room, count in split(rooms, options.client_processes):
        first = first_room * size
        racers = min(count * size, players - first)
        shares.append(
            Share(path, urls, first, racers, size, options.rate, options.seed, play_at, window)
        )
    loop = asyncio.get_running_loop()
    with ProcessPoolExecutor(len(shares), mp_context=get_context("spawn")) as pool:
        futures = [loop.run_in_executor(pool, worker, share) for share in shares]
        await asyncio.sleep(max(0.0, window[0] - time.monotonic()))
        service_pids = await backend.service_pids()
        cpu_before = sum(cpu_seconds(pid) for pid in pids)
        services_before = services_cpu(service_pids)
        await asyncio.sleep(max(0.0, window[1] - time.monotonic()))
        cpu_after = sum(cpu_seconds(pid) for pid in pids)
        services_after = services_cpu(service_pids)
        results = await asyncio.gather(*futures)
    moves: int = sum(r["moves"] for r in results)
    histogram = merge(r["histogram"] for r in results)
    errors: Counter[str] = Counter()
    for r in results:
        errors.update(r["errors"])

    def per_move(before: float | None, after: float | None) -> float | None:
        if before is None or after is None or not moves:
            return None
        return round((after - before) / moves * 1000, 3)

    return Figures(
        path=path,
        players=players,
        moves_per_second=round(moves / options.seconds, 1),
        cpu_ms_per_move=per_move(cpu_before, cpu_after) or 0.0,
        postgres_ms_per_move=per_move(
            services_before.get("postgres"), services_after.get("postgres")
        ),
        redis_ms_per_move=per_move(services_before.get("redis"), services_after.get("redis")),
        update_p50_ms=percentile(histogram, 0.5) if histogram else None,
        update_p99_ms=percentile(histogram, 0.99) if histogram else None,
        updates_per_move=round(sum(r["updates"] for r in results) / moves, 2) if moves else 0.0,
        errors=dict(errors),
        late=any(r["late"] for r in results),
        answered=sum(r["answered"] for r in results),
        slowest_ms=round(max(r["slowest"] for r in results) * 1000, 1),
    )


async def run(options: argparse.Namespace) -> list[Figures]:
    backend = Backend(admin=options.database, redis_url=options.redis)
    await backend.open()
    nodes: list[subprocess.Popen[str]] = []
    try:
        for port in options.ports:  # one after the other: the first migrates the database
            nodes.append(start_node(__file__, port, backend))  # noqa: PERF401  # stopped if the next fails
        figures = []
        for path in options.paths:
            found = await measure(path, options, backend, [node.pid for node in nodes])
            figures.append(found)
            print(row(found), flush=True)
        return figures
    finally:
        for node in nodes:
            stop_server(node)
        await backend.close()


def row(f: Figures) -> str:
    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    return (
        f"{f.path:9} {f.players:5} players  {f.moves_per_second:7.1f} moves/s  "
        f"nodes {f.cpu_ms_per_move:.3f} ms/move  postgres {ms(f.postgres_ms_per_move)}  "
        f"redis {ms(f.redis_ms_per_move)}  update p50 {ms(f.update_p50_ms)} ms "
        f"p99 {ms(f.update_p99_ms)} ms  {f.updates_per_move} updates/move"
        + (f"  errors {f.errors}" if f.errors else "")
        + ("  (LATE: bots not ready when play began; raise --setup)" if f.late else "")
    )


def free_ports(count: int) -> list[int]:
    import socket

    ports = []
    sockets = []
    for _ in range(count):
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        sockets.append(probe)
        ports.append(probe.getsockname()[1])
    for probe in sockets:
        probe.close()
    return ports


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = (
    "--racers 4 --room-size 2 --daily-players 2 --rate 5 --seconds 2 --warmup 1 --setup 8 "
    "--client-processes 1"
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--racers", type=int, default=1000, help="players in rooms, and practising")
    parser.add_argument(
        "--daily-players",
        type=int,
        default=100,
        help="players on the daily path (each move goes to all of them: keep it small)",
    )
    parser.add_argument("--room-size", type=int, default=10)
    parser.add_argument("--rate", type=float, default=0.2, help="moves per second per player")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured window")
    parser.add_argument("--warmup", type=float, default=10.0, help="play before measuring")
    parser.add_argument(
        "--setup", type=float, default=60.0, help="seconds to connect and seat every bot"
    )
    parser.add_argument("--paths", default=",".join(PATHS), help="rooms,daily,practice")
    parser.add_argument("--client-processes", type=int, default=2, metavar="N")
    parser.add_argument("--database", default=POSTGRES_ADMIN, metavar="URL")
    parser.add_argument("--redis", default=REDIS, metavar="URL")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--json", type=Path, metavar="FILE")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--prefix", help=argparse.SUPPRESS)
    options = parser.parse_args()
    raise_file_limit()
    if options.serve:
        asyncio.run(serve(options.port, options.database, options.redis, options.prefix))
        return
    options.paths = [path for path in options.paths.split(",") if path]
    unknown = set(options.paths) - set(PATHS)
    if unknown:
        parser.error(f"unknown paths: {sorted(unknown)}")
    options.ports = free_ports(2)
    print(
        f"{options.racers} players a path, rooms of {options.room_size}, {options.rate} "
        f"moves/s each, 2 nodes (PostgreSQL + Redis), {options.client_processes} client "
        f"processes; window {options.seconds:g} s after {options.warmup:g} s of play",
        flush=True,
    )
    figures = asyncio.run(run(options))
    if options.json:
        options.json.write_text(
            json.dumps(
                {
                    "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
                    "options": {
                        key: value
                        for key, value in vars(options).items()
                        if key not in ("json", "serve", "port", "prefix")
                    },
                    "figures": [asdict(f) for f in figures],
                },
                indent=1,
            )
        )
    idle = [f for f in figures if not f.moves_per_second]
    if idle:
        sys.exit(
            "no move was measured on: "
            + ", ".join(
                f"{f.path} ({f.answered} answered outside the window, slowest {f.slowest_ms} ms)"
                for f in idle
            )
        )


if __name__ == "__main__":
    main()
