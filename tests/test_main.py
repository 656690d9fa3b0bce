"""``simon-server`` as a process: runs on a fresh data folder, stops on SIGTERM; ``verify``."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import uuid
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from server.bus import InProcessBus
from server.engine import Game
from server.kinds import DayBoard
from server.main import _parser, descriptor_limit_line
from server.play.clock import ManualClock
from server.play.fairplay.screening import FLAGGED_REASON
from server.play.hub import Hub
from server.store import GameRecord, Result, Store
from tests.conftest import Backend
from tests.support.servers import (
    HOLD_EVERYTHING,
    HOLD_NOTHING,
    Client,
    fresh_clock,
    get_json,
    quick_prover,
    server_settings,
    serving,
    unique_name,
)
from tests.support.store import entries, finish
from tests.support.web import finish_daily, no_cache
from tests.support.web import page as fetch_page

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def server_env(**values: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIMON_")}
    env["PYTHONPATH"] = str(ROOT)
    env.update(values)
    return env


def run_admin(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.main", *argv],
        env=server_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
    )


async def test_simon_server_runs_on_a_fresh_data_folder_and_stops_on_sigterm(
    tmp_path: Path,
) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "server.main", "--port", str(port)],
        env=server_env(SIMON_DATA_DIR=str(tmp_path / "data"), SIMON_DAILY_SOLVER_SECONDS="1"),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                status, body = await get_json(f"http://127.0.0.1:{port}/healthz")
                if status == 200:
                    break
                # 503 until today's deals are proven: a fresh server's first start
                assert status == 503 and body == {**body, "ok": False, "daily": "proving"}
                assert time.monotonic() < deadline, "today's deals were not proven in time"
                await asyncio.sleep(0.2)
            except OSError:
                assert process.poll() is None, process.communicate()[1]
                assert time.monotonic() < deadline, "the server did not start"
                await asyncio.sleep(0.2)
        assert status == 200 and body["ok"]
        process.send_signal(signal.SIGTERM)
        _, log = await asyncio.to_thread(process.communicate, None, 30)
        assert process.returncode == 0, log
        assert "listening on" in log and "stopped" in log
        assert (tmp_path / "data" / "simon.sqlite3").exists()
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


async def test_verify_reports_a_tampered_result(backend: Backend) -> None:
    store = await Store.open(backend.database_url)
    now = datetime.now(UTC)
    code = "SS1-S2-AAAAABD"
    game = Game.from_code(code)
    moves = [game.push(move).text() for move in [next(game.legal_moves())]]
    try:
        player = await store.create_player(
            name=unique_name("v"), token_hash=uuid.uuid4().hex, now=now
        )
        for score in (game.score, game.score + 100):
            game_id = uuid.uuid4().hex
            record = await store.start_game(
                game_id=game_id, player_id=player.id, mode="practice", code=code, suits=2,
                day=None, started_at=now,
            )  # fmt: skip
            await finish(
                store,
                record,
                moves,
                Result(
                    won=False,
                    resigned=True,
                    moves=1,
                    score=score,
                    removed=0,
                    elapsed=1.0,
                    finished_at=now,
                ),
            )
    finally:
        await store.close()
    result = await asyncio.to_thread(run_admin, "verify", SIMON_DATABASE_URL=backend.database_url)
    assert result.returncode == 1, result.stderr
    mismatches = [line for line in result.stdout.splitlines() if line.startswith("MISMATCH")]
    assert len(mismatches) == 1 and f"score stored {game.score + 100}" in mismatches[0]


async def test_verify_reports_a_daily_played_on_another_deal(backend: Backend) -> None:
    store = await Store.open(backend.database_url)
    now = datetime.now(UTC)
    day = date(2090, 1, 1) + timedelta(days=random.randrange(100_000))
    game = Game.from_code("SS1-S1-AAAAAAB")  # not the day's deal
    moves = [game.push(next(game.legal_moves())).text()]
    try:
        await store.put_daily_deal(day=day, suits=1, code="SS1-S1-AAAAAAA", par=None)
        player = await store.create_player(
            name=unique_name("f"), token_hash=uuid.uuid4().hex, now=now
        )
        game_id = uuid.uuid4().hex
        record = await store.start_game(
            game_id=game_id, player_id=player.id, mode="daily", code=str(game.code), suits=1,
            day=day, started_at=now,
        )  # fmt: skip
        await finish(
            store,
            record,
            moves,
            Result(
                won=False,
                resigned=True,
                moves=1,
                score=game.score,
                removed=0,
                elapsed=1.0,
                finished_at=now,
            ),
        )
    finally:
        await store.close()
    result = await asyncio.to_thread(run_admin, "verify", SIMON_DATABASE_URL=backend.database_url)
    assert result.returncode == 1, result.stderr
    assert any(
        game_id in line and "that day's deal is SS1-S1-AAAAAAA" in line
        for line in result.stdout.splitlines()
    ), result.stdout


def test_verify_on_a_folder_with_no_database_says_so_and_creates_nothing(tmp_path: Path) -> None:
    result = run_admin("verify", SIMON_DATA_DIR=str(tmp_path / "data"))
    assert result.returncode == 1
    assert result.stderr.startswith("simon-server: no database at ")
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "data" / "simon.sqlite3").exists()


def test_verify_on_an_unmigrated_database_asks_for_migrate(tmp_path: Path) -> None:
    (tmp_path / "empty.sqlite3").touch()
    result = run_admin("verify", SIMON_DATABASE_URL=f"sqlite:///{tmp_path / 'empty.sqlite3'}")
    assert result.returncode == 1
    assert "run simon-server migrate first" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_settings_give_one_line_by_name_without_their_values(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    port = run_admin("migrate", SIMON_DATA_DIR=data, SIMON_PORT="99999")
    assert port.returncode == 1
    assert port.stderr == (
        "simon-server: bad settings: SIMON_PORT: Input should be less than or equal to 65535\n"
    )
    flag = run_admin("--port", "99999", "migrate", SIMON_DATA_DIR=data)
    assert flag.returncode == 1
    assert flag.stderr.startswith("simon-server: bad settings: --port: "), flag.stderr
    for name, value, says in (
        ("SIMON_LOG_LEVEL", "bogus", "one of DEBUG, INFO"),
        ("SIMON_DATABASE_URL", "mysql://simon@127.0.0.1/simon", "PostgreSQL or SQLite only"),
    ):
        wrong = run_admin("migrate", SIMON_DATA_DIR=data, **{name: value})
        assert wrong.returncode == 1, wrong.stderr
        assert wrong.stderr.startswith(f"simon-server: bad settings: {name}: "), wrong.stderr
        assert says in wrong.stderr and wrong.stderr.count("\n") == 1, wrong.stderr
    secret = "short-and-seen"
    weak = run_admin("migrate", SIMON_DATA_DIR=data, SIMON_PRODUCTION="true", SIMON_SECRET=secret)
    assert weak.returncode == 1
    assert weak.stderr.count("\n") == 1 and "SIMON_SECRET must be" in weak.stderr
    assert secret not in weak.stderr  # a secret never reaches the log


def test_unreachable_database_gives_one_line_and_exit_1() -> None:
    port = free_port()  # nothing listens there
    for command in ("migrate", "serve"):
        result = run_admin(
            command, SIMON_DATABASE_URL=f"postgresql://postgres@127.0.0.1:{port}/nowhere"
        )
        assert result.returncode == 1, result.stderr
        assert "simon-server: cannot use the database or Redis" in result.stderr
        assert "Traceback" not in result.stderr


async def test_review_lists_clears_and_confirms_held_results(backend: Backend) -> None:
    store = await Store.open(backend.database_url)
    day = date(2090, 1, 1) + timedelta(days=random.randrange(100_000))
    now = datetime.now(UTC)
    held: dict[str, GameRecord] = {}
    try:
        for name in (unique_name("ok"), unique_name("bad")):
            player = await store.create_player(name=name, token_hash=uuid.uuid4().hex, now=now)
            game = await store.start_game(
                game_id=uuid.uuid4().hex, player_id=player.id, mode="daily",
                code="SS1-S1-AAAAABD", suits=1, day=day, started_at=now,
            )  # fmt: skip
            result = Result(
                won=False,
                resigned=True,
                moves=1,
                score=499,
                removed=0,
                elapsed=2.0,
                finished_at=now,
            )
            await store.append(entries(game, ["1-2", "resign"], at=now), result)
            await store.record_screening(
                game_id=game.id, held=True, reasons=["flat think times"],
                evidence={"median_think": 0.01}, at=now,
            )  # fmt: skip
            held[name] = game
        (ok, good), (bad, cheat) = held.items()
        assert (await store.leaderboard_page(DayBoard(day, 1), limit=5)).rows == []

        listed = await asyncio.to_thread(
            run_admin, "review", "--json", SIMON_DATABASE_URL=backend.database_url
        )
        assert listed.returncode == 0, listed.stderr
        rows = {row["game"]: row for row in json.loads(listed.stdout)}
        assert {good.id, cheat.id} <= set(rows)
        assert rows[cheat.id]["reasons"] == ["flat think times"]
        assert rows[cheat.id]["evidence"] == {"median_think": 0.01}
        assert (
            rows[cheat.id]["status"] == "held" and rows[cheat.id]["replay"] == f"/replay/{cheat.id}"
        )

        cleared = await asyncio.to_thread(
            run_admin, "review", "clear", good.id, "--note", "plays like a person",
            SIMON_DATABASE_URL=backend.database_url,
        )  # fmt: skip
        assert cleared.returncode == 0, cleared.stderr
        assert cleared.stdout.startswith("AUDIT ") and f"cleared game {good.id}" in cleared.stdout
        confirmed = await asyncio.to_thread(
            run_admin, "review", "confirm", cheat.id, SIMON_DATABASE_URL=backend.database_url
        )
        assert confirmed.returncode == 0, confirmed.stderr
        again = await asyncio.to_thread(
            run_admin, "review", "clear", cheat.id, SIMON_DATABASE_URL=backend.database_url
        )
        assert again.returncode == 1 and "not held for review" in again.stderr

        board = await store.leaderboard_page(DayBoard(day, 1), limit=5)
        assert [row.player for row in board.rows] == [ok]  # cleared: ranked; confirmed: not
        # held, then cleared or confirmed: each an audit line
        assert [(d, n) for d, n, _ in await store.audit(good.id)] == [
            ("held", "flat think times"),
            ("cleared", "plays like a person"),
        ]
        assert [d for d, _, _ in await store.audit(cheat.id)] == ["held", "confirmed"]
        flagged, fine = await store.player_by_name(bad), await store.player_by_name(ok)
        assert flagged is not None and flagged.flagged and fine is not None and not fine.flagged

        # the confirmed account's next daily is held whatever its evidence
        next_day = await store.start_game(
            game_id=uuid.uuid4().hex, player_id=flagged.id, mode="daily",
            code="SS1-S1-AAAAABD", suits=1, day=day + timedelta(days=1), started_at=now,
        )  # fmt: skip
        await store.append(
            entries(next_day, ["1-2", "resign"], at=now),
            Result(
                won=False,
                resigned=True,
                moves=1,
                score=499,
                removed=0,
                elapsed=2.0,
                finished_at=now,
            ),
        )
        assert next_day.day is not None
        await store.put_daily_deal(
            day=next_day.day, suits=1, code="SS1-S1-AAAAABD", par=None, solution=["1-2"]
        )
        hub = Hub(store=store, bus=InProcessBus(), clock=ManualClock(now), secret="s",
                  prover=quick_prover, thresholds=HOLD_NOTHING)  # fmt: skip
        screened = await hub.screening.screen(next_day.id)
        assert screened is not None and screened.status == "held"
        assert screened.reasons == [FLAGGED_REASON]
        await hub.close()
    finally:
        await store.close()


@pytest.mark.parametrize(
    ("argv", "host", "port"),
    [
        (["serve", "--port", "8766"], None, 8766),
        (["--port", "8766", "serve"], None, 8766),
        (["--host", "0.0.0.0", "serve", "--port", "8766"], "0.0.0.0", 8766),
        (["serve"], None, None),
        ([], None, None),
    ],
)
def test_host_and_port_are_taken_before_or_after_serve(
    argv: list[str], host: str | None, port: int | None
) -> None:
    args = _parser().parse_args(argv)
    assert (args.host, args.port) == (host, port)


async def test_review_reports_lists_reported_results_by_rank_with_their_reports(
    backend: Backend,
) -> None:
    store = await Store.open(backend.database_url)
    day = date(2090, 1, 1) + timedelta(days=random.randrange(100_000))
    now = datetime.now(UTC)
    try:
        games = []
        for score in (700, 800):  # the 800 ranks first
            player = await store.create_player(
                name=unique_name("r"), token_hash=uuid.uuid4().hex, now=now
            )
            game = await store.start_game(
                game_id=uuid.uuid4().hex, player_id=player.id, mode="daily",
                code="SS1-S1-AAAAABD", suits=1, day=day, started_at=now,
            )  # fmt: skip
            result = Result(
                won=False, resigned=True, moves=1, score=score, removed=2, elapsed=2.0,
                finished_at=now,
            )  # fmt: skip
            games.append(await finish(store, game, ["1-2"], result))
        reporter = await store.create_player(
            name=unique_name("rep"), token_hash=uuid.uuid4().hex, now=now
        )
        for game in games:
            await store.report(game_id=game.id, player_id=reporter.id, reason="odd", at=now)
        listed = await asyncio.to_thread(
            run_admin, "review", "--reports", "--json", SIMON_DATABASE_URL=backend.database_url
        )
        assert listed.returncode == 0, listed.stderr
        rows = [row for row in json.loads(listed.stdout) if row["day"] == str(day)]
        assert [row["game"] for row in rows] == [games[1].id, games[0].id]
        assert [row["rank"] for row in rows] == [1, 2]
        assert rows[0]["reports"][0]["by"] == reporter.name
        text = await asyncio.to_thread(run_admin, "review", SIMON_DATABASE_URL=backend.database_url)
        assert "results held for review" in text.stdout and f"{reporter.name}: odd" in text.stdout
    finally:
        await store.close()


async def test_a_result_cleared_by_review_counts_in_every_total(backend: Backend) -> None:
    """A held daily, cleared by ``simon-server review`` (a process of its own) while the
    server runs: the server's boards count it, not only list it: the ``leaderboard`` reply,
    the HTTP JSON, ``/`` and ``/day/...`` (they used to say "0 results" above its row)."""
    clock = fresh_clock()
    settings = server_settings(backend, fairplay=HOLD_EVERYTHING)
    admin_env = {
        "SIMON_DATABASE_URL": backend.database_url,
        "SIMON_REDIS_PREFIX": settings.redis_prefix,
        **({"SIMON_REDIS_URL": backend.redis_url} if backend.redis_url else {}),
    }
    async with serving(settings, clock=clock) as server:
        no_cache(server)
        day = clock.now().date().isoformat()
        name = await finish_daily(server.url, suits=1)
        async with Client.connect(server.url) as client:
            # signed in: the admin commands below may outlast an anonymous connection's
            # grace on a loaded machine
            await client.request({"type": "register", "name": unique_name("watch")})
            ask = {"type": "leaderboard", "day": day, "suits": 1}
            board = await client.request(ask)  # the board's count, held: none
            assert (board["rows"], board["total"]) == ([], 0)
            deadline = time.monotonic() + 20
            while True:  # the screening holds the result in its own time
                listed = await asyncio.to_thread(run_admin, "review", "--json", **admin_env)
                assert listed.returncode == 0, listed.stderr
                held = [row["game"] for row in json.loads(listed.stdout) if row["player"] == name]
                if held or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            assert held, f"{name}'s result was not held"
            report = await asyncio.to_thread(run_admin, "review", **admin_env)
            assert report.returncode == 0 and "alembic" not in report.stderr  # no INFO lines
            assert " held for review\n" in report.stdout and held[0] in report.stdout
            cleared = await asyncio.to_thread(run_admin, "review", "clear", *held, **admin_env)
            assert cleared.returncode == 0, cleared.stderr
            assert "alembic" not in cleared.stderr + listed.stderr

            deadline = time.monotonic() + 20
            while True:  # an in-process rank cache looks for reviews once a second
                board = await client.request(ask)
                if board["total"] or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            assert [row["player"] for row in board["rows"]] == [name] and board["total"] == 1
        status, page = await get_json(f"{server.http_url}/leaderboard?day={day}&suits=1")
        assert status == 200 and page["total"] == 1
        home = (await fetch_page(f"{server.http_url}/")).text
        assert '<span class="count">1</span> player' in home and "Top 1 of 1" in home
        whole = (await fetch_page(f"{server.http_url}/day/{day}?suits=1")).text
        assert '<span class="count">1</span> result' in whole and "Rank 1 of 1" in whole


def test_a_busy_port_is_named_as_such(tmp_path: Path) -> None:
    """A second server on a port another holds says so, not that the database failed."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_admin(
            "serve", "--port", str(port), SIMON_DATABASE_URL=f"sqlite:///{tmp_path / 's.sqlite3'}"
        )
    assert result.returncode == 1, result.stderr
    assert f"simon-server: cannot listen on 127.0.0.1:{port}: the port is in use" in result.stderr
    assert "database" not in result.stderr and "Traceback" not in result.stderr


def test_the_descriptor_limit_line_says_raised_only_when_it_was() -> None:
    assert descriptor_limit_line(1024, 20000) == "descriptor limit 20000 (raised from 1024)"
    assert descriptor_limit_line(20000, 20000) == "descriptor limit 20000"
