"""``simon`` against a real server started by the test, on both backends."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from client_cli.main import main
from server.engine import Game
from server.solver import Verdict, solve
from tests.support.servers import server_process

ROOT = Path(__file__).resolve().parents[2]


def solution_for(code: str) -> list[str]:
    """A winning move list from the project's solver."""
    solution = solve(Game.from_code(code), shorten=False)
    assert solution.verdict is Verdict.WINNABLE, code
    return [move.text() for move in solution.moves]


@pytest.fixture(scope="session")
def server_url(backend: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server process on a free port, with this backend's database and bus."""
    data = tmp_path_factory.mktemp(f"server-{backend.name}")
    with server_process(backend, data) as url:
        yield url


@pytest.fixture
def simon(server_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> Any:
    """Run ``simon ARGS`` against the server; return (status, stdout, stderr)."""
    monkeypatch.setenv("SIMON_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("SIMON_SERVER", server_url)

    def run(*argv: str) -> tuple[int, str, str]:
        status = main(list(argv))
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


def new_name() -> str:
    return f"ann{uuid.uuid4().hex[:8]}"


def test_register_then_whoami(simon: Any, tmp_path: Path) -> None:
    name = new_name()
    status, out, err = simon("register", name)
    assert (status, err) == (0, ""), err
    assert name in out
    config = tmp_path / "config" / "config.json"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    status, out, _ = simon("whoami", "--json")
    assert status == 0
    assert json.loads(out)["player"] == name


def test_server_before_the_command(
    simon: Any, server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SIMON_SERVER")
    name = new_name()
    status, out, err = simon("--server", server_url, "register", name)
    assert (status, err) == (0, ""), err
    status, out, _ = simon("--server", server_url, "--json", "whoami")
    assert status == 0
    assert json.loads(out) == {**json.loads(out), "player": name, "server": server_url}


def test_a_web_address_reaches_the_server_and_wss_on_plain_says_so(
    simon: Any, server_url: str
) -> None:
    where = server_url.removeprefix("ws://")
    name = new_name()  # a register: no wait for today's deals to be proven
    status, out, err = simon("--server", f"http://{where}/", "register", name, "--json")
    assert status == 0, err
    assert json.loads(out)["player"] == name, out
    status, out, err = simon("--server", f"wss://{where}", "daily")
    assert (status, out) == (1, "")
    assert err == (
        f"simon: cannot reach the server at wss://{where}: no TLS there: "
        f"the server seems to speak plain websocket, try ws://{where}\n"
    )


def test_with_json_a_server_refusal_is_a_json_error(simon: Any) -> None:
    name = new_name()
    assert simon("register", name)[0] == 0
    status, out, err = simon("register", name, "--json")
    assert status == 1 and err == ""
    error = json.loads(out)["error"]
    assert error["code"] == "name-taken" and error["message"]


def ready_daily(simon: Any, suits: int) -> dict[str, Any]:
    """Today's deal of ``suits`` as ``simon daily --json`` says it, once it is proven (a
    fresh server's first seconds: until then ``"ready": false``)."""
    deadline = time.monotonic() + 120
    while True:
        status, out, err = simon("daily", "--suits", str(suits), "--json")
        assert status == 0, err
        [deal] = json.loads(out)["deals"]
        if "ready" not in deal:
            return dict(deal)
        assert deal["ready"] is False and time.monotonic() < deadline, deal
        time.sleep(0.5)


def test_bot_mode_on_the_daily_needs_a_bot_account(simon: Any) -> None:
    assert simon("register", new_name())[0] == 0
    deal = ready_daily(simon, 1)
    assert deal == {"suits": 1, "started": False, "finished": False}  # no code before start
    for mode in (["--moves", "3-4"], ["--solve"]):
        status, out, _ = simon("play", "--daily", "--suits", "1", *mode, "--json")
        error = json.loads(out)["error"]
        assert status == 1 and error["code"] == "bot-account-needed"
        assert "simon register NAME --bot" in error["message"] and "--code" in error["message"]
    status, out, _ = simon("daily", "--suits", "1", "--json")
    assert json.loads(out)["deals"][0]["started"] is False  # the refusal started nothing


class _Terminal:
    """Standard input or output as a terminal (pytest's capture is none)."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def isatty(self) -> bool:
        return True

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@pytest.mark.parametrize(
    ("argv", "tty", "code", "said"),
    [
        (["play", "--daily", "--suits", "4"], False, "no-terminal", "needs a terminal"),
        (["--json", "play", "--daily", "--suits", "4"], False, "usage", "has no --json"),
        (["play", "--daily", "--suits", "4", "--json"], True, "usage", "has no --json"),
    ],
)
def test_the_daily_screen_without_a_terminal_or_with_json_starts_nothing(
    simon: Any,
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    tty: bool,
    code: str,
    said: str,
) -> None:
    assert simon("register", new_name())[0] == 0
    with monkeypatch.context() as terminal:
        if tty:  # writes still reach pytest's capture, which simon() reads
            terminal.setattr(sys, "stdin", _Terminal(sys.stdin))
            terminal.setattr(sys, "stdout", _Terminal(sys.stdout))
        status, out, err = simon(*argv)
    if "--json" in argv:
        assert (status, err) == (2, "")
        error = json.loads(out)["error"]
        assert error["code"] == code and said in error["message"]
        assert "--moves" in error["message"] and "--solve" in error["message"]
    else:
        assert (status, out) == (1, "")
        assert err.startswith("simon: ") and said in err and err.count("\n") == 1
        assert "--moves" in err and "--solve" in err
    status, out, _ = simon("daily", "--suits", "4", "--json")
    assert json.loads(out)["deals"][0]["started"] is False  # the daily's clock never started


def test_a_bot_solves_the_daily_and_the_bots_leaderboard_shows_it(simon: Any) -> None:
    name = new_name()
    status, out, err = simon("register", name, "--bot")
    assert status == 0 and "bot account" in out, err
    status, out, _ = simon("whoami")
    assert out.startswith(f"BOT {name} on ")

    status, out, err = simon(
        "play", "--daily", "--suits", "1", "--solve", "--pace", "0.005", "--json"
    )
    assert status == 0, err
    result = json.loads(out)
    assert result["won"] is True and "refused" not in result
    assert result["score"] == 900 - result["moves"]
    assert result["rank"] >= 1
    assert result["elapsed"] >= 0.005 * result["moves"]  # one move every --pace seconds
    # the fields docs/client.md lists for a won daily
    assert result["board"] == "bots" and 0 <= result["percentile"] <= 100
    assert result["streak"]["current"] >= 1 and result["share"]
    assert solution_for(result["code"])  # the deal the server revealed is a real one

    status, out, _ = simon("daily", "--suits", "1", "--json")
    assert json.loads(out)["deals"][0] == {"suits": 1, "started": True, "finished": True}

    status, out, _ = simon(
        "leaderboard", "--suits", "1", "--board", "bots", "--top", "100", "--json"
    )
    assert status == 0
    page = json.loads(out)
    mine = [row for row in page["rows"] if row["player"] == name]
    assert page["board"] == "bots" and all(row["bot"] for row in page["rows"])
    assert mine and mine[0]["rank"] == result["rank"] and mine[0]["removed"] == 4

    status, out, _ = simon("leaderboard", "--suits", "1", "--top", "100", "--json")
    assert name not in [row["player"] for row in json.loads(out)["rows"]]  # not the humans'

    status, out, _ = simon("leaderboard", "--suits", "1", "--board", "bots", "--top", "5")
    assert status == 0
    title = out.splitlines()[0]
    assert " · 1 suit · bots · " in title and f"BOT {name}" in out

    status, out, _ = simon(
        "leaderboard", "--suits", "1", "--board", "bots", "--around-me", "--json"
    )
    assert status == 0
    assert json.loads(out)["rank"] == result["rank"]

    status, out, _ = simon("history", "--json")
    assert status == 0
    [game] = json.loads(out)["games"]
    assert game["won"] and game["code"] is None  # today's code stays secret till the day ends


def test_bot_mode_stops_at_a_refused_move_with_its_rule(simon: Any) -> None:
    assert simon("register", new_name())[0] == 0
    code = "SS1-S4-AAAAABD"  # 3-4 is legal, then 1-2 is not
    status, out, _ = simon("play", "--code", code, "--moves", "3-4 1-2 9-1", "--json")
    assert status == 1
    result = json.loads(out)
    assert result["moves"] == 1 and result["won"] is False
    assert result["refused"]["index"] == 1
    assert result["refused"]["move"] == "1-2"
    assert result["refused"]["rule"] == "target-not-one-higher"


def test_after_a_solved_daily_stats_replay_review_and_report(
    simon: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = new_name()
    assert simon("register", name, "--bot")[0] == 0
    ready_daily(simon, 1)
    status, out, err = simon("play", "--daily", "--suits", "1", "--solve", "--json")
    assert status == 0, out + err
    result = json.loads(out)
    game = result["game"]
    assert result["streak"]["current"] == 1 and result["code"] not in result["share"]
    assert 0 < result["percentile"] <= 100

    status, out, err = simon("stats", "--json")
    assert status == 0, err
    assert json.loads(out)["streak"] == {"current": 1, "best": 1}
    status, out, _ = simon("stats")
    assert "days in a row with a daily: 1 (best 1)" in out
    status, out, err = simon("stats", "--today", "--suits", "1", "--board", "bots", name, "--json")
    assert status == 0, err
    day = json.loads(out)
    assert day["won"] >= 1 and day["you"]["player"] == name
    status, out, _ = simon("stats", "--today", "--suits", "1", "--board", "bots", name)
    assert "◀ you" in out

    status, out, err = simon("replay", "--game", game, "--json")  # the owner's, today
    assert status == 0, err
    replay = json.loads(out)
    assert replay["code"] == result["code"] and replay["moves"][-1]["action"] == "won"
    status, out, _ = simon("replay", "--game", game)  # not a terminal: every step, the end
    assert out.splitlines()[1] == "the deal" and out.count("\n") > result["moves"]
    with monkeypatch.context() as keyboard:  # typed at a terminal, read by a pipe (`| head`)
        keyboard.setattr(sys, "stdin", _Terminal(sys.stdin))
        assert simon("replay", "--game", game) == (0, out, "")  # the same, and no prompt

    status, out, _ = simon("review", game, "--json")  # a daily: once its day is over
    assert status == 1 and json.loads(out)["error"]["code"] == "not-visible"
    status, out, _ = simon("report", game, "looks odd", "--json")
    assert status == 1 and json.loads(out)["error"]["code"] == "not-visible"

    status, out, err = simon("play", "--code", "SS1-S1-AAAAABD", "--solve", "--json")
    assert status == 0, err
    practice = json.loads(out)["game"]
    status, out, err = simon("review", practice, "--json")
    assert status == 0, err
    # said at once, then when done (on stderr: stdout is the review's JSON)
    assert err.startswith("Asking the solver…\n") and "The solver is done (" in err
    review = json.loads(out)
    assert review["won"] and review["positions"][-1]["distance"] == 0
    status, out, _ = simon("review", practice)
    assert out.startswith("won in ")


def test_around_me_with_no_result_today_says_so_at_once(simon: Any) -> None:
    """The ``rank`` reply of a player with no result leaves ``rank`` out: the client reads
    it (it used to drop it and wait for the timeout) and says there is no rank."""
    name = new_name()
    assert simon("register", name)[0] == 0
    status, out, err = simon("leaderboard", "--suits", "2", "--around-me")
    assert (status, err) == (0, ""), err
    assert f"{name}: no result, " in " ".join(out.split())  # the title, however wrapped
    status, out, err = simon("leaderboard", "--suits", "2", "--around-me", "--json")
    assert status == 0, err
    ranked = json.loads(out)
    assert ranked["rank"] is None and ranked["around"] == [] and ranked["total"] >= 0


def test_a_person_and_a_bot_on_one_machine_keep_both_accounts(simon: Any) -> None:
    alice, robo = new_name(), new_name()
    assert simon("register", alice)[0] == 0
    status, out, err = simon("register", robo, "--bot")
    assert status == 0, err
    assert f"also kept here: {alice}" in out  # the person's token was not dropped
    status, out, _ = simon("accounts")
    assert status == 0
    assert f"  {alice}" in out and f"* BOT {robo}" in out
    assert json.loads(simon("whoami", "--json")[1])["player"] == robo
    assert json.loads(simon("--as", alice, "whoami", "--json")[1])["player"] == alice
    assert json.loads(simon("whoami", "--as", alice, "--json")[1])["player"] == alice
    status, out, err = simon("daily", "--as", "nobody")
    assert status == 1 and "kept: " in err and alice in err
    assert simon("use", alice)[0] == 0
    assert json.loads(simon("whoami", "--json")[1])["player"] == alice
    status, out, _ = simon("--json", "accounts")
    assert json.loads(out)["current"] == alice
    assert [a["player"] for a in json.loads(out)["accounts"]] == sorted([alice, robo])
    status, _, err = simon("use", "nobody")
    assert status == 2 and "simon register NAME" in err
    status, out, err = simon("register", alice)  # taken: the kept token stays
    assert status == 1 and json.loads(simon("whoami", "--json")[1])["player"] == alice


def test_login_token_on_a_second_machine_takes_the_token_from_stdin(
    simon: Any, server_url: str, tmp_path: Path
) -> None:
    name = new_name()
    assert simon("register", name)[0] == 0
    status, token, _ = simon("token")
    assert status == 0 and token.strip()
    other = tmp_path / "second-machine"
    env = {**os.environ, "SIMON_CONFIG_DIR": str(other), "SIMON_SERVER": server_url}

    def second(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "client_cli.main", *argv],
            input=stdin,
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=60,
        )

    done = second("login", "--token", stdin="not-a-token\n")
    assert done.returncode == 1 and not (other / "config.json").exists()
    done = second("login", "--token", stdin=token)
    assert done.returncode == 0, done.stderr
    assert f"Logged in as {name}" in done.stdout and token.strip() not in done.stdout
    assert stat.S_IMODE((other / "config.json").stat().st_mode) == 0o600
    done = second("whoami", "--json")
    assert json.loads(done.stdout)["player"] == name


def test_an_older_one_account_config_keeps_working_and_learns_its_bot(
    simon: Any, server_url: str, tmp_path: Path
) -> None:
    name = new_name()
    assert simon("register", name, "--bot")[0] == 0
    path = tmp_path / "config" / "config.json"
    token = json.loads(path.read_text())["accounts"][server_url]["players"][name]["token"]
    old = {"accounts": {server_url: {"name": name, "token": token}}}  # an older client's
    path.write_text(json.dumps(old))
    assert json.loads(simon("whoami", "--json")[1])["player"] == name  # migrated, token kept
    status, out, _ = simon("accounts")
    assert status == 0 and f"* BOT {name}" in out


def test_a_new_account_has_no_games_yet_and_no_account_may_still_see_the_deals(
    simon: Any,
) -> None:
    status, out, err = simon("daily", "--suits", "1")  # no account kept: may wait
    assert status == 0, err
    assert "  1 suit   ready to play\n" in out
    assert "No account here: `simon register NAME` to play" in out
    name = new_name()
    assert simon("register", name)[0] == 0
    status, out, _ = simon("daily", "--suits", "1")
    assert "  1 suit   not started\n" in out and "No account here" not in out
    status, out, err = simon("history")
    assert (status, out, err) == (0, f"{name}: no games yet\n", "")
    status, out, _ = simon("history", "--json")
    assert status == 0 and json.loads(out)["games"] == []


def test_stats_of_a_day_from_a_bot_look_at_the_bots_board_as_leaderboard_does(
    simon: Any,
) -> None:
    assert simon("register", new_name())[0] == 0
    status, out, _ = simon("stats", "--today", "--suits", "1", "--json")
    assert status == 0 and json.loads(out)["board"] == "humans"
    assert simon("register", new_name(), "--bot")[0] == 0
    status, out, _ = simon("stats", "--today", "--suits", "1", "--json")
    assert status == 0 and json.loads(out)["board"] == "bots"
    status, out, _ = simon("stats", "--today", "--suits", "1")
    assert status == 0 and " · 1 suit · bots: " in out
    status, out, _ = simon("stats", "--today", "--suits", "1", "--board", "humans", "--json")
    assert json.loads(out)["board"] == "humans"  # --board still names another
    status, out, _ = simon("leaderboard", "--around-me", "--suits", "1", "--json")
    assert json.loads(out)["board"] == "bots"  # the same rule
