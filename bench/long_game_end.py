"""A long game's end: how long another client's ping waits while a real ``simon-server``
screens a daily of thousands of actions for fair play.

Run from the repository root::

    python -m bench.long_game_end                          # this tree's server, 5,000 actions
    python -m bench.long_game_end --actions 100000         # far past the default cap
    python -m bench.long_game_end --tree ../other          # another checkout's, for a before/after

The server runs as a process of its own (:mod:`bench.solo`: embedded SQLite in a temporary
folder, its real solver workers, limits exempt for loopback and its cap of actions set above
``--actions``).
A player from 127.0.0.2 starts today's 1-suit daily and plays ``--actions`` actions on it
over the socket: a move and its way back (a back-and-forth pair of legal moves, the cheapest
long game), pipelined a batch at a time (another player's short daily is ended first, so that the
server's fair-play worker has started). Meanwhile a client from 127.0.0.3 sends websocket
pings one after the other (every 10 ms) and times each answer. The player then resigns:
the server screens the game (its fair-play evidence reads the whole log) before it answers.
Printed: the resignation's round trip, and the other client's ping round trip (median,
99th percentile and most) before the end and while it is under way.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import ClientConnection, connect  # noqa: E402

from bench.solo import OTHER, solo_server, summary  # noqa: E402
from server.engine import Game  # noqa: E402

PLAYER = "127.0.0.2"
#: Actions sent before their replies are read.
BATCH: Final = 100
#: Between the other client's pings (seconds).
PING_EVERY: Final = 0.01
#: Of quiet pings before the end, for the baseline (seconds).
QUIET_SECONDS: Final = 1.0


def back_and_forth(code: str) -> tuple[str, str] | None:
    """Two legal moves of the deal ``code`` of which the second undoes the first (the same
    cards back), so that they can be played one after the other for ever; None if none."""
    start = Game.from_code(code)
    for move in start.legal_moves():
        after = start.copy()
        after.push(move)
        for back in after.legal_moves():
            again = after.copy()
            again.push(back)
            if again.position_key() == start.position_key():
                return move.text(), back.text()
    return None


async def request(websocket: ClientConnection, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message`` (with its ``id``); its reply (pushed frames are passed over)."""
    await websocket.send(json.dumps(message))
    while True:
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(websocket.recv(), 120))
        if frame.get("id") == message["id"]:
            return frame


def first_move(code: str) -> str:
    return next(Game.from_code(code).legal_moves()).text()


async def start_daily(websocket: ClientConnection, name: str) -> dict[str, Any]:
    """Today's 1-suit daily of a new account, once the server has proven today's deals."""
    await request(websocket, {"type": "register", "name": f"{name}{os.getpid()}", "id": "reg"})
    for attempt in range(600):
        reply = await request(websocket, {"type": "start", "suits": 1, "id": f"start{attempt}"})
        if reply["type"] == "state":
            state: dict[str, Any] = reply["state"]
            return state
        if reply.get("code") != "proving":
            raise RuntimeError(f"start refused: {reply}")
        await asyncio.sleep(0.5)
    raise RuntimeError("today's deals were never proven")


async def play_long(websocket: ClientConnection, code: str, actions: int) -> None:
    """``actions`` actions on the game: a back-and-forth pair of moves, or a move and undo."""
    pair = back_and_forth(code)
    move = first_move(code)
    messages: list[dict[str, Any]] = []
    for n in range(actions):
        if pair is not None:
            messages.append({"type": "move", "move": pair[n % 2], "id": n})
        else:
            messages.append(
                {"type": "undo", "id": n} if n % 2 else {"type": "move", "move": move, "id": n}
            )
    for first in range(0, actions, BATCH):
        batch = messages[first : first + BATCH]
        for message in batch:
            await websocket.send(json.dumps(message))
        waiting = {message["id"] for message in batch}
        while waiting:
            frame = json.loads(await asyncio.wait_for(websocket.recv(), 120))
            if frame.get("id") in waiting:
                if frame["type"] == "error":
                    raise RuntimeError(f"action refused: {frame}")
                waiting.discard(frame["id"])


async def pinging(
    websocket: ClientConnection, times: list[tuple[float, float]], stop: asyncio.Event
) -> None:
    """Ping until ``stop``; each answer as (sent at, round trip), by the monotonic clock."""
    while not stop.is_set():
        sent = time.perf_counter()
        await asyncio.wait_for(await websocket.ping(), 120)
        times.append((sent, time.perf_counter() - sent))
        await asyncio.sleep(PING_EVERY)


async def run(tree: Path, actions: int, log_level: str) -> dict[str, object]:
    settings = {
        "SIMON_LIMITS_EXEMPT": "127.0.0.0/8",
        "SIMON_RATE_LIMIT_MESSAGES": "100000000",
        "SIMON_MAX_GAME_ACTIONS": str(actions + 10),
        # the player's connection waits, unsigned, while another warms the server up
        "SIMON_UNAUTHENTICATED_GRACE_SECONDS": "600",
    }
    async with solo_server(tree, log_level, settings) as server:
        async with (
            connect(server.url, compression=None, local_addr=(PLAYER, 0), max_size=None) as player,
            connect(server.url, compression=None, local_addr=(OTHER, 0)) as other,
        ):
            name = f"other{os.getpid()}"
            await request(other, {"type": "register", "name": name, "id": "reg"})
            # a short daily ended first: the fair-play worker is started by then
            async with connect(server.url, compression=None, local_addr=(OTHER, 0)) as warming:
                warm = await start_daily(warming, "warm")
                move = first_move(warm["code"])
                await request(warming, {"type": "move", "move": move, "id": 1})
                await request(warming, {"type": "resign", "id": "resign"})
            state = await start_daily(player, "long")
            built = time.perf_counter()
            await play_long(player, state["code"], actions)
            built = time.perf_counter() - built
            times: list[tuple[float, float]] = []
            stop = asyncio.Event()
            pings = asyncio.create_task(pinging(other, times, stop))
            await asyncio.sleep(QUIET_SECONDS)
            ended = time.perf_counter()
            resigned = await request(player, {"type": "resign", "id": "resign"})
            ended_after = time.perf_counter() - ended
            await asyncio.sleep(0.2)
            stop.set()
            await pings
        if resigned["type"] != "state" or not resigned["state"]["finished"]:
            raise RuntimeError(f"resign refused: {resigned}")
        server.stop()
        lines = server.log_lines()
    quiet = [trip for sent, trip in times if sent + trip < ended]
    during = [trip for sent, trip in times if sent + trip >= ended and sent <= ended + ended_after]
    return {
        "tree": str(tree),
        "actions": actions,
        "seq": resigned["state"]["seq"],
        "build_seconds": round(built, 2),
        "resign_round_trip_ms": round(ended_after * 1000, 1),
        "ping_before_the_end": summary(quiet),
        "ping_during_the_end": summary(during),
        "server_log_lines": len(lines),
    }


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--actions 40"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose server runs")
    parser.add_argument("--actions", type=int, default=5_000, help="the game's actions")
    parser.add_argument("--log-level", default="INFO", help="the server's SIMON_LOG_LEVEL")
    args = parser.parse_args()
    report = asyncio.run(run(args.tree.resolve(), args.actions, args.log_level))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
