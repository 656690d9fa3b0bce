"""Fragment flood: what fragmented messages from one address cost a real ``simon-server``,
and another client's ping round trip meanwhile.

Run from the repository root::

    python -m bench.fragment_flood                      # this tree's server
    python -m bench.fragment_flood --tree ../other      # another checkout's, for a before/after

The server runs as a process of its own (:mod:`bench.solo`: embedded SQLite in a temporary
folder, no limit exempt), listening on 127.0.0.1. A flooder process, from 127.0.0.2, keeps
``--connections`` websockets open (not signed in), each sending ``--rate`` messages a
second, each message in ``--fragments`` frames of one byte (a text frame, then
continuations), and opening a new connection whenever the server closes one, for
``--seconds``. Meanwhile a client from 127.0.0.3 sends websocket pings one after the other
and times each answer. Printed: the server's CPU seconds over the flood (from ``/proc``),
the flooder's connections, refused handshakes and messages sent, and the other client's
ping round trip (median, 99th percentile and most) with no flood and under it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import select
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.solo import round_trips, solo_server, summary  # noqa: E402
from tests.support.raw import fragmented, open_websocket  # noqa: E402

FLOODER = "127.0.0.2"
PING: Final = b'{"type":"ping"}'


def _connection(port: int, deadline: float, rate: float, message: bytes, counts: Any) -> None:
    """One of the flooder's connections, again and again until ``deadline``: ``rate``
    messages a second, what the server sends read and dropped."""
    while time.monotonic() < deadline:
        try:
            sock = open_websocket("127.0.0.1", port, source=FLOODER)
        except OSError:  # refused (429) or not answered
            with counts.get_lock():
                counts[1] += 1
            time.sleep(0.05)
            continue
        with counts.get_lock():
            counts[0] += 1
        sock.settimeout(5)
        following = time.monotonic()
        try:
            with sock:
                while (now := time.monotonic()) < deadline:
                    if now >= following:
                        sock.sendall(message)
                        with counts.get_lock():
                            counts[2] += 1
                        following += 1 / rate
                    wait = max(0.0, min(following, deadline) - time.monotonic())
                    readable, _, _ = select.select([sock], [], [], wait)
                    if readable and not sock.recv(1 << 16):
                        break  # closed by the server
        except OSError:  # reset, or a send that timed out: the server is done with it
            pass


def _flood(
    port: int, seconds: float, connections: int, rate: float, fragments: int, counts: Any
) -> None:
    """The flooder: ``connections`` connections from :data:`FLOODER` at once."""
    message = fragmented(b" " * max(0, fragments - len(PING)) + PING, fragments)
    deadline = time.monotonic() + seconds
    threads = [
        threading.Thread(target=_connection, args=(port, deadline, rate, message, counts))
        for _ in range(connections)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


async def run(
    tree: Path, seconds: float, connections: int, rate: float, fragments: int, log_level: str
) -> dict[str, object]:
    async with solo_server(tree, log_level) as server:
        quiet = await round_trips(server.url, seconds)
        # connections opened, handshakes refused, messages sent
        counts = multiprocessing.Array("l", 3)
        flooder = multiprocessing.Process(
            target=_flood, args=(server.port, seconds, connections, rate, fragments, counts)
        )
        cpu_before = server.cpu_seconds()
        started = time.monotonic()
        flooder.start()
        under = await round_trips(server.url, seconds)
        await asyncio.to_thread(flooder.join)
        elapsed = time.monotonic() - started
        cpu = server.cpu_seconds() - cpu_before
        server.stop()
        lines = server.log_lines()
    return {
        "tree": str(tree),
        "seconds": round(elapsed, 2),
        "server_cpu_seconds": round(cpu, 2),
        "server_cpu_share": round(cpu / elapsed, 2),
        "flooder_connections": counts[0],
        "flooder_handshakes_refused": counts[1],
        "flooder_messages_sent": counts[2],
        "ping_quiet": summary(quiet),
        "ping_under_flood": summary(under),
        "server_log_lines": len(lines),
        # the commonest, by their text after the time and level
        "server_log_commonest": Counter(line.split(" ", 3)[-1] for line in lines).most_common(4),
    }


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--seconds 1 --fragments 100"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose server runs")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long the flood lasts")
    parser.add_argument("--connections", type=int, default=3, help="the flooder's at once")
    parser.add_argument("--rate", type=float, default=10.0, help="messages a second each")
    parser.add_argument("--fragments", type=int, default=4000, help="frames a message")
    parser.add_argument("--log-level", default="INFO", help="the server's SIMON_LOG_LEVEL")
    args = parser.parse_args()
    report = asyncio.run(
        run(
            args.tree.resolve(),
            args.seconds,
            args.connections,
            args.rate,
            args.fragments,
            args.log_level,
        )
    )
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
