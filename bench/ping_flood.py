"""Ping flood: what one flooding connection costs a real ``simon-server``, and another
client's ping round trip meanwhile.

Run from the repository root::

    python -m bench.ping_flood                      # this tree's server
    python -m bench.ping_flood --tree ../other      # another checkout's, for a before/after

The server runs as a process of its own (:mod:`bench.solo`: embedded SQLite in a temporary
folder, no limit exempt), listening on 127.0.0.1. A flooder process, from 127.0.0.2, opens
a websocket and sends masked empty ping frames as fast as the socket takes them, opening a
new connection whenever the server closes one, for ``--seconds``. Meanwhile a client from
127.0.0.3 sends websocket pings one after the other and times each answer. Printed: the
server's CPU seconds over the flood (from ``/proc``), the flooder's connections, and the
other client's ping round trip (median, 99th percentile and most) with no flood and under
it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from websockets.frames import Opcode  # noqa: E402

from bench.solo import round_trips, solo_server, summary  # noqa: E402
from tests.support.raw import control_frames, flood, open_websocket  # noqa: E402

FLOODER = "127.0.0.2"


def _flood(port: int, seconds: float, connections: Any) -> None:
    """Flood from :data:`FLOODER` until ``seconds`` pass, one connection at a time."""
    chunk = control_frames(Opcode.PING, 1000)
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            sock = open_websocket("127.0.0.1", port, source=FLOODER)
        except OSError:
            time.sleep(0.01)
            continue
        connections.value += 1
        flood(sock, chunk, seconds=left)


async def run(tree: Path, seconds: float, log_level: str) -> dict[str, object]:
    async with solo_server(tree, log_level) as server:
        quiet = await round_trips(server.url, seconds)
        connections = multiprocessing.Value("i", 0)
        flooder = multiprocessing.Process(target=_flood, args=(server.port, seconds, connections))
        cpu_before = server.cpu_seconds()
        started = time.monotonic()
        flooder.start()
        under = await round_trips(server.url, seconds)
        flooder.join()
        elapsed = time.monotonic() - started
        cpu = server.cpu_seconds() - cpu_before
        server.stop()
        lines = server.log_lines()
    return {
        "tree": str(tree),
        "seconds": round(elapsed, 2),
        "server_cpu_seconds": round(cpu, 2),
        "flooder_connections": connections.value,
        "ping_quiet": summary(quiet),
        "ping_under_flood": summary(under),
        "server_log_lines": len(lines),
        # the commonest, by their text after the time and level
        "server_log_commonest": Counter(line.split(" ", 3)[-1] for line in lines).most_common(4),
    }


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--seconds 1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose server runs")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long the flood lasts")
    parser.add_argument("--log-level", default="INFO", help="the server's SIMON_LOG_LEVEL")
    args = parser.parse_args()
    report = asyncio.run(run(args.tree.resolve(), args.seconds, args.log_level))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
