"""Benchmark of a player's way in and a game's start: the server's CPU for each, in one run.

Run from the repository root::

    python -m bench.starts                       # both modes, 300 of each kind, 2 rounds
    python -m bench.starts --mode embedded --starts 100 --rounds 1   # a quick look
    python -m bench.starts --before ../main      # also the server of another checkout

What is measured
----------------
Our server runs in a subprocess of its own (as in :mod:`bench.server_load`, on a fresh SQLite
file, or a fresh PostgreSQL database and Redis key prefix), and one client asks, one request
after another, ``--starts`` times each:

- ``practice``: a practice game of a random 4-suit deal (the server draws a deal with a
  legal move);
- ``practice-code``: a practice game of a given code;
- ``resume``: the last of those games again, by id;
- ``register``: a new account on each of ``--starts`` connections (opened before);
- ``daily-new``: today's 1-suit daily, a first attempt by each of those accounts (one
  attempt a day);
- ``daily-again``: the same again on each of those connections (the attempt under way);
- ``sign-in``: each of those accounts signs in with its token on a new connection (opened
  before).

The figure is the server process's CPU (user + system, from ``/proc``, the store's own
threads included) over the requests of a kind, per request: with the database or Redis
elsewhere their CPU is not in it. Each figure is the least of ``--rounds`` rounds; each
round starts every server afresh. With ``--before DIR`` the server of another source tree
runs in each round beside ours, and each kind's ratio (ours / before) is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import tempfile
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from functools import partial
from pathlib import Path
from typing import Any, Final

from websockets.asyncio.client import ClientConnection, connect

from bench.server_load_servers import (
    MAX_SIZE,
    Backend,
    Variant,
    cpu_seconds,
    start_server,
    stop_server,
)
from tests.support.kills import healthy
from tests.support.services import POSTGRES_ADMIN_DSN, REDIS_URL

KINDS: Final = (
    "practice",
    "practice-code",
    "resume",
    "register",
    "daily-new",
    "daily-again",
    "sign-in",
)
#: The deal of ``practice-code`` (any code that is not today's daily).
CODE: Final = "SS1-S4-QWERTYU"
SMOKE: Final = "--starts 3 --rounds 1 --mode embedded"

_ids = itertools.count(1)


async def ask(websocket: ClientConnection, message: dict[str, Any], want: str) -> dict[str, Any]:
    """Send ``message`` with a new id; its reply (pushes on the way, race news, are passed
    over), which must be of type ``want``."""
    message_id = next(_ids)
    await websocket.send(json.dumps({**message, "id": message_id}))
    while True:
        reply: dict[str, Any] = json.loads(await websocket.recv())
        if reply.get("id") != message_id:
            continue
        if reply["type"] != want:
            raise SystemExit(f"{message['type']} was answered {reply}")
        return reply


async def timed(pid: int, requests: list[Callable[[], Awaitable[object]]]) -> float:
    """The server's CPU per request, in milliseconds, over ``requests`` made one by one."""
    before = cpu_seconds(pid)
    for request in requests:
        await request()
    return (cpu_seconds(pid) - before) / len(requests) * 1000


async def daily_ready(port: int) -> None:
    """Wait for today's deals: a fresh server proves them first (at once here)."""
    for _ in range(100):
        if await asyncio.to_thread(healthy, port):  # "daily": "proving" until then
            return
        await asyncio.sleep(0.1)
    raise SystemExit("today's deals were never ready")


