"""One real ``simon-server`` on its own, for the benches that attack it from loopback
(:mod:`bench.ping_flood`, :mod:`bench.fragment_flood`, :mod:`bench.replay_page`,
:mod:`bench.long_game_end`): the server of a tree started, what it costs read from
``/proc``, and another client's websocket ping round trip timed and summed up.

The server (:func:`solo_server`) is ``python -m server.main --port 0`` of the tree, run as
a process of its own on embedded SQLite in a data folder of its own (no database or Redis
URL of the environment's), no address exempt from the limits unless the bench says so,
listening on 127.0.0.1 and logging to a file in that folder. The other client, from
:data:`OTHER`, is the one whose pings tell how the server answers everyone else meanwhile.

No bench of its own: the benches above start it.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from websockets.asyncio.client import connect

from bench.server_load_servers import cpu_seconds, rss_bytes
from tests.support.ports import wait_for_port

#: The other client's address: the one whose ping round trips are timed.
OTHER: Final = "127.0.0.3"


@dataclass(frozen=True, slots=True)
class Solo:
    """A running server: its process, the port it listens on and its log file."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def cpu_seconds(self) -> float:
        """The server's CPU seconds so far (user and system)."""
        return cpu_seconds(self.process.pid)

    def rss_mib(self) -> float:
        """The server's resident memory now, in MiB (to a tenth)."""
        return round(rss_bytes(self.process.pid) / (1 << 20), 1)

    def stop(self) -> None:
        """Stop the server (SIGTERM) and wait for it to exit (once stopped, nothing)."""
        _stop(self.process)

    def log_lines(self) -> list[str]:
        """The lines of the server's log so far (all of them once :meth:`stop` returned)."""
        return self.log.read_text(errors="replace").splitlines()


@asynccontextmanager
async def solo_server(
    tree: Path,
    log_level: str,
    env: Mapping[str, str] | None = None,
    folder: Path | None = None,
) -> AsyncIterator[Solo]:
    """The server of ``tree`` running, until the block ends (then it is stopped).

    ``env`` adds to or overrides its settings (``SIMON_LIMITS_EXEMPT`` is empty, the ping
    interval 20 s). Its data and its log (``server.log``) are in ``folder``, the caller's
    to write a database into beforehand and to remove; without one, in a temporary folder
    of its own, removed once the server has stopped (so a bench reads the log before the
    block ends: :meth:`Solo.stop`, then :meth:`Solo.log_lines`)."""
    place = tempfile.TemporaryDirectory() if folder is None else nullcontext(str(folder))
    with place as named:
        data = Path(named)
        settings = {
            **os.environ,
            "PYTHONPATH": str(tree),
            "SIMON_DATA_DIR": str(data),
            "SIMON_LIMITS_EXEMPT": "",
            "SIMON_LOG_LEVEL": log_level,
            "SIMON_PING_INTERVAL_SECONDS": "20",
            **(env or {}),
        }
        settings.pop("SIMON_DATABASE_URL", None)
        settings.pop("SIMON_REDIS_URL", None)
        log = data / "server.log"
        with log.open("wb") as out:
            process = subprocess.Popen(  # noqa: ASYNC220  (started once, before anything runs)
                [sys.executable, "-m", "server.main", "--port", "0"],
                cwd=tree, env=settings, stdout=out, stderr=out,
            )  # fmt: skip
        try:
            yield Solo(process, await wait_for_port(process, 60), log)
        finally:
            _stop(process)


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    process.wait(15)


async def round_trips(
    url: str, seconds: float, source: str = OTHER, answer_within: float = 30.0
) -> list[float]:
    """Websocket pings from ``source`` one after the other for ``seconds``, each 0.2 s
    after the last one's answer: each one's round trip (seconds). A ping not answered
    within ``answer_within`` seconds fails the bench (TimeoutError)."""
    times = []
    async with connect(url, compression=None, local_addr=(source, 0)) as websocket:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            started = time.perf_counter()
            await asyncio.wait_for(await websocket.ping(), answer_within)
            times.append(time.perf_counter() - started)
            await asyncio.sleep(0.2)  # within a connection's budget (10 frames a second)
    return times


def summary(times: list[float]) -> str:
    """Round trips (seconds) in a line: median, 99th percentile, most and how many."""
    if not times:
        return "no pings"
    ordered = sorted(times)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    median = statistics.median(ordered)
    return (
        f"median {median * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms, most "
        f"{ordered[-1] * 1000:.1f} ms ({len(times)} pings)"
    )


#: No bench of its own: the attack benches above start it.
SMOKE: Final = None
