"""``simon-server`` at its file-descriptor limit, as a process of its own: it raises its
soft ``RLIMIT_NOFILE`` to the hard limit at start, and when connections still exhaust the
descriptors, it logs one line (not one per failed accept, per loop turn: the finding was
140,699 lines in 30 s) and serves again once connections go."""

from __future__ import annotations

import asyncio
import contextlib
import resource
import socket
import subprocess
import time
from pathlib import Path

from tests.support.kills import ROOT, embedded_environment, free_port, healthy, server_command

SOFT, HARD = 64, 128
#: Raw TCP connections opened against it: well past what its descriptors allow.
CONNECTIONS = 300


def _low_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (SOFT, HARD))


def _limits_of(pid: int) -> tuple[int, int]:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError("no descriptor limit in /proc")


async def _until(predicate: object, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"not within {seconds:g} s: {what}"
        await asyncio.sleep(0.05)


async def test_at_the_descriptor_limit_one_log_line_and_service_resumes(tmp_path: Path) -> None:
    port = free_port()
    log_path = tmp_path / "server.log"
    env = embedded_environment(tmp_path / "data")
    env.update(
        SIMON_MAX_CONNECTIONS="100000",  # no cap below the limit: run into it
        SIMON_DESCRIPTOR_RESERVE="0",
        SIMON_ACCEPT_ERROR_LOG_SECONDS="3600",
        SIMON_LIMITS_EXEMPT="",
    )
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [*server_command(), "--port", str(port)],
            env=env,
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            preexec_fn=_low_limit,
            start_new_session=True,
        )
    sockets: list[socket.socket] = []
    try:
        await _until(lambda: healthy(port), 60, "the server answers /healthz")
        assert _limits_of(process.pid) == (HARD, HARD)

        for _ in range(CONNECTIONS):  # the kernel completes them; the server must accept
            sock = socket.socket()
            sock.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                sock.connect(("127.0.0.1", port))
            sockets.append(sock)

        def lines(text: str) -> int:
            return log_path.read_text(errors="replace").count(text)

        await _until(lambda: lines("cannot accept connections") >= 1, 20, "the limit is hit")
        for sock in sockets:
            sock.close()
        sockets.clear()
        await _until(lambda: healthy(port), 30, "the server answers again")
        assert lines("cannot accept connections") == 1, log_path.read_text()[-3000:]
        assert lines("out of system resource") == 0, log_path.read_text()[-3000:]
        assert process.poll() is None
    finally:
        for sock in sockets:
            sock.close()
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
