"""Benchmark of the game server against a bare websocket echo server, in one run.

Run from the repository root::

    python -m bench.server_load                    # 1000 bots, 2 moves/s each, about 4 minutes
    python -m bench.server_load --rate 0           # each bot as fast as the answers come
    python -m bench.server_load --bots 200 --seconds 5 --rounds 1   # a quick look
    python -m bench.server_load --redis redis://127.0.0.1:6379/0    # our server as a node of many

Each server runs in a subprocess of its own (ours on an embedded SQLite file in a
temporary folder, no Redis; the echo server with the same websocket options:
compression off, the same frame limit). The same N bot players connect over real
websockets from this process; each one, in a closed loop, sends a move and waits for
the answer. With our server every bot has registered and started a practice game,
and plays a precomputed sequence of legal moves (restarting the deal when it runs
out); the echo server sends each frame back.

Reported per server: round trips per second, round-trip p50/p99, the server process's
CPU time (user + system, from /proc) per round trip, and its resident memory per
connected player (RSS growth from before the bots connect to when all are playing,
divided by N). Figures depend on the machine and its load; the ratio between the two
servers, measured back to back with the same client, is the figure to compare.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from server.engine import Game, GameCode  # noqa: E402

MAX_SIZE = 4096
MOVES_PER_SEQUENCE = 60
CONNECT_AT_ONCE = 50
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


# -- the servers, each in its own process ------------------------------------------------


async def serve_echo(port: int) -> None:
    from websockets.asyncio.server import ServerConnection, serve

    async def echo(websocket: ServerConnection) -> None:
        async for message in websocket:
            await websocket.send(message)

    async with serve(
        echo, "127.0.0.1", port, compression=None, max_size=MAX_SIZE, ping_interval=None
    ):
        print("READY", flush=True)
        await asyncio.Future()


async def serve_simon(port: int, data: str, redis_url: str | None) -> None:
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
        database_url=None,
        redis_url=redis_url,
        redis_prefix=f"simon-bench-{os.getpid()}",
        rate_limit_messages=1_000_000,
        ping_interval_seconds=None,
        log_level="WARNING",
    )
    async with run_server(settings, prover=no_solver):
        tune_gc()
        print("READY", flush=True)
        await asyncio.Future()


def raise_file_limit() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def start_server(kind: str, port: int, data: str, redis_url: str | None) -> subprocess.Popen[str]:
    redis = ["--redis", redis_url] if redis_url else []
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", kind, "--port", str(port), "--data", data, *redis],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    if line.strip() != "READY":
        process.kill()
        raise SystemExit(f"the {kind} server did not start")
    return process


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
class Bot:
    websocket: ClientConnection
    frames: list[str]  # the move frames it sends, in order
    restart: str | None  # the frame that deals the game again (None: echo)
    samples: list[float] = field(default_factory=list)
    count: int = 0


async def make_bot(kind: str, url: str, index: int, rng: random.Random) -> Bot:
    websocket = await connect(url, compression=None, max_size=MAX_SIZE, ping_interval=None)
    code = str(GameCode(1 + (index % 3 == 1) + 3 * (index % 3 == 2), rng.randrange(26**7)))
    moves = move_sequence(code, rng)
    frames = [json.dumps({"type": "move", "id": n, "move": m}) for n, m in enumerate(moves)]
    if kind == "echo":
        return Bot(websocket, frames, None)
    await websocket.send(
        json.dumps({"type": "register", "name": f"bot-{index}-{rng.getrandbits(32):x}"})
    )
    reply = json.loads(await websocket.recv())
    assert reply["type"] == "registered", reply
    await websocket.send(json.dumps({"type": "start", "mode": "practice", "code": code}))
    reply = json.loads(await websocket.recv())
    assert reply["type"] == "state", reply
    return Bot(websocket, frames, json.dumps({"type": "restart"}))


async def play(bot: Bot, stop: asyncio.Event, measuring: asyncio.Event, rate: float) -> None:
    """Send moves, each after the previous answer, ``rate`` a second (0: no pause)."""
    websocket, frames = bot.websocket, bot.frames
    clock = time.perf_counter
    interval = 1 / rate if rate else 0.0
    due = clock() + random.random() * interval  # spread the bots over the interval
    while not stop.is_set():
        for frame in frames:
            if interval:
                due += interval
                pause = due - clock()
                if pause > 0:
                    await asyncio.sleep(pause)
                else:
                    due = clock()  # late: do not burst to catch up
            started = clock()
            await websocket.send(frame)
            reply = await websocket.recv()
            if measuring.is_set():
                bot.samples.append(clock() - started)
                bot.count += 1
            if stop.is_set():
                return
            if bot.restart is not None and reply[9] != "m":  # {"type":"moved"...}
                raise RuntimeError(f"unexpected reply {reply}")
        if not frames:
            await asyncio.sleep(0.01)
        if bot.restart is not None:
            await websocket.send(bot.restart)
            await websocket.recv()


@dataclass
class Figures:
    kind: str
    round_trips: int
    seconds: float
    p50_ms: float
    p99_ms: float
    cpu_us_per_rt: float
    rss_per_player_kib: float

    @property
    def per_second(self) -> float:
        return self.round_trips / self.seconds


async def measure(
    kind: str, bots: int, seconds: float, warmup: float, rate: float, redis_url: str | None
) -> Figures:
    port = 20000 + random.randrange(20000)
    with tempfile.TemporaryDirectory() as data:
        process = start_server(kind, port, data, redis_url)
        try:
            await asyncio.sleep(0.5)
            rss_before = rss_bytes(process.pid)
            url = f"ws://127.0.0.1:{port}"
            rng = random.Random(7)
            gate = asyncio.Semaphore(CONNECT_AT_ONCE)

            async def one(index: int) -> Bot:
                async with gate:
                    return await make_bot(kind, url, index, rng)

            players = await asyncio.gather(*(one(i) for i in range(bots)))
            stop, measuring = asyncio.Event(), asyncio.Event()
            tasks = [asyncio.create_task(play(bot, stop, measuring, rate)) for bot in players]
            await asyncio.sleep(warmup)
            rss_playing = rss_bytes(process.pid)
            cpu_start, wall_start = cpu_seconds(process.pid), time.perf_counter()
            measuring.set()
            await asyncio.sleep(seconds)
            measuring.clear()
            cpu_used, wall = cpu_seconds(process.pid) - cpu_start, time.perf_counter() - wall_start
            stop.set()
            await asyncio.gather(*tasks)
            await asyncio.gather(*(bot.websocket.close() for bot in players))
        finally:
            process.terminate()
            process.wait(10)
    samples = sorted(s for bot in players for s in bot.samples)
    count = sum(bot.count for bot in players)
    return Figures(
        kind=kind,
        round_trips=count,
        seconds=wall,
        p50_ms=statistics.median(samples) * 1000,
        p99_ms=samples[int(len(samples) * 0.99)] * 1000,
        cpu_us_per_rt=cpu_used / count * 1e6,
        rss_per_player_kib=(rss_playing - rss_before) / bots / 1024,
    )


async def run(
    bots: int, seconds: float, warmup: float, rate: float, rounds: int, redis_url: str | None
) -> None:
    pace = f"{rate:g} moves/s each" if rate else "as fast as answers come"
    print(
        f"{bots} bots ({pace}), {seconds:g} s measured after {warmup:g} s of warm-up, "
        f"{rounds} rounds of echo then simon"
    )
    print(
        f"{'server':<8}{'round trips/s':>14}{'p50 ms':>9}{'p99 ms':>9}"
        f"{'CPU us/round trip':>19}{'RSS KiB/player':>16}"
    )
    results: dict[str, list[Figures]] = {"echo": [], "simon": []}
    for _ in range(rounds):
        for kind in ("echo", "simon"):
            r = await measure(kind, bots, seconds, warmup, rate, redis_url)
            results[kind].append(r)
            print(
                f"{r.kind:<8}{r.per_second:>14,.0f}{r.p50_ms:>9.2f}{r.p99_ms:>9.2f}"
                f"{r.cpu_us_per_rt:>19.1f}{r.rss_per_player_kib:>16.1f}",
                flush=True,
            )
    # other work on the machine only ever adds CPU time: the least of the rounds is the
    # figure least disturbed by it
    echo = min(r.cpu_us_per_rt for r in results["echo"])
    simon = min(r.cpu_us_per_rt for r in results["simon"])
    memory = statistics.median(r.rss_per_player_kib for r in results["simon"])
    echo_memory = statistics.median(r.rss_per_player_kib for r in results["echo"])
    print(f"least CPU per round trip: echo {echo:.1f} us, simon {simon:.1f} us")
    print(f"CPU per round trip, simon / echo: {simon / echo:.2f}x")
    print(
        f"memory per connected player with a game in progress: {memory:.1f} KiB "
        f"(echo server, per connection: {echo_memory:.1f} KiB)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=1000)
    # long enough that every game is checkpointed to the database in the window
    parser.add_argument("--seconds", type=float, default=35.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=2, help="echo then simon, this many times")
    parser.add_argument(
        "--redis", help="run our server with this Redis (snapshots saved after every move)"
    )
    parser.add_argument(
        "--rate", type=float, default=2.0, help="moves per second per bot (0: closed loop)"
    )
    parser.add_argument("--serve", choices=("echo", "simon"), help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    args = parser.parse_args()
    raise_file_limit()
    if args.serve == "echo":
        asyncio.run(serve_echo(args.port))
    elif args.serve == "simon":
        asyncio.run(serve_simon(args.port, args.data, args.redis))
    else:
        asyncio.run(run(args.bots, args.seconds, args.warmup, args.rate, args.rounds, args.redis))


if __name__ == "__main__":
    main()
