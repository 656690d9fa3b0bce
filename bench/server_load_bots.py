"""The bots of the load benchmark (:mod:`bench.server_load`): each plays over a websocket of
its own, in this process or in worker processes, and their round trips are kept as
histograms that add up across processes."""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from bench.server_load_servers import MAX_SIZE, ROOT, cpu_seconds
from server.engine import Game, GameCode

MOVES_PER_SEQUENCE = 60
#: A bot whose deal gets stuck sooner takes the next deal its seed draws: one stuck after
#: a few moves would spend its turns restarting, a message that is not a move.
MOVES_AT_LEAST = 30
CONNECT_AT_ONCE = 50  # connection attempts in flight, over all client processes
RETRY_PAUSE = 0.1  # seconds before a refused request is sent again
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


def move_frame(message_id: int, move: str) -> str:
    """The frame of a move, as ``json.dumps`` writes it (cheaper to make)."""
    return f'{{"type": "move", "id": {message_id}, "move": "{move}"}}'


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
    suits = 1 + (index % 3 == 1) + 3 * (index % 3 == 2)
    for _ in range(100):
        code = str(GameCode(suits, rng.randrange(26**7)))
        moves = move_sequence(code, rng)
        if len(moves) >= MOVES_AT_LEAST:
            break
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
        # the echo gets the restart too: both servers are sent the same frames (only the
        # moves are timed)
        if simon:
            got = await request(bot, tally, RESTART, "state", stop)
            if got in ("game-over", "no-game"):  # a won game: start it afresh
                await request(bot, tally, bot.start, "state", stop)  # type: ignore[arg-type]
        else:
            await websocket.send(RESTART)
            await websocket.recv()
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

    def cpu_seconds(self) -> float:
        """The CPU the bots (and this process's bookkeeping) have used so far."""
        return time.process_time()

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
                    str(ROOT / "bench" / "server_load.py"),  # its --worker
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

    def cpu_seconds(self) -> float:
        """The CPU the client processes and this one have used so far."""
        return time.process_time() + sum(cpu_seconds(worker.pid) for worker in self.workers)

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
