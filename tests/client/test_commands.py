"""The command line: bad options and an unreachable server give one line and a status."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from client_cli.config import Account, Config
from client_cli.main import main
from client_cli.ui.commands import chosen_column, read_command
from server.engine import InvalidMoveError, Move


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(autouse=True)
def config_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SIMON_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("SIMON_SERVER", raising=False)
    return tmp_path


@pytest.mark.parametrize(
    "argv",
    [
        ["register", "ann"],
        ["daily"],
        ["leaderboard"],
        ["history", "ann"],
    ],
)
def test_an_unreachable_server_is_one_line_and_status_1(
    argv: list[str], closed_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    server = f"ws://127.0.0.1:{closed_port}"
    assert main([*argv, "--server", server]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"simon: cannot reach the server at {server}: connection refused\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["register", "ann", "--json"],
        ["--json", "daily"],
        ["leaderboard", "--json"],
        ["--json", "history", "ann"],
    ],
)
def test_with_json_an_unreachable_server_is_a_json_error(
    argv: list[str], closed_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    server = f"ws://127.0.0.1:{closed_port}"
    assert main([*argv, "--server", server]) == 1
    captured = capsys.readouterr()
    assert captured.err == ""
    assert json.loads(captured.out) == {
        "error": {
            "code": "network",
            "message": f"cannot reach the server at {server}: connection refused",
        }
    }


@pytest.mark.parametrize("command", [["register", "ann"], ["whoami"], ["daily"]])
def test_server_may_come_before_the_command(
    command: list[str], closed_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    server = f"ws://127.0.0.1:{closed_port}"
    elsewhere = f"ws://127.0.0.1:{closed_port}/elsewhere"
    assert main(["--server", server, *command]) == 1
    assert server in capsys.readouterr().err
    # the command's own --server wins over the one before it
    assert main(["--server", elsewhere, *command, "--server", server]) == 1
    err = capsys.readouterr().err
    assert server in err and "elsewhere" not in err


@pytest.mark.parametrize(
    ("argv", "environment", "said"),
    [
        (["--server", "127.0.0.1:99999", "leaderboard"], None, "simon: --server: "),
        (["leaderboard", "--server", "ws://[::1"], None, "simon: --server: "),
        (["leaderboard"], "127.0.0.1:abc", "simon: SIMON_SERVER: "),
        (["register", "ann"], "127.0.0.1:99999", "simon: SIMON_SERVER: "),
    ],
)
def test_a_bad_server_address_is_one_line_and_status_2(
    argv: list[str],
    environment: str | None,
    said: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if environment is not None:
        monkeypatch.setenv("SIMON_SERVER", environment)
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(said) and captured.err.count("\n") == 1
    assert main(["--json", *argv]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error["code"] == "usage" and error["message"].startswith(said.removeprefix("simon: "))


def test_server_before_the_command_is_the_one_the_config_keeps(
    config_folder: Path, closed_port: int
) -> None:
    from client_cli.main import build_parser

    args = build_parser().parse_args(["--server", "h:1", "register", "ann"])
    assert args.server == "h:1" and args.name == "ann"
    args = build_parser().parse_args(["--server", "h:1", "whoami", "--server", "h:2"])
    assert args.server == "h:2"
    assert build_parser().parse_args(["whoami"]).server is None


def test_whoami_without_an_account_says_how_to_get_one(
    closed_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["whoami", "--server", f"ws://127.0.0.1:{closed_port}"]) == 1
    assert "simon register NAME" in capsys.readouterr().err


def test_bot_mode_on_an_unreachable_server(
    config_folder: Path, closed_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    server = f"ws://127.0.0.1:{closed_port}"
    config = Config(config_folder)
    config.add_account(server, Account("ann", "token"))
    config.save()
    argv = ["play", "--daily", "--moves", "3-4", "--server", server]
    assert main(argv) == 1
    assert capsys.readouterr().err.startswith(f"simon: cannot reach the server at {server}")
    assert main([*argv, "--json"]) == 1
    out = capsys.readouterr().out
    assert json.loads(out)["error"]["code"] == "network" and out.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "--daily", "--code", "SS1-S1-AAAAAAB"], "not both"),
        (["play", "--offline", "--daily"], "leave out --offline"),
        (["play", "--moves", "3-4"], "needs --daily or --code"),
        (["play", "--code", "SS1-S1-AAAAAAB", "--suits", "2"], "1-suit deal"),
        (["play", "--code", "nope"], "not a game code"),
        (["play", "--daily", "--moves", "3-"], "not a move"),
    ],
)
def test_option_mixes_that_mean_nothing_are_refused_with_the_usage(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    usage, last = err.rstrip("\n").rsplit("\n", 1)
    assert usage.startswith("usage: simon play ")
    assert last.startswith("simon: ") and message in last


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "--daily", "--moves", "3-", "--json"],
        ["--json", "play", "--code", "SS1-S1-AAAAAAB", "--moves", "3-4 11-200"],
        ["play", "--moves", "3-4", "--json"],
        ["--json", "play", "--daily", "--suits", "3"],
        ["replay", "SS1-S1-AAAAAAB", "--moves", "x", "--json"],
    ],
)
def test_with_json_a_usage_error_is_a_json_error(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == ""
    error = json.loads(captured.out)["error"]
    assert error["code"] == "usage" and error["message"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--json", "race", "quick"],
        ["race", "quick", "--json"],
        ["--json", "race", "join", "KXR4M-7M2PQ"],
        ["race", "new", "--json"],
        ["--json", "play", "--offline"],
    ],
)
def test_a_screen_with_json_is_refused_as_json_before_connecting(
    argv: list[str], closed_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    # a closed port: had it tried the server, the error would be "network"
    assert main([*argv, "--server", f"ws://127.0.0.1:{closed_port}"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out.count("\n") == 1
    error = json.loads(captured.out)["error"]
    assert error["code"] == "usage" and "has no --json" in error["message"]
    assert "--solve" in error["message"] or "--moves" in error["message"]


@pytest.mark.parametrize(
    ("argv", "instead"),
    [
        (["race", "quick"], "race new --allow-bots --solve"),
        (["race", "join", "KXR4M-7M2PQ"], "--solve"),
        (["race", "new", "--suits", "1"], "--solve"),
        (["play", "--code", "SS1-S1-AAAAAAB"], "--moves MOVES or --solve"),
        (["play", "--offline"], "simon replay CODE --moves MOVES"),
    ],
)
def test_a_screen_without_a_terminal_is_one_line_before_connecting(
    argv: list[str], instead: str, closed_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*argv, "--server", f"ws://127.0.0.1:{closed_port}"]) == 1  # pytest's stdin
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("simon: the game screen needs a terminal: ")
    assert instead in captured.err and captured.err.count("\n") == 1


def test_without_json_an_unknown_option_shows_the_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["play", "--bogus"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("usage: simon") and "simon: unrecognized" in captured.err


def test_the_prompt_reads_moves_columns_and_keys() -> None:
    assert read_command("3 7").move == Move(2, 6)
    assert read_command(" 3-7x2 ").move == Move(2, 6, 2)
    assert read_command("10").column == 9
    assert read_command("u").kind == "undo"
    assert read_command("restart").kind == "restart"
    assert read_command("x").kind == read_command("resign").kind == "resign"
    with pytest.raises(InvalidMoveError):
        read_command("11")
    with pytest.raises(InvalidMoveError):
        read_command("3 7 9")
    assert chosen_column("3-") == (2, None)
    assert chosen_column("3-7x2") == (2, 2)
    assert chosen_column("q") is None


async def test_daily_waits_with_a_line_while_the_server_proves_the_deals(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from client_cli import boards
    from client_cli.errors import ServerError
    from server.protocol import DailyInfo, Error, ErrorCode, TodayDeal

    monkeypatch.setattr(boards, "PROVING_RETRY", 0.0)
    info = DailyInfo(
        day="2026-03-01", deals=[TodayDeal(suits=s) for s in (1, 2, 4)], seconds_left=60.0
    )
    proving = ServerError(Error(code=ErrorCode.PROVING, message="still proving"))

    class ProvingTwice:
        asked = 0

        async def request(self, message: object, expect: type) -> DailyInfo:
            self.asked += 1
            if self.asked <= 2:
                raise proving
            return info

    connection = ProvingTwice()
    assert await boards.today_deals(connection) == info  # type: ignore[arg-type]
    assert connection.asked == 3
    assert capsys.readouterr().err.count("proving today's deals") == 1  # said once


async def test_a_daily_being_proven_is_started_once_it_is_ready(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``start`` refused ``proving`` (its deal still being proven): asked again after the
    ``retry_after`` the server says, and the refusal's sentence told once."""
    from client_cli import online
    from client_cli.errors import ServerError
    from server.protocol import Error, ErrorCode

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    monkeypatch.setattr("client_cli.online.asyncio.sleep", sleep)
    said: list[str] = []
    asked = 0

    async def start() -> str:
        nonlocal asked
        asked += 1
        if asked <= 2:
            detail = {"retry_after": 2}
            raise ServerError(Error(code=ErrorCode.PROVING, message="being proven", detail=detail))
        return "state"

    assert await online.when_proven(start, said.append) == "state"
    assert asked == 3 and slept == [2.0, 2.0] and said == ["being proven"]

    async def played() -> str:
        raise ServerError(Error(code=ErrorCode.ALREADY_PLAYED, message="played"))

    with pytest.raises(ServerError):  # any other refusal is the caller's
        await online.when_proven(played, said.append)


@pytest.mark.parametrize(
    "argv",
    [
        ["--json", "solve", "SS1-S1-AAAAABD"],
        ["replay", "SS1-S4-AAAAABD", "--moves", "3-4"],
        ["deal", "SS1-S4-AAAAABD"],
        ["--json", "daily", "--server", "127.0.0.1:99999"],  # the error's JSON, to no reader
    ],
)
def test_a_reader_gone_before_the_output_is_no_traceback(
    argv: list[str], config_folder: Path
) -> None:
    reading, writing = os.pipe()
    os.close(reading)  # like `| head` that has read its fill: every write breaks the pipe
    try:
        done = subprocess.run(
            [sys.executable, "-m", "client_cli.main", *argv],
            stdout=writing,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            cwd=Path(__file__).resolve().parents[2],
            env={**os.environ, "SIMON_CONFIG_DIR": str(config_folder)},
        )
    finally:
        os.close(writing)
    assert done.stderr == ""  # no BrokenPipeError, no "Exception ignored" at exit
    assert done.returncode == 1
