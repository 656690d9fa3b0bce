"""Start a real server inside the test process, and talk to it.

Use it from any test (the client's end-to-end tests too)::

    from tests.support.servers import Client, running_server, server_settings

    async def test_something(backend):
        async with running_server(server_settings(backend)) as url:   # ws://127.0.0.1:PORT
            async with Client.connect(url) as alice:
                registered = await alice.request({"type": "register", "name": "alice"})

``running_server(settings, clock=..., prover=...)`` listens on a free port of 127.0.0.1
(``settings.host`` and ``settings.port`` are ignored), yields the websocket URL and stops
everything on exit. ``serving(...)`` is the same but yields the
:class:`~server.net.app.RunningServer` (``.url``, ``.http_url`` for the HTTP pages,
``.hub`` to call ``hub.days.check_day()`` after moving a ``ManualClock``).

``prover`` defaults to :func:`quick_prover` (no solver run: every candidate deal counts as
proven, par unknown); pass ``clock=fresh_clock()`` (a ManualClock on a day of its own) to
move days or to have a daily leaderboard to yourself. ``server_settings(backend)`` builds
Settings for one ``backend`` fixture value with a fresh Redis prefix per server, so servers
in one run never see each other's races unless they are given the same settings.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import socket
import subprocess
import sys
import urllib.error
import urllib.request
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from time import monotonic as real_monotonic
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from server.engine import Game
from server.net import RunningServer, run_server
from server.net.limiters import Monotonic
from server.play.clock import Clock, ManualClock
from server.play.daily.deals import Proof, Prover
from server.play.fairplay.evidence import Thresholds
from server.settings import Settings
from server.store import Store
from tests.conftest import Backend
from tests.support.ports import port_of
from tests.support.services import postgres_database_of_its_own

ROOT = Path(__file__).resolve().parents[2]

#: Fair-play thresholds that hold no result: for tests of something else (durability, ranks)
#: whose bots play the solver's line at machine speed from human accounts.
HOLD_NOTHING = Thresholds(max_agreement=2.0, min_decisions=2**31, new_account_days=0)
#: Fair-play thresholds that hold every human's daily (no one thinks 10,000 s a move): for
#: tests of held results.
HOLD_EVERYTHING = Thresholds(min_decisions=1, min_median_think=10_000.0, new_account_days=0)
#: The default thresholds, but every human's daily goes on the public board from the first
#: day: test servers' accounts are all new (tests of the new players' board set their own).
NO_NEW_PLAYERS_BOARD = Thresholds(new_account_days=0)


def fresh_clock(*, real_intervals: bool = True, rng: random.Random | None = None) -> ManualClock:
    """A manual clock at noon of a random far-future day, so a test has that day's daily,
    race and leaderboard to itself even on a database other tests share.

    By default the server's throttles and race digests keep real time and only the days
    are the test's; without ``real_intervals`` they wait until the test moves the clock.
    ``rng`` picks the day (a bench's seed: the same days, so the same dailies, each run).
    """
    day = date(2100, 1, 1) + timedelta(days=(rng or random).randrange(300_000))
    return ManualClock(datetime.combine(day, time(12), UTC), real_intervals=real_intervals)


def unique_name(prefix: str = "p") -> str:
    """A player name no other test uses (names are unique per database)."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


async def quick_prover(code: str) -> Proof:
    """Every deal with a legal first move counts as winnable, par unknown: for tests that
    play a few moves but never need a solution (a few deals in a hundred have no move)."""
    has_a_move = next(Game.from_code(code).legal_moves(), None) is not None
    return Proof(has_a_move, None)


def server_settings(backend: Backend, **overrides: Any) -> Settings:
    """Settings for a test server on ``backend``; its Redis prefix is fresh unless given."""
    values: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": 0,
        "database_url": backend.database_url,
        "redis_url": backend.redis_url,
        "redis_prefix": f"{backend.redis_prefix}-{uuid.uuid4().hex[:8]}",
        "secret": f"test-secret-{uuid.uuid4().hex}",
        "ping_interval_seconds": None,
        "log_level": "WARNING",
        # tests sign up many players from one address: tests of the limits set their own
        "limits_exempt": "127.0.0.0/8",
        "fairplay": NO_NEW_PLAYERS_BOARD,
        # a finished daily's review made ahead costs a worker process and seconds of CPU:
        # only the tests of it ask for it (tests/net/test_reviews_ahead.py)
        "review_ahead_seconds": 0,
    }
    values.update(overrides)
    return Settings(**values)


@asynccontextmanager
async def serving(
    settings: Settings,
    *,
    clock: Clock | None = None,
    prover: Prover | None = quick_prover,
    ready: bool = True,
    monotonic: Monotonic = real_monotonic,
) -> AsyncIterator[RunningServer]:
    """A real server on a free port for the duration of the block; ``ready``: once today's
    deals are proven, as a balancer waits for ``/healthz`` to say (a fresh server's first
    start; the quick prover takes milliseconds); ``monotonic``: its limits' clock."""
    settings = settings.model_copy(update={"port": 0, "host": "127.0.0.1"})
    async with run_server(settings, clock=clock, prover=prover, monotonic=monotonic) as server:
        if ready:
            await server.hub.daily.deals(server.hub.today())
        yield server


def store_of(server: RunningServer) -> Store:
    """The server's store as the database-backed :class:`~server.store.Store` it is, for
    tests that reach past the play layer's protocol (its engine, the review queue)."""
    store = server.hub.store
    assert isinstance(store, Store), store
    return store


