"""``simon race``: the room at the table, its screen, and bot mode against a real server."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text
from textual.widgets import Input, Static

from client_cli.errors import ServerError
from client_cli.main import main
from client_cli.race_table import RaceTable, ordinal
from client_cli.table import Table
from client_cli.ui.race_app import RACE_PLACEHOLDER, ROOM_PLACEHOLDER, RaceApp, room_text
from server.engine import Game
from server.protocol import (
    Error,
    ErrorCode,
    MoveRequest,
    PlayerInfo,
    RaceJoin,
    RaceNew,
    RaceRematch,
    RaceRoom,
    RaceStart,
    RaceWatch,
    RoomEntry,
)
from tests.support.client import CODE, ScriptedConnection, Ticks, race_state, room
from tests.support.servers import server_process

ROOT = Path(__file__).resolve().parents[2]
SIZE = (110, 36)


async def test_the_screen_shows_the_room_then_the_race_then_the_results() -> None:
    connection = ScriptedConnection([RaceRoom(id=1, room=room(racers=("ann", "bob")))])
    connection.player = PlayerInfo(name="ann")

    async def open_room(suits: int | None) -> Table:
        table = RaceTable(connection)  # type: ignore[arg-type]
        await table.open(RaceNew(type="race_new", suits=4))
        return table

    app = RaceApp(open_room)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = str(app.query_one("#room", Static).content)
        assert (
            "KXR4M-7M2PQ" in text
            and "Press s to start" in text
            and "simon race join KXR4M-7M2PQ" in text
        )
        assert "/play?race=KXR4M-7M2PQ" in text  # the link a browser joins by
        assert not app.query_one("#board-box").display
        await pilot.press(*"3-4", "enter")  # no board yet: nothing is sent
        await pilot.pause()
        assert not connection.sent
        connection.replies.append(
            RaceRoom(id=2, room=room("countdown", 2, ("ann", "bob"), starts_in=10.0))
        )
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(connection.requests[-1], RaceStart)
        assert "revealed in" in str(app.query_one("#room", Static).content)

        table = app.table
        assert isinstance(table, RaceTable)
        table.receive(race_state())
        await pilot.pause()
        assert app.query_one("#board-box").display and app.query_one("#race").display
        await pilot.press(*"3-4", "enter")
        await pilot.pause()
        assert isinstance(connection.sent[-1], MoveRequest)
        assert connection.sent[-1].move == "3-4x1"

        winner = RoomEntry(player="ann", won=True, finished=True, elapsed=42.0, place=1)
        second = RoomEntry(player="bob", finished=True, resigned=True, place=2)
        over = room("over", 3, deal=CODE).model_copy(update={"racers": [winner, second]})
        table.receive(RaceRoom(event="over", room=over))
        await pilot.pause()
        notice = str(app.query_one("#notice", Static).content)
        assert "Race over: you won in 0:42.0" in notice
        connection.replies.append(
            RaceRoom(
                id=3,
                room=room(racers=("bob", "ann")).model_copy(
                    update={"code": "ASDFG", "owner": "bob"}
                ),
            )
        )
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(connection.requests[-1], RaceRematch)
        assert "ASDFG" in str(app.query_one("#room", Static).content)
        assert not app.query_one("#board-box").display


def screen_text(app: RaceApp, selector: str) -> str:
    content = app.query_one(selector, Static).content
    if isinstance(content, Text):
        return content.plain
    console = Console(width=SIZE[0], record=True, file=io.StringIO())
    console.print(content)
    return console.export_text()


def racing_table(connection: ScriptedConnection) -> Any:
    async def open_room(suits: int | None) -> Table:
        table = RaceTable(connection)  # type: ignore[arg-type]
        await table.open(RaceJoin(type="race_join", code="QWERT"))
        return table

    return open_room


async def test_joining_a_race_that_is_over_shows_its_results_and_keys_act() -> None:
    winner = RoomEntry(player="bob", won=True, finished=True, elapsed=65.0, place=1, moves=80)
    second = RoomEntry(player="ann", finished=True, resigned=True, place=2, moves=12)
    over = room("over", 5, deal=CODE).model_copy(update={"racers": [winner, second]})
    connection = ScriptedConnection([RaceRoom(id=1, room=over)])
    app = RaceApp(racing_table(connection))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = screen_text(app, "#room")
        assert "This race is over" in text and "Waiting" not in text
        assert re.search(r"1st\s+bob\s+0/4\s+80\s+1:05.0", text)
        assert re.search(r"2nd\s+ann\s+0/4\s+12\s+gave up", text)
        assert "simon race join" not in text  # nobody joins a race that is over
        assert screen_text(app, "#notice").startswith("Race over: bob won in 1:05.0")
        prompt = app.query_one("#prompt", Input)
        assert prompt.placeholder.startswith("m rematch")
        await pilot.press("s")
        await pilot.pause()
        assert prompt.value == "" and "m asks for a rematch" in screen_text(app, "#notice")
        assert len(connection.requests) == 1  # nothing asked of the server


async def test_the_rooms_notices_follow_it_to_the_race() -> None:
    refusal = ServerError(
        Error(code=ErrorCode.NOT_ENOUGH_RACERS, message="a race needs at least 2 racers")
    )
    connection = ScriptedConnection([RaceRoom(id=1, room=room()), refusal])
    app = RaceApp(racing_table(connection))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        prompt = app.query_one("#prompt", Input)
        assert prompt.placeholder == ROOM_PLACEHOLDER
        await pilot.press("s")
        await pilot.pause()
        assert "at least 2 racers" in screen_text(app, "#notice")
        table = app.race_table
        assert table is not None
        table.receive(RaceRoom(event="joined", room=room(revision=2, racers=("ann", "bob"))))
        await pilot.pause()
        assert (
            screen_text(app, "#notice") == "bob joined: 2 in the room. Press s to start the race."
        )
        countdown = room("countdown", 3, ("ann", "bob"), starts_in=10.0)
        table.receive(RaceRoom(event="countdown", room=countdown))
        await pilot.pause()
        assert screen_text(app, "#notice") == "The countdown has begun."
        table.receive(race_state())  # the reveal
        await pilot.pause()
        assert screen_text(app, "#notice") == "Go! The deal is revealed: your move."
        assert prompt.placeholder == RACE_PLACEHOLDER  # the move keys, not the room's
        for key in ("u undo", "r restart", "x resign", "q quit"):  # every one the race takes
            assert key in prompt.placeholder
        over = room("over", 4, ("ann", "bob"), deal=CODE)
        table.receive(RaceRoom(event="over", room=over))
        await pilot.pause()
        assert prompt.placeholder.startswith("m rematch")


async def test_a_public_room_tells_how_long_until_it_counts_down_by_itself() -> None:
    at = datetime(2026, 3, 1, 12, 0, 30, tzinfo=UTC)
    public = room(racers=("ann", "bob")).model_copy(
        update={"public": True, "auto_start_at": at.isoformat()}
    )
    connection = ScriptedConnection([RaceRoom(id=1, room=public)])
    wall = Ticks()
    wall.now = at.timestamp() - 21.2
    table = RaceTable(connection, wall=wall)  # type: ignore[arg-type]
    await table.open(RaceJoin(type="race_join", code="QWERT"))
    assert table.auto_start_left() == pytest.approx(21.2)
    assert "begins by itself in 21 s" in str(room_text(table))
    connection.clock_offset = 10.0  # the server's clock is ahead: it counts, not ours
    assert table.auto_start_left() == pytest.approx(11.2)
    wall.now += 60
    assert table.auto_start_left() == 0.0


# -- bot mode against a real server ------------------------------------------------------


@pytest.fixture(scope="module")
def race_server(backend: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server process whose countdown is short (the bots wait it out for real)."""
    data = tmp_path_factory.mktemp(f"race-server-{backend.name}")
    with server_process(
        backend,
        data,
        SIMON_REDIS_PREFIX=f"{backend.redis_prefix}-race-cli",
        SIMON_RACE_COUNTDOWN_SECONDS="1",
    ) as url:
        yield url