async def measure_server(pid: int, port: int, starts: int) -> dict[str, float]:
    """Each kind's server CPU per request, in milliseconds."""
    url = f"ws://127.0.0.1:{port}"
    await daily_ready(port)
    figures: dict[str, float] = {}
    async with AsyncExitStack() as stack:

        async def opened() -> ClientConnection:
            return await stack.enter_async_context(
                connect(url, max_size=MAX_SIZE, compression=None, ping_interval=None)
            )

        player = await opened()
        await ask(player, {"type": "register", "name": "starter"}, "registered")
        practice = {"type": "start", "mode": "practice", "suits": 4}
        given = {"type": "start", "mode": "practice", "code": CODE}
        for kind, message in (("practice", practice), ("practice-code", given)):
            await ask(player, message, "state")  # warm up the path
            figures[kind] = await timed(pid, [partial(ask, player, message, "state")] * starts)
        game = (await ask(player, given, "state"))["state"]["game"]
        resume = {"type": "resume", "game": game}
        figures["resume"] = await timed(pid, [partial(ask, player, resume, "state")] * starts)

        racers = [await opened() for _ in range(starts)]
        tokens: list[str] = []

        async def register(racer: ClientConnection, name: str) -> None:
            made = await ask(racer, {"type": "register", "name": name}, "registered")
            tokens.append(made["token"])

        figures["register"] = await timed(
            pid, [partial(register, racer, f"racer{n}") for n, racer in enumerate(racers)]
        )
        daily = {"type": "start", "mode": "daily", "suits": 1}
        for kind in ("daily-new", "daily-again"):
            figures[kind] = await timed(
                pid,
                [partial(ask, racer, daily, "state") for racer in racers],
            )
        returning = [await opened() for _ in range(starts)]
        figures["sign-in"] = await timed(
            pid,
            [
                partial(ask, back, {"type": "auth", "token": token}, "authenticated")
                for back, token in zip(returning, tokens, strict=True)
            ],
        )
    return figures


async def measure(variant: Variant, backend: Backend, starts: int) -> dict[str, float]:
    port = 20000 + random.randrange(20000)
    with tempfile.TemporaryDirectory() as data:
        await backend.open()
        try:
            process = start_server(variant, port, data, backend)
            try:
                return await measure_server(process.pid, port, starts)
            finally:
                stop_server(process)
        finally:
            await backend.close()


async def run(modes: list[str], starts: int, rounds: int, before: Path | None) -> None:
    servers = [Variant("simon")] + ([Variant("before", source=before)] if before else [])
    for mode in modes:
        backend = (
            Backend(admin=POSTGRES_ADMIN_DSN, redis_url=REDIS_URL)
            if mode == "services"
            else Backend()
        )
        rounds_told = f"{rounds} round" + ("s" if rounds > 1 else "")
        print(f"{backend.label}: {starts} of each kind, least of {rounds_told}")
        least: dict[str, dict[str, float]] = {server.name: {} for server in servers}
        for _ in range(rounds):
            for server in servers:
                figures = await measure(server, backend, starts)
                for kind, value in figures.items():
                    least[server.name][kind] = min(least[server.name].get(kind, value), value)
        header = "  ".join(f"{server.name:>8}" for server in servers)
        print(f"  {'server CPU per request, ms':<28}{header}" + ("     ratio" if before else ""))
        for kind in KINDS:
            values = [least[server.name][kind] for server in servers]
            row = "  ".join(f"{value:8.2f}" for value in values)
            ratio = f"  {values[0] / values[1]:7.2f}x" if before and values[1] else ""
            print(f"  {kind:<28}{row}{ratio}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mode",
        choices=("embedded", "services", "both"),
        default="both",
        help="embedded: SQLite + in-process bus; services: PostgreSQL "
        f"({POSTGRES_ADMIN_DSN}) + Redis ({REDIS_URL}); default both",
    )
    parser.add_argument("--starts", type=int, default=300, help="requests of each kind")
    parser.add_argument("--rounds", type=int, default=2, help="rounds; each figure is the least")
    parser.add_argument(
        "--before",
        type=Path,
        metavar="DIR",
        help="also run the server of the source tree DIR (another checkout), side by side",
    )
    args = parser.parse_args()
    if args.starts < 1 or args.rounds < 1:
        parser.error("--starts and --rounds must be at least 1")
    modes = ["embedded", "services"] if args.mode == "both" else [args.mode]
    before = args.before.resolve() if args.before else None
    asyncio.run(run(modes, args.starts, args.rounds, before))


if __name__ == "__main__":
    main()
