"""SIGTERM or SIGINT to a ``simon-server``'s whole process group stops it, at any moment.

The server runs as a real process in a session of its own; the signal goes to the whole
group, as systemd's ``KillMode=control-group`` and Ctrl+C in a terminal send it, so its
solver workers get it too. The server must exit with status 0 within the deadline (a
hung stop fails the test, it is not a speed figure), say in one line what it stopped,
print no traceback, and leave no process of its group behind. Moments: idle (today's
deals proven, the solver worker alive and waiting), while proving the day's deals, during
a race room's verdict, and while bots play flat out, where nothing acknowledged may be
lost (the durability check of tests/durability/test_kill.py, with a signal for a kill).
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from server.play.after.review import REVIEW_PARTS
from server.play.daily.deals import daily_workers
from server.play.days import PREPARE_AHEAD
from tests.conftest import Backend
from tests.support.kills import (
    ServerProcess,
    embedded_environment,
    run_kills,
    server_command,
    services_environment,
)
from tests.support.rooms import room_reply, signed_up
from tests.support.servers import Client, first_legal

#: A stop must end well within this (a deadline against a hang, not a speed target).
STOP_DEADLINE = 10.0
#: How a solver worker shows in ``ps``: spawned, it runs multiprocessing's spawn_main.
WORKER = "spawn_main"
SIGNALS = [signal.SIGTERM, signal.SIGINT]


async def until(found: Callable[[], object], what: str, seconds: float = 60.0) -> None:
    """Poll ``found()`` until it is true (a deadline against a hang)."""
    deadline = time.monotonic() + seconds
    while not found():
        assert time.monotonic() < deadline, f"no {what} within {seconds:g} s"
        await asyncio.sleep(0.02)


async def tomorrows_deals_proven(server: ServerProcess) -> None:
    """In the last hours of a UTC day a server proves tomorrow's deals too: until they are,
    it is not idle."""
    now = datetime.now(UTC)
    if now + PREPARE_AHEAD + timedelta(minutes=5) < datetime.combine(
        now.date() + timedelta(days=1), datetime.min.time(), UTC
    ):
        return
    tomorrow = now.date() + timedelta(days=1)

    def proven() -> bool:
        lines = server.log_path.read_text(errors="replace").splitlines()
        return all(
            any(f"daily {tomorrow} S{suits}: " in line and " proven" in line for line in lines)
            for suits in (1, 2, 4)
        )

    await until(proven, "tomorrow's deals proven")


def logging_server(tmp_path: Path, **settings: str) -> ServerProcess:
    """An embedded server on a fresh data folder whose log has its INFO lines."""
    env = embedded_environment(tmp_path / "data")
    env.update(SIMON_LOG_LEVEL="INFO", **settings)
    return ServerProcess(env, tmp_path / "server.log")


async def stopped_by(server: ServerProcess, signum: signal.Signals) -> str:
    """Signal the server's group; check it stopped cleanly and left nothing; its last line."""
    server.signal_group(signum)
    status, _ = await server.exited(STOP_DEADLINE)
    log = server.log_path.read_text(errors="replace")
    assert status == 0, log
    # nor a worker's KeyboardInterrupt ("Process SpawnProcess-1:" and its traceback)
    assert "Traceback" not in log and "Process Spawn" not in log, log
    lines = [line for line in log.splitlines() if f"stopped on {signum.name}: " in line]
    assert len(lines) == 1, log
    # the worker was killed by the server; multiprocessing's resource tracker leaves once
    # its parent is gone
    await until(lambda: not server.others_in_group(), "empty process group", STOP_DEADLINE)
    return lines[0]


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: s.name)
async def test_a_signal_to_the_group_stops_an_idle_server(
    signum: signal.Signals, tmp_path: Path
) -> None:
    server = logging_server(tmp_path)
    await server.start()  # today's deals proven: the worker waits for its next search
    try:
        await tomorrows_deals_proven(server)
        assert server.others_in_group(WORKER), "no solver worker to catch the signal"
        line = await stopped_by(server, signum)
        assert "no solver search under way" in line
    finally:
        server.kill()


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: s.name)
async def test_a_signal_to_the_group_stops_a_server_proving_the_days_deals(
    signum: signal.Signals, tmp_path: Path
) -> None:
    # a search may run long: the stop must not wait for it
    server = logging_server(tmp_path, SIMON_DAILY_SOLVER_SECONDS="120")
    await server.start(ready=False)
    try:
        # its workers start with it: wait for the searches themselves (a 120 s budget)
        await until(lambda: ": proving [" in server.log_tail(), "the proofs begun")
        # in them, well before their end (the three take about half a second, compiled)
        await asyncio.sleep(0.1)
        line = await stopped_by(server, signum)
        assert "cut short (daily deals)" in line
    finally:
        server.kill()