def account(
    server: str, folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any, *, bot: bool
) -> dict[str, str]:
    """Register an account in a config folder of its own; the environment to use it."""
    env = {**os.environ, "SIMON_CONFIG_DIR": str(folder), "SIMON_SERVER": server}
    monkeypatch.setenv("SIMON_CONFIG_DIR", str(folder))
    monkeypatch.setenv("SIMON_SERVER", server)
    name = f"bot-{uuid.uuid4().hex[:8]}"
    assert main(["register", name, *(["--bot"] if bot else [])]) == 0
    capsys.readouterr()
    return {**env, "PYTHONPATH": str(ROOT)}


def simon_process(env: dict[str, str], *argv: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "client_cli.main", *argv],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_bots_race_a_fresh_deal_in_a_room_that_allows_bots(
    race_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    owner_env = account(race_server, tmp_path / "owner", monkeypatch, capsys, bot=True)
    other_env = account(race_server, tmp_path / "other", monkeypatch, capsys, bot=True)
    owner = simon_process(
        owner_env, "race", "new", "--suits", "1", "--allow-bots", "--start-at", "2", "--solve",
        "--json",
    )  # fmt: skip
    assert owner.stdout is not None
    first = json.loads(owner.stdout.readline())  # at once, before the race
    assert first["state"] == "open" and re.fullmatch(r"[0-9A-Z]{5}-[0-9A-Z]{5}", first["room"])
    assert first["link"] == race_server.replace("ws://", "http://") + f"/play?race={first['room']}"
    typed = first["room"].lower().replace("-", "")  # as a friend may type it
    other = simon_process(other_env, "race", "join", typed, "--solve", "--pace", "0.01", "--json")
    try:
        other_out, other_err = other.communicate(timeout=120)
        owner_rest, owner_err = owner.communicate(timeout=120)
    finally:
        for process in (owner, other):
            if process.poll() is None:
                process.kill()
    assert owner.returncode == 0 and other.returncode == 0, (owner_err, other_err)
    owner_last = json.loads(owner_rest.strip().splitlines()[-1])
    other_lines = [json.loads(line) for line in other_out.strip().splitlines()]
    assert other_lines[0]["room"] == first["room"]
    other_last = other_lines[-1]
    assert owner_last["state"] == other_last["state"] == "over"
    assert owner_last["standings"] == other_last["standings"]
    standings = owner_last["standings"]
    assert [line["place"] for line in standings] == [1, 2]
    assert all(line["won"] and line["bot"] for line in standings)  # both cleared the table
    assert standings[0]["elapsed"] <= standings[1]["elapsed"]
    assert owner_last["you"]["player"] != other_last["you"]["player"]
    assert Game.from_code(owner_last["deal"]).suits == 1
    # the race is in the owner's history, with its room and place
    monkeypatch.setenv("SIMON_CONFIG_DIR", owner_env["SIMON_CONFIG_DIR"])
    assert main(["history", "--json"]) == 0
    [game] = json.loads(capsys.readouterr().out)["games"]
    assert (game["race"], game["place"]) == (first["room"], owner_last["you"]["place"])
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["history"]) == 0
    shown = capsys.readouterr().out
    assert re.search(rf"\n  \S+ {game['code']} {game['game']}\n", shown)  # the id to replay it
    place = ordinal(owner_last["you"]["place"])
    assert re.search(rf"race {first['room']}\s.*\s{place}\n", shown)  # one line, whole
    # its replay names it a race game, with its room (never "practice": issue #44)
    assert main(["replay", "--game", game["game"]]) == 0
    heading = capsys.readouterr().out.splitlines()[0]
    assert f"1 suit race game in room {first['room']}" in heading and "practice" not in heading


