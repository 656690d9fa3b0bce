"""Ping flood: what one flooding connection costs a real ``simon-server``, and another
client's ping round trip meanwhile.

Run from the repository root::

    python -m bench.ping_flood                      # this tree's server
    python -m bench.ping_flood --tree ../other      # another checkout's, for a before/after

The server runs as a process of its own (embedded SQLite in a temporary folder, no limit
exempt), listening on 127.0.0.1. A flooder process, from 127.0.0.2, opens a websocket and
sends masked empty ping frames as fast as the socket takes them, opening a new connection
whenever the server closes one, for ``--seconds``. Meanwhile a client from 127.0.0.3 sends
websocket pings one after the other and times each answer. Printed: the server's CPU
seconds over the flood (from ``/proc``), the flooder's connections, and the other client's
ping round trip (median and 99th percentile) with no flood and under it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import connect  # noqa: E402
from websockets.frames import Opcode  # noqa: E402

from tests.support.ports import wait_for_port  # noqa: E402
from tests.support.raw import control_frames, flood, open_websocket  # noqa: E402

FLOODER = "127.0.0.2"
OTHER = "127.0.0.3"


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


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


async def _round_trips(url: str, seconds: float) -> list[float]:
    times = []
    async with connect(url, compression=None, local_addr=(OTHER, 0)) as websocket:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            started = time.perf_counter()
            await asyncio.wait_for(await websocket.ping(), 30)
            times.append(time.perf_counter() - started)
            await asyncio.sleep(0.2)  # within a connection's budget (10 frames a second)
    return times


def _summary(times: list[float]) -> str:
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    median = statistics.median(ordered)
    return f"median {median * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms ({len(times)} pings)"


async def run(tree: Path, seconds: float, log_level: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            "PYTHONPATH": str(tree),
            "SIMON_DATA_DIR": folder,
            "SIMON_LIMITS_EXEMPT": "",
            "SIMON_LOG_LEVEL": log_level,
            "SIMON_PING_INTERVAL_SECONDS": "20",
        }
        env.pop("SIMON_DATABASE_URL", None)
        env.pop("SIMON_REDIS_URL", None)
        log = Path(folder) / "server.log"
        with log.open("wb") as out:
            server = subprocess.Popen(  # noqa: ASYNC220  (started once, before anything runs)
                [sys.executable, "-m", "server.main", "--port", "0"],
                cwd=tree, env=env, stdout=out, stderr=out,
            )  # fmt: skip
        try:
            port = await wait_for_port(server, 60)
            url = f"ws://127.0.0.1:{port}"
            quiet = await _round_trips(url, seconds)
            connections = multiprocessing.Value("i", 0)
            flooder = multiprocessing.Process(target=_flood, args=(port, seconds, connections))
            cpu_before = _cpu_seconds(server.pid)
            started = time.monotonic()
            flooder.start()
            under = await _round_trips(url, seconds)
            flooder.join()
            elapsed = time.monotonic() - started
            cpu = _cpu_seconds(server.pid) - cpu_before
        finally:
            server.terminate()
            server.wait(15)
        lines = log.read_text(errors="replace").splitlines()
    return {
        "tree": str(tree),
        "seconds": round(elapsed, 2),
        "server_cpu_seconds": round(cpu, 2),
        "flooder_connections": connections.value,
        "ping_quiet": _summary(quiet),
        "ping_under_flood": _summary(under),
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