async def test_sigterm_to_the_group_stops_a_server_during_a_race_rooms_verdict(
    tmp_path: Path,
) -> None:
    server = logging_server(tmp_path)
    await server.start()
    try:
        async with Client.connect(server.url) as ann, Client.connect(server.url) as bob:
            await signed_up(ann, "ann")
            await signed_up(bob, "bob")
            code = (await room_reply(ann, {"type": "race_new", "suits": 4}))["code"]
            await room_reply(bob, {"type": "race_join", "code": code})
            # the start draws the room's deal: the verdicts' worker starts for it, after the
            # daily's (one per core, to 3) and the reviews' (once today's deals are proven)
            running = daily_workers() + REVIEW_PARTS
            await until(lambda: len(server.others_in_group(WORKER)) >= running, "the workers")
            daily = len(server.others_in_group(WORKER))
            await ann.send({"id": "go", "type": "race_start", "code": code})
            await until(lambda: len(server.others_in_group(WORKER)) > daily, "verdicts' worker")
            await stopped_by(server, signal.SIGTERM)
    finally:
        server.kill()


async def test_sigterm_to_the_group_while_bots_play_loses_no_acknowledged_action(
    backend: Backend, tmp_path: Path
) -> None:
    if backend.name == "embedded":
        env = embedded_environment(tmp_path / "data")
    else:
        assert backend.redis_url is not None
        prefix = f"{backend.redis_prefix}-stop-{uuid.uuid4().hex[:8]}"
        env = services_environment(backend.database_url, backend.redis_url, prefix)
    server = ServerProcess(env, tmp_path / "server.log")
    statuses: list[int] = []

    async def halt(server: ServerProcess) -> None:
        server.signal_group(signal.SIGTERM)
        status, _ = await server.exited(STOP_DEADLINE)
        statuses.append(status)

    report = await run_kills(server, mode=backend.name, kills=2, bots=4, halt=halt)
    log = server.log_path.read_text(errors="replace")
    assert statuses == [0, 0], log
    assert "Traceback" not in log, log
    assert not report.problems, "\n".join([report.summary(), *report.problems, log[-3000:]])
    assert report.acknowledged > 0 and report.lost == 0, report.summary()


async def test_sigterm_during_a_review_cuts_it_short_and_answers_it(tmp_path: Path) -> None:
    # a review may search long: the stop must not wait for it, and its asker hears why
    server = logging_server(tmp_path, SIMON_REVIEW_SECONDS="120")
    await server.start()
    try:
        async with Client.connect(server.url) as ann:
            await signed_up(ann, "ann")
            # a deal with 20 moves to make (some random ones get stuck sooner)
            start = {"type": "start", "mode": "practice", "code": "SS1-S4-QWERTYU"}
            state = (await ann.request(start))["state"]
            actions: list[str] = []
            for _ in range(20):
                actions.append(first_legal(state["code"], actions))
                assert (await ann.request({"type": "move", "move": actions[-1]}))["type"] == "moved"
            assert (await ann.request({"type": "resign"}))["state"]["finished"]
            await ann.send({"id": "review", "type": "review", "game": state["game"]})
            # being made (the review workers run from the server's start, today's deals proven)
            await ann.pushed_event(lambda frame: frame.get("type") == "review_progress", 60)
            line = await stopped_by(server, signal.SIGTERM)
            answer = await ann.reply_to("review")
        assert answer["type"] == "error" and answer["code"] == "unavailable", answer
        assert "cut short (game reviews)" in line, line
    finally:
        server.kill()


def _catches(pid: int, signum: signal.Signals) -> bool:
    """Whether process ``pid`` has a handler of its own for ``signum`` (``SigCgt``)."""
    status = Path(f"/proc/{pid}/status").read_text()
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) & 1 << (signum - 1))


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: s.name)
async def test_a_signal_while_the_server_loads_stops_it_quietly(
    signum: signal.Signals, tmp_path: Path
) -> None:
    # before its event loop takes the signals: while Python imports it, reads its settings
    env = embedded_environment(tmp_path / "data")
    for delay in (0.0, 0.1, 0.3):  # from the moment its entry point takes the signals on
        process = subprocess.Popen(
            [*server_command(), "--port", "0"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            # Python's own start-up comes first (50 ms here, far more on a busy machine),
            # with the signals' default actions: the entry point is what this test is about.
            # It sets SIGTERM's handler after SIGINT's, and nothing before it catches
            # SIGTERM (Python's own start-up catches SIGINT)
            pid = process.pid
            await until(lambda: _catches(pid, signal.SIGTERM), "the entry point")  # noqa: B023
            await asyncio.sleep(delay)
            process.send_signal(signum)
            _, errors = await asyncio.to_thread(process.communicate, timeout=STOP_DEADLINE)
        finally:
            process.kill()
        assert process.returncode == 0, (delay, errors.decode(errors="replace"))
        assert b"Traceback" not in errors, errors.decode(errors="replace")
        if delay == 0.0:  # caught by the entry point, long before the server listens
            assert b"listening on" not in errors, errors.decode(errors="replace")