def test_race_bot_mode_needs_a_bot_account(
    race_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    account(race_server, tmp_path / "human", monkeypatch, capsys, bot=False)
    assert main(["race", "new", "--solve", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "bot-account-needed"
    assert main(["race", "new", "--start-at", "2", "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "usage"


# -- the screen against a real server ------------------------------------------------------


async def until(pilot: Any, condition: Any, timeout: float = 10.0) -> None:
    """Let the app run until ``condition()`` holds (what the server sends takes a moment)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the screen did not get there"
        await pilot.pause(0.02)


async def test_a_race_on_the_screen_against_a_real_server(backend: Any) -> None:
    from client_cli.connection import Connection
    from server.protocol import Register, Registered
    from tests.support.rooms import (
        DEAL,
        room_clock,
        room_event,
        room_reply,
        signed_up,
        solution,
    )
    from tests.support.servers import Client, server_settings, serving

    clock = room_clock()
    async with (
        serving(server_settings(backend), clock=clock) as server,
        Client.connect(server.url) as bob,
    ):
        connection = await Connection(server.url).open()
        name = f"ann-{uuid.uuid4().hex[:8]}"
        registered = await connection.request(Register(type="register", name=name), Registered)
        connection.player = registered.player
        await signed_up(bob, "bob")

        async def open_room(suits: int | None) -> Table:
            table = RaceTable(connection)
            await table.open(RaceNew(type="race_new", code=DEAL))
            return table

        app = RaceApp(open_room)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: isinstance(app.table, RaceTable) and app.table.room)
                table = app.table
                assert isinstance(table, RaceTable) and table.room is not None
                code = table.room.code
                await room_reply(bob, {"type": "race_join", "code": code})
                await until(pilot, lambda: len(table.standings) == 2)
                await pilot.press("s")
                await until(pilot, lambda: table.countdown_left() is not None)
                await room_event(bob, "countdown", code)
                clock.advance(seconds=10)
                await until(pilot, lambda: table.phase == "racing")
                assert app.query_one("#board-box").display
                move = solution(DEAL)[0]
                await pilot.press(*move, "enter")
                await until(pilot, lambda: table.standings[name].moves == 1)
                await bob.request({"type": "resign"})
                await pilot.press("x", "x")  # resign, confirmed
                await until(pilot, lambda: table.phase == "over")
                assert table.standings[name].place == 2  # as many runs, one move more
                notice = str(app.query_one("#notice", Static).content)
                assert notice.startswith("Race over, nobody cleared the table: ")
                assert "you placed 2nd of 2" in notice
                await pilot.press("m")
                await until(pilot, lambda: table.room is not None and table.room.code != code)
                assert table.phase == "room" and table.owner
                assert table.room is not None
                assert table.room.code in str(app.query_one("#room", Static).content)
        finally:
            await connection.close()


def test_bot_modes_standings_count_moves_in_words() -> None:
    from client_cli.race import _standings_text

    line = {"place": 1, "player": "robo", "bot": True, "won": False, "resigned": True}
    result = {"room": "QWERT", "state": "over", "standings": [{**line, "moves": 1}]}
    assert _standings_text(result).endswith("1st  BOT robo  resigned, 1 move")


@pytest.mark.parametrize("state", ["racing", "over"])
async def test_joining_a_race_that_started_without_you_watches_it(state: str) -> None:
    late = ServerError(Error(code=ErrorCode.RACE_STARTED, message="that race has started"))
    bob = RoomEntry(player="bob", moves=9, removed=1, place=1 if state == "over" else None)
    seen = room(state, 6, deal=CODE).model_copy(update={"owner": "bob", "racers": [bob]})
    connection = ScriptedConnection([late, RaceRoom(id=2, room=seen)])
    app = RaceApp(racing_table(connection))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(connection.requests[-1], RaceWatch)
        text = screen_text(app, "#room")
        assert re.search(r"1(st)?\s+bob\s+1/4\s+9", text)
        said = screen_text(app, "#notice")
        if state == "racing":
            assert "under way" in text and said.endswith("you are watching it.")
            assert app.query_one("#prompt", Input).placeholder == "q quit · ? help"
        else:
            assert "This race is over" in text and said.startswith("Race over")
        await pilot.press(*"3-4", "enter")
        await pilot.pause()
        assert screen_text(app, "#notice") == "You have no game in this race."
