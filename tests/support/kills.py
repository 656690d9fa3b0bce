"""Kill ``simon-server`` with SIGKILL while bots play, restart it, and check nothing acknowledged
was lost. Used by tests/durability/test_kill.py (a few kills) and ``python -m bench.kill``.

A :class:`ServerProcess` runs ``simon-server`` (the console script, else ``python -m
server.entry``) on a data folder (embedded mode) or on PostgreSQL and Redis (services mode)
that outlive the process. :class:`Bot` players register, start games (one a daily) and
play legal actions as fast as the answers come, each keeping a
:class:`~tests.support.ledger.Ledger` per game. :func:`run_kills` kills the process at a
random moment while the bots play, restarts it on the same data, and has each bot
authenticate, ``resume`` every game it played and compare: ``state.seq`` at least the last
acknowledged seq, and the board, moves and score its own engine reached. The action in
flight at the kill is sent again with the same id: it must be answered and applied once
(whether or not it was stored before the kill).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.support.ledger import Ledger, Pending
from tests.support.ports import wait_for_port

ROOT = Path(__file__).resolve().parents[2]
#: How long one reply may take (a restarted server may be warming up).
REPLY_SECONDS = 30.0
START_SECONDS = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def server_command() -> list[str]:
    """The ``simon-server`` console script next to this Python, else what it runs."""
    script = Path(sys.executable).with_name("simon-server")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "server.entry"]


def server_environment(**values: str) -> dict[str, str]:
    """The environment of a server process: ours minus every SIMON_* setting, plus
    ``values``, a fresh secret, quick daily proofs and no message budget to speak of."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SIMON_")}
    env["PYTHONPATH"] = str(ROOT)
    env.update(
        SIMON_SECRET=f"kill-secret-{uuid.uuid4().hex}",
        SIMON_DAILY_SOLVER_SECONDS="2",
        SIMON_LOG_LEVEL="WARNING",
        SIMON_RATE_LIMIT_MESSAGES="1000000",  # the bots play flat out
        SIMON_LIMITS_EXEMPT="127.0.0.0/8",  # and many of them sign up from one address
        SIMON_FAIRPLAY__NEW_ACCOUNT_DAYS="0",  # every account is new: the public board at once
    )
    env.update(values)
    return env


def embedded_environment(data_dir: Path) -> dict[str, str]:
    return server_environment(SIMON_DATA_DIR=str(data_dir))


def services_environment(database_url: str, redis_url: str, redis_prefix: str) -> dict[str, str]:
    return server_environment(
        SIMON_DATABASE_URL=database_url,
        SIMON_REDIS_URL=redis_url,
        SIMON_REDIS_PREFIX=redis_prefix,
    )