@asynccontextmanager
async def running_server(
    settings: Settings, *, clock: Clock | None = None, prover: Prover | None = quick_prover
) -> AsyncIterator[str]:
    """A real server on a free port for the duration of the block; yields its URL."""
    async with serving(settings, clock=clock, prover=prover) as server:
        yield server.url


class Client:
    """A test client: sends dicts, matches replies by id, keeps pushed events apart."""

    def __init__(self, websocket: ClientConnection) -> None:
        self.websocket = websocket
        self.pushed: list[dict[str, Any]] = []
        self._ids = itertools.count(1)

    @classmethod
    @asynccontextmanager
    async def connect(cls, url: str, **options: Any) -> AsyncIterator[Client]:
        async with connect(url, compression=None, **options) as websocket:
            yield cls(websocket)

    def count_ids_from(self, first: int) -> None:
        """Number the next requests from ``first`` (a client that resumes a game keeps
        counting its ids across the resume, as docs/protocol.md asks)."""
        self._ids = itertools.count(first)

    async def send(self, message: dict[str, Any] | str | bytes) -> None:
        await self.websocket.send(
            message if isinstance(message, str | bytes) else json.dumps(message)
        )

    async def receive(self, timeout: float = 5.0) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(self.websocket.recv(), timeout))
        return message

    async def request(self, message: dict[str, Any], timeout: float = 10.0) -> dict[str, Any]:
        """Send ``message`` with a fresh id (unless it has one); return the first reply to it."""
        message = {"id": next(self._ids), **message}
        await self.send(message)
        return await self.reply_to(message["id"], timeout)

    async def reply_to(self, message_id: Any, timeout: float = 10.0) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while True:
                frame = await self.receive(timeout)
                if frame.get("id") == message_id:
                    return frame
                self.pushed.append(frame)

    async def pushed_event(self, predicate: Any, timeout: float = 5.0) -> dict[str, Any]:
        """The first pushed frame (already received or arriving) for which predicate is true."""
        for frame in self.pushed:
            if predicate(frame):
                self.pushed.remove(frame)
                return frame
        async with asyncio.timeout(timeout):
            while True:
                frame = await self.receive(timeout)
                if predicate(frame):
                    return frame
                self.pushed.append(frame)


def http_get(url: str) -> tuple[int, Any]:
    """A blocking GET returning (status, parsed JSON); run it with asyncio.to_thread."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def get_json(url: str) -> tuple[int, Any]:
    return await asyncio.to_thread(http_get, url)


__all__ = [
    "HOLD_EVERYTHING",
    "HOLD_NOTHING",
    "Client",
    "fresh_clock",
    "get_json",
    "quick_prover",
    "running_server",
    "server_settings",
    "serving",
    "unique_name",
]


def first_legal(code: str, actions: Sequence[str] = ()) -> str:
    """The first legal move (engine order) of the game ``code`` after ``actions``."""
    game = Game.from_code(code)
    for action in actions:
        game.play(action)
    return next(game.legal_moves()).text()


def free_port() -> int:
    """A TCP port free on 127.0.0.1 just now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def server_process(backend: Backend, data_dir: Path, **settings: str) -> Iterator[str]:
    """``python -m server.main`` as a process of its own on a free port, with the given
    ``SIMON_*`` settings; yields its websocket URL. Its database is its own (a fresh SQLite
    file in ``data_dir``, or a fresh PostgreSQL database), on ``backend``'s kind, with
    ``backend``'s bus: it proves today's deals with the real solver, and the tests of its
    worker that store today's deals with a stand-in prover (any deal with a move) share
    the worker's database, where the first deal stored is the day's."""
    with (
        database_of_its_own(backend, data_dir) as database,
        _server_process(backend, database, data_dir, settings) as url,
    ):
        yield url


@contextmanager
def database_of_its_own(backend: Backend, data_dir: Path) -> Iterator[str]:
    """A fresh database of ``backend``'s kind (an SQLite file in ``data_dir``, or a
    PostgreSQL database dropped afterwards): its URL."""
    if backend.name == "embedded":
        yield f"sqlite+aiosqlite:///{data_dir / 'simon.sqlite3'}"
        return
    with postgres_database_of_its_own(backend.database_url) as database:
        yield database


@contextmanager
def _server_process(
    backend: Backend, database: str, data_dir: Path, settings: dict[str, str]
) -> Iterator[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "SIMON_DATA_DIR": str(data_dir),
        "SIMON_DATABASE_URL": database,
        "SIMON_REDIS_PREFIX": backend.redis_prefix,
        "SIMON_DAILY_SOLVER_SECONDS": "5",
        "SIMON_RATE_LIMIT_MESSAGES": "100000",  # bot mode plays hundreds of moves quickly
        "SIMON_LIMITS_EXEMPT": "127.0.0.0/8",  # every test signs up from this machine
        "SIMON_FAIRPLAY__NEW_ACCOUNT_DAYS": "0",  # as server_settings: every account is new
        **settings,
    }
    if backend.redis_url:
        env["SIMON_REDIS_URL"] = backend.redis_url
    else:
        env.pop("SIMON_REDIS_URL", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "server.main", "--port", "0"], cwd=ROOT, env=env
    )
    try:
        yield f"ws://127.0.0.1:{port_of(process, 60)}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
