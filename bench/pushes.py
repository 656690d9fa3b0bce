"""What one pushed frame costs the server: a digest-sized frame to each of many websockets,
written at once by the outbox (``Outbox.push`` while the client keeps up) against a send
awaited in a task per connection (how every push went out before, and how a queued one
still does).

Run from the repository root::

    python -m bench.pushes                       # 2,000 connections, 2.4 KB frames
    python -m bench.pushes --connections 500 --rounds 3

The clients are a process of their own (they only read); the server side is this process,
and only its CPU time is counted, per frame, the median of ``--rounds``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Final

from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from server.net.connection import Outbox  # noqa: E402

#: A racer's digest: the leaders and the rows around its own, 17 rows, about 2.4 KB.
ROW = (
    '{"player":"r%05d","moves":12,"score":480,"removed":0,"finished":false,"won":false,'
    '"resigned":false,"bot":true,"left":false,"rank":%d}'
)
FRAME = (
    '{"type":"race_digest","day":"2026-03-01","suits":1,"total":5000,"playing":5000,'
    '"finished":0,"players":[' + ",".join(ROW % (n, n + 1) for n in range(17)) + "]}"
)


async def read_all(port: int, count: int) -> None:
    """The clients: ``count`` connections that read until the server closes them."""

    async def one() -> None:
        async with connect(f"ws://127.0.0.1:{port}", compression=None, max_size=None) as ws:
            async for _ in ws:
                pass

    await asyncio.gather(*(one() for _ in range(count)), return_exceptions=True)


async def measure(count: int, rounds: int) -> dict[str, float]:
    connections: list[ServerConnection] = []
    everyone = asyncio.Event()
    finished = asyncio.Event()

    async def handler(websocket: ServerConnection) -> None:
        connections.append(websocket)
        if len(connections) == count:
            everyone.set()
        await finished.wait()

    async with serve(handler, "127.0.0.1", 0, compression=None) as server:
        port = server.sockets[0].getsockname()[1]
        clients = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.pushes", "--clients", str(port), str(count), cwd=ROOT
        )
        await everyone.wait()
        await asyncio.sleep(1)
        outboxes = [Outbox(websocket) for websocket in connections]
        written, awaited = [], []
        for _ in range(rounds):
            cpu = time.process_time()
            for outbox in outboxes:
                outbox.push(FRAME)
            await asyncio.sleep(0)
            written.append((time.process_time() - cpu) / count)
            await asyncio.sleep(0.5)
            cpu = time.process_time()
            await asyncio.gather(*(websocket.send(FRAME) for websocket in connections))
            awaited.append((time.process_time() - cpu) / count)
            await asyncio.sleep(0.5)
        for outbox in outboxes:
            outbox.close()
        finished.set()
    await asyncio.wait_for(clients.wait(), 60)
    return {
        "connections": count,
        "frame_bytes": len(FRAME),
        "outbox_push_us": statistics.median(written) * 1e6,
        "awaited_send_us": statistics.median(awaited) * 1e6,
    }


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--connections 10 --rounds 1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--clients", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if args.clients:
        asyncio.run(read_all(*args.clients))
        return
    figures = asyncio.run(measure(args.connections, args.rounds))
    print(
        f"{figures['connections']:,} connections, {figures['frame_bytes']:,}-byte frames: "
        f"Outbox.push {figures['outbox_push_us']:.1f} us a frame, an awaited send in a task "
        f"{figures['awaited_send_us']:.1f} us"
    )
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