class ServerProcess:
    """``simon-server`` as a process of its own (and its own process group)."""

    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self.env = env
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.starts = 0

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    async def start(self, *, ready: bool = True) -> None:
        """Start it and wait until ``/healthz`` answers 200 with today's deals proven, or
        with ``ready`` false until it answers at all (it serves while proving them)."""
        assert self.process is None or self.process.poll() is not None
        self.starts += 1
        with self.log_path.open("ab") as log:
            log.write(f"--- start {self.starts}\n".encode())
            log.flush()
            self.process = subprocess.Popen(
                [*server_command(), "--port", "0"],  # the port it gets is read once it listens
                env=self.env,
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,  # its solver worker goes down with it
            )
        try:
            self.port = await wait_for_port(self.process, START_SECONDS)
        except RuntimeError as error:
            self.kill()
            raise RuntimeError(
                f"simon-server did not start ({error}):\n{self.log_tail()}"
            ) from None
        deadline = time.monotonic() + START_SECONDS
        while not await asyncio.to_thread(healthy, self.port, ready):
            if self.process.poll() is not None:
                raise RuntimeError(f"simon-server exited at start:\n{self.log_tail()}")
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"simon-server did not start:\n{self.log_tail()}")
            await asyncio.sleep(0.05)

    def kill(self) -> None:
        """``kill -9`` the server, then whatever it started (its solver worker)."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGKILL)
        process.wait()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)

    def signal_group(self, signum: signal.Signals) -> None:
        """Send ``signum`` to its whole process group (as systemd and Ctrl+C do)."""
        assert self.process is not None
        os.killpg(self.process.pid, signum)

    async def exited(self, within: float) -> tuple[int, float]:
        """Wait for it to exit: its status and the seconds it took. Killed (with its group)
        and AssertionError if it is still running after ``within`` seconds."""
        process = self.process
        assert process is not None
        began = time.monotonic()
        try:
            status = await asyncio.to_thread(process.wait, within)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(
                f"simon-server still running {within:g} s after the signal:\n{self.log_tail()}"
            ) from None
        return status, time.monotonic() - began

    def others_in_group(self, command: str = "") -> list[int]:
        """The live processes of its process group other than itself (its solver workers,
        multiprocessing's resource tracker) whose command line has ``command``, from /proc
        (zombies, left to an init that may not reap them, are not counted)."""
        assert self.process is not None
        pids = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue  # gone meanwhile
            state, group = fields[0], int(fields[2])
            pid = int(stat.parent.name)
            if group != self.process.pid or pid == self.process.pid or state == "Z":
                continue
            try:
                line = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if command in line:
                pids.append(pid)
        return pids

    async def stop(self) -> None:
        """Stop it gracefully (SIGTERM), or kill it if it does not stop."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            await asyncio.to_thread(process.wait, 30)
        self.kill()


def healthy(port: int, ready: bool = True) -> bool:
    """Whether ``/healthz`` answers 200 with today's deals proven (``"daily": "ready"``),
    or, unless ``ready``, answers at all (it answers 200 while proving them, 503 while its
    database does not answer)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
            status: int = response.status
            if not ready:
                return True
            return status == 200 and json.loads(response.read()).get("daily") == "ready"
    except urllib.error.HTTPError:
        return not ready
    except (OSError, urllib.error.URLError):
        return False


class BotFailure(Exception):
    """A bot got an answer that breaks the contract (not a connection going down)."""


@dataclass
class Bot:
    name: str
    rng: random.Random
    daily: bool = False
    token: str | None = None
    ledgers: list[Ledger] = field(default_factory=list)
    current: Ledger | None = None
    acknowledged: int = 0
    #: Since the last (re)start: recovered, and acted at least once after.
    recovered: asyncio.Event = field(default_factory=asyncio.Event)
    playing: asyncio.Event = field(default_factory=asyncio.Event)
    #: The last message sent (for reports).
    sent: list[dict[str, Any]] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def next_id(self) -> str:
        return f"{self.name}-{next(self._ids)}"

    # -- one connection's life ---------------------------------------------------

    async def run(self, url: str, report: Report) -> None:
        """Connect, sign in, check every game against the ledgers, then play until the
        connection goes down (the server is killed). A game that breaks the contract is
        reported and let go; the bot then waits for the next restart."""
        self.recovered.clear()
        self.playing.clear()
        try:
            async with connect(url, compression=None, open_timeout=REPLY_SECONDS) as ws:
                await self._sign_in(ws)
                await self._recover(ws, report)
                self.recovered.set()
                try:
                    await self._play(ws)
                except BotFailure:
                    self._forget(self.current)  # and wait for the next restart
                    raise
        except (ConnectionClosed, OSError):
            pass  # the server went down: expected
        except BotFailure as failure:
            report.problems.append(f"{self.name}: {failure}")
        finally:
            self.recovered.set()
            self.playing.set()

    async def _sign_in(self, ws: ClientConnection) -> None:
        if self.token is None:
            (reply,) = await self._call(ws, {"type": "register", "name": self.name})
            self._expect(reply, "registered")
            self.token = reply["token"]
        else:
            (reply,) = await self._call(ws, {"type": "auth", "token": self.token})
            self._expect(reply, "authenticated")

    async def _recover(self, ws: ClientConnection, report: Report) -> None:
        """After a restart: resume every game and compare it with what was acknowledged;
        send the action that was in flight again, with its id."""
        # Finished games are checked after one restart and then let go, but for a few.
        finished = [ledger for ledger in self.ledgers if ledger.finished and ledger.checked]
        for ledger in finished[:-2]:
            self.ledgers.remove(ledger)
        games = [ledger for ledger in self.ledgers if ledger is not self.current]
        if self.current is not None:
            games.append(self.current)  # last: the session keeps it to play on
        for ledger in games:
            try:
                await self._recover_game(ws, ledger, report)
            except BotFailure as failure:
                report.problems.append(f"{self.name}: {failure}")
                self._forget(ledger)

    async def _recover_game(self, ws: ClientConnection, ledger: Ledger, report: Report) -> None:
        resume = {"type": "resume", "game": ledger.game_id, "seq": ledger.seq}
        replies = await self._call(ws, resume)
        state = self._expect(replies[0], "state")["state"]
        report.games_checked += 1
        ledger.checked = True
        problems = ledger.check(state)
        if problems:
            report.lost += max(0, ledger.seq - state["seq"])
            raise BotFailure("; ".join(problems))
        if state["seq"] > ledger.seq:
            report.unacknowledged_durable += 1
        for reply in replies[1:]:
            if reply["type"] == "finished" and ledger.finish_pending:
                ledger.acknowledge(reply)
        pending = ledger.pending
        if pending is None:
            return
        report.resent += 1
        replies = await self._call(ws, dict(pending.message))
        try:
            self._acknowledge(ledger, replies, pending.action, resend=True)
        except BotFailure as failure:
            if state["seq"] > ledger.seq:  # it was stored: its id must be remembered too
                raise BotFailure(
                    f"{failure} (the game resumed at seq {state['seq']}: that action was "
                    "stored before the kill, but its id was not remembered, so sending it "
                    "again was taken as a new action)"
                ) from None
            raise
        again = await self._call(ws, {"type": "resume", "game": ledger.game_id})
        state = self._expect(again[0], "state")["state"]
        if state["seq"] != ledger.seq:
            raise BotFailure(
                f"game {ledger.game_id}: the action in flight at the kill, sent again "
                f"with its id, left seq {state['seq']}, not {ledger.seq}"
            )

    def _forget(self, ledger: Ledger | None) -> None:
        """Let go of a game that broke the contract (it was reported)."""
        if ledger is not None and ledger in self.ledgers:
            self.ledgers.remove(ledger)
        if self.current is ledger:
            self.current = None

    async def _play(self, ws: ClientConnection) -> None:
        while True:
            ledger = self.current
            if ledger is None or ledger.finished:
                ledger = await self._start(ws)
            message, action = ledger.choose(self.rng)
            message = {"id": self.next_id(), **message}
            ledger.pending = Pending(message, action)
            replies = await self._call(ws, message)
            self._acknowledge(ledger, replies, action)
            self.acknowledged += 1
            self.playing.set()

    async def _start(self, ws: ClientConnection) -> Ledger:
        if self.daily:  # the one ranked attempt of the day, then practice
            start = {"type": "start", "mode": "daily", "suits": 1}
        else:
            start = {"type": "start", "mode": "practice", "suits": self.rng.choice((1, 2))}
        (reply,) = await self._call(ws, start)
        ledger = Ledger.started(self._expect(reply, "state")["state"])
        ledger.length = self.rng.randrange(50, 400)
        self.ledgers.append(ledger)
        self.current = ledger
        if ledger.mode == "daily":
            self.daily = False
        return ledger

    def _acknowledge(
        self, ledger: Ledger, replies: list[dict[str, Any]], action: str, *, resend: bool = False
    ) -> None:
        for reply in replies:
            if reply.get("type") == "error":
                what = "the resent action in flight at the kill" if resend else action
                raise BotFailure(f"game {ledger.game_id}: {what} refused: {reply}")
            try:
                ledger.acknowledge(reply, action)
            except AssertionError as error:
                what = "the action in flight at the kill, sent again: " if resend else ""
                raise BotFailure(f"game {ledger.game_id}: {what}{error}") from None

    # -- frames ------------------------------------------------------------------

    async def _call(self, ws: ClientConnection, message: dict[str, Any]) -> list[dict[str, Any]]:
        """Send ``message`` (with a fresh id unless it has one); its replies (two when a
        ``finished`` follows). Pushed frames (race events) are skipped."""
        if "id" not in message:
            message = {"id": self.next_id(), **message}
        self.sent[:] = [message]
        await ws.send(json.dumps(message))
        first = await self._reply(ws, lambda frame: frame.get("id") == message["id"])
        replies = [first]
        game = first.get("game") or first.get("state", {}).get("game")
        if (first["type"] == "moved" and first["won"]) or (
            first["type"] == "state" and first["state"]["finished"]
        ):
            replies.append(
                await self._reply(
                    ws, lambda frame: frame["type"] == "finished" and frame["game"] == game
                )
            )
        return replies

    async def _reply(
        self, ws: ClientConnection, wanted: Callable[[dict[str, Any]], bool]
    ) -> dict[str, Any]:
        try:
            async with asyncio.timeout(REPLY_SECONDS):
                while True:
                    frame: dict[str, Any] = json.loads(await ws.recv())
                    if wanted(frame):
                        return frame
        except TimeoutError:
            last = self.sent[-1] if self.sent else None
            raise BotFailure(f"no reply to {last} within {REPLY_SECONDS:g} s") from None

    @staticmethod
    def _expect(reply: dict[str, Any], kind: str) -> dict[str, Any]:
        if reply.get("type") != kind:
            raise BotFailure(f"expected {kind}, got {reply}")
        return reply


@dataclass
class Report:
    mode: str
    kills: int = 0
    games_checked: int = 0
    resent: int = 0
    #: Resumed one action further than acknowledged: stored, its reply lost in the kill.
    unacknowledged_durable: int = 0
    lost: int = 0
    problems: list[str] = field(default_factory=list)
    acknowledged: int = 0

    def summary(self) -> str:
        return (
            f"{self.mode}: {self.kills} kills, {self.acknowledged} actions acknowledged, "
            f"{self.lost} acknowledged actions lost, {len(self.problems)} problems "
            f"({self.games_checked} resumes checked, {self.resent} in-flight actions resent, "
            f"{self.unacknowledged_durable} stored but unacknowledged)"
        )


async def run_kills(
    server: ServerProcess,
    *,
    mode: str,
    kills: int,
    bots: int = 4,
    seed: int | None = None,
    play_seconds: tuple[float, float] = (0.1, 0.8),
    after_kill: Callable[[int], Awaitable[None]] | None = None,
    progress: Callable[[str], None] | None = None,
    halt: Callable[[ServerProcess], Awaitable[None]] | None = None,
) -> Report:
    """Start the server, then ``kills`` times: let the bots play, kill -9, restart, check.

    ``after_kill(n)`` runs while the server is down after kill ``n`` (1-based): e.g. to
    lose Redis's data too. ``halt``, when given, brings the server down instead of kill -9
    (a graceful stop, say); it must leave the process ended. Returns the report; problems
    are listed in it, not raised.
    """
    seed = random.randrange(2**32) if seed is None else seed
    rng = random.Random(seed)
    report = Report(mode=mode)
    players = [
        Bot(
            name=f"k{index}-{uuid.uuid4().hex[:10]}",
            rng=random.Random(rng.random()),
            daily=index == 0,
        )
        for index in range(bots)
    ]
    await server.start()
    try:
        for kill in range(1, kills + 1):
            tasks = [asyncio.create_task(bot.run(server.url, report)) for bot in players]
            try:
                await _all_set([bot.recovered for bot in players])
                await _all_set([bot.playing for bot in players])
                await asyncio.sleep(rng.uniform(*play_seconds))
            finally:
                try:
                    if halt is not None:
                        await halt(server)
                finally:
                    server.kill()
                    await asyncio.gather(*tasks)
            report.kills += 1
            if after_kill is not None:
                await after_kill(kill)
            await server.start()
            if progress is not None:
                progress(f"kill {kill}: {sum(b.acknowledged for b in players)} acknowledged")
        # the last check: every bot resumes once more after the last restart
        tasks = [asyncio.create_task(bot.run(server.url, report)) for bot in players]
        try:
            await _all_set([bot.recovered for bot in players])
        finally:
            await server.stop()
            await asyncio.gather(*tasks)
    finally:
        server.kill()
    report.acknowledged = sum(bot.acknowledged for bot in players)
    if report.problems:
        report.problems.append(f"(seed {seed}; server log {server.log_path})")
    return report


async def _all_set(events: list[asyncio.Event]) -> None:
    async with asyncio.timeout(START_SECONDS):
        await asyncio.gather(*(event.wait() for event in events))


__all__ = [
    "Bot",
    "Report",
    "ServerProcess",
    "embedded_environment",
    "free_port",
    "run_kills",
    "services_environment",
]
