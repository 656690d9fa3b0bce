"""``simon login`` by a code approved elsewhere (in tmux, against a real server), its expiry
and reuse refused; ``token --rotate``, ``devices``, ``recovery-codes``, ``export`` and
``delete-account``."""

from __future__ import annotations

import asyncio
import io
import json
import re
import shutil
import stat
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import connect

from client_cli.main import main
from server.play.accounts import signins
from tests.support.servers import Client, running_server, server_process, server_settings

ROOT = Path(__file__).resolve().parents[2]
CODE = re.compile(r"approve the code ([A-Z]{4}-[A-Z]{4})")


@pytest.fixture(scope="module")
def server_url(backend: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp(f"credentials-server-{backend.name}")
    with server_process(backend, data) as url:
        yield url


@pytest.fixture
def simon(server_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> Any:
    """``simon(*ARGS, config=NAME, stdin=TEXT)``: run ``simon`` with the config folder NAME
    (a machine of its own); return (status, stdout, stderr)."""
    monkeypatch.setenv("SIMON_SERVER", server_url)

    def run(*argv: str, config: str = "first", stdin: str = "") -> tuple[int, str, str]:
        monkeypatch.setenv("SIMON_CONFIG_DIR", str(tmp_path / config))
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        status = main(list(argv))
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


def new_name() -> str:
    return f"cr{uuid.uuid4().hex[:8]}"


def sign_up(socket: Any, name: str) -> None:
    """Sign ``socket`` (a browser's, say) in as a new account ``name``."""
    socket.send(json.dumps({"type": "hello", "id": 1}))
    assert json.loads(socket.recv(timeout=10))["type"] == "welcome"
    socket.send(json.dumps({"type": "register", "id": 2, "name": name}))
    assert json.loads(socket.recv(timeout=10))["type"] == "registered"


def ask(socket: Any, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message`` and return its reply (pushed messages skipped)."""
    key = uuid.uuid4().hex
    socket.send(json.dumps({**message, "id": key}))
    while True:
        reply: dict[str, Any] = json.loads(socket.recv(timeout=10))
        if reply.get("id") == key:
            return reply


class Tmux:
    """A tmux server of the test's own (its own socket), one window."""

    def __init__(self) -> None:
        self.socket = f"simon-login-{uuid.uuid4().hex[:8]}"

    def __call__(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-u", "-L", self.socket, *args], capture_output=True, text=True, timeout=30
        )
        return done.stdout

    def wait_for(self, pattern: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        shown = ""
        while time.monotonic() < deadline:
            shown = self("capture-pane", "-p", "-J", "-t", "login")
            if re.search(pattern, shown):
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{pattern!r} never showed; the screen:\n{shown}")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_login_shows_a_code_another_device_approves_and_the_terminal_signs_in(
    server_url: str, tmp_path: Path
) -> None:
    name = new_name()
    with connect(server_url) as browser:
        sign_up(browser, name)
        _sign_in_by_code(server_url, tmp_path, browser, name)


def _sign_in_by_code(server_url: str, tmp_path: Path, browser: Any, name: str) -> None:
    config = tmp_path / "terminal"
    env = {"SIMON_CONFIG_DIR": str(config), "SIMON_SERVER": server_url, "LANG": "C.UTF-8"}
    command = " ".join(
        [
            "env",
            *(f"{key}={value}" for key, value in env.items()),
            f"PYTHONPATH={ROOT}",
            sys.executable,
            "-m",
            "client_cli.main",
            "login",
            ";",
            "echo",
            "status=$?",
            ";",
            "sleep",
            "60",
        ]
    )
    tmux = Tmux()
    tmux("new-session", "-d", "-s", "login", "-x", "120", "-y", "30", command)
    try:
        screen = tmux.wait_for(r"Waiting for the approval")
        found = CODE.search(screen)
        assert found is not None, screen
        code = found.group(1)
        assert f"{server_url.replace('ws://', 'http://')}/play?code={code}" in screen
        looked = ask(browser, {"type": "device_lookup", "user_code": code})
        assert looked["type"] == "device_request" and looked["device"].startswith("simon on ")
        approved = ask(browser, {"type": "device_approve", "user_code": code})
        assert approved == {**approved, "type": "device_approved", "approved": True}
        screen = tmux.wait_for(r"status=\d+")
        assert f"Logged in as {name} on {server_url}" in screen and "status=0" in screen
    finally:
        tmux("kill-server")
    assert stat.S_IMODE((config / "config.json").stat().st_mode) == 0o600
    done = subprocess.run(
        [sys.executable, "-m", "client_cli.main", "whoami", "--json"],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        cwd=ROOT,
        timeout=60,
    )
    assert json.loads(done.stdout)["player"] == name, done.stderr
    # the terminal has a credential of its own, beside the browser's
    kept = json.loads((config / "config.json").read_text())["accounts"][server_url]
    token = kept["players"][name]["token"]
    with connect(server_url) as socket:
        ask(socket, {"type": "hello"})
        assert ask(socket, {"type": "auth", "token": token})["type"] == "authenticated"
        devices = ask(socket, {"type": "devices"})
    kinds = sorted(c["kind"] for c in devices["credentials"])
    assert kinds == ["registration", "terminal"]


async def test_a_code_not_approved_in_time_expires_and_a_spent_one_is_refused(
    backend: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: Any
) -> None:
    monkeypatch.setattr(signins, "DEVICE_CODE_SECONDS", 1)
    monkeypatch.setenv("SIMON_CONFIG_DIR", str(tmp_path / "config"))
    async with running_server(server_settings(backend)) as url:
        status = await asyncio.to_thread(main, ["login", "--server", url])
        out, err = capsys.readouterr()
        assert status == 1 and "Waiting for the approval" in out
        assert re.search(r"the code [A-Z]{4}-[A-Z]{4} expired before it was approved", err), err
        assert not (tmp_path / "config" / "config.json").exists()
        status = await asyncio.to_thread(main, ["login", "--server", url, "--json"])
        out, err = capsys.readouterr()
        assert status == 1 and "Waiting for the approval" in err  # the code, on stderr
        assert json.loads(out)["error"]["code"] == "expired-token"

        monkeypatch.setattr(signins, "DEVICE_CODE_SECONDS", 600)
        async with Client.connect(url) as browser, Client.connect(url) as terminal:
            await browser.request({"type": "hello"})
            await browser.request({"type": "register", "name": new_name()})
            await terminal.request({"type": "hello"})
            asked = await terminal.request({"type": "device_code", "device": "simon on test"})
            approved = await browser.request(
                {"type": "device_approve", "user_code": asked["user_code"]}
            )
            assert approved["approved"] is True
            poll = {"type": "device_token", "device_code": asked["device_code"]}
            assert (await terminal.request(poll))["type"] == "signed_in"
            await asyncio.sleep(asked["interval"])  # on time: not a slow-down
            again = await terminal.request(poll)
            assert again == {**again, "type": "error", "code": "expired-token"}


async def test_a_refused_code_stops_the_login(
    backend: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: Any
) -> None:
    monkeypatch.setenv("SIMON_CONFIG_DIR", str(tmp_path / "config"))
    async with running_server(server_settings(backend)) as url:
        login = asyncio.create_task(asyncio.to_thread(main, ["login", "--server", url]))
        async with Client.connect(url) as browser:
            await browser.request({"type": "hello"})
            await browser.request({"type": "register", "name": new_name()})
            out = ""
            for _ in range(100):
                await asyncio.sleep(0.1)
                out += capsys.readouterr().out
                if CODE.search(out):
                    break
            found = CODE.search(out)
            assert found is not None, out
            await browser.request(
                {"type": "device_approve", "user_code": found.group(1), "approve": False}
            )
        assert await login == 1
        assert "was refused: no account was kept" in capsys.readouterr().err


def test_rotate_replaces_the_token_and_the_old_one_is_refused(simon: Any) -> None:
    name = new_name()
    assert simon("register", name)[0] == 0
    old = simon("token")[1].strip()
    status, out, err = simon("token", "--rotate")
    assert status == 0, err
    assert f"{name} on " in out and "the old one is refused" in out and old not in out
    new = simon("token")[1].strip()
    assert new and new != old
    assert json.loads(simon("whoami", "--json")[1])["player"] == name  # the new one works
    status, out, _ = simon("login", "--token", "--json", config="second")  # no stdin: empty
    assert status == 2
    status, out, _ = simon("login", "--token", "--json", config="second", stdin=old)
    assert status == 1 and json.loads(out)["error"]["code"] == "bad-token"


def test_devices_lists_the_places_and_revokes_one_others_or_this_one(simon: Any) -> None:
    name = new_name()
    assert simon("register", name)[0] == 0
    status, out, err = simon("recovery-codes")
    assert status == 0, err
    codes = re.findall(r"^    (\S+)$", out, re.MULTILINE)
    assert len(codes) == 10 and "shown only this once" in out
    status, out, err = simon("login", "--recovery-code", codes[0], config="second")
    assert status == 0 and f"Logged in as {name}" in out, err
    assert simon("login", "--recovery-code", codes[0], config="third")[0] == 1  # spent
    assert simon("login", "--recovery-code", codes[1], config="third")[0] == 0

    status, out, err = simon("devices")
    assert status == 0, err
    assert f"Where {name} is signed in" in out and "8 recovery codes left." in out, out
    found = json.loads(simon("devices", "--json")[1])
    assert [c["kind"] for c in found["credentials"]].count("recovery") == 2
    [here] = [c for c in found["credentials"] if c["current"]]
    assert here["kind"] == "registration"
    second = json.loads(simon("devices", "--json", config="second")[1])
    [there] = [c for c in second["credentials"] if c["current"]]

    status, out, err = simon("devices", "--revoke", str(there["id"]))
    assert status == 0 and "Signed out " in out, err
    status, out, _ = simon("whoami", "--json", config="second")
    assert status == 1 and json.loads(out)["error"]["code"] == "bad-token"
    assert simon("devices", "--revoke", "999999999", "--json")[0] == 2

    status, out, err = simon("devices", "--others")
    assert (status, err) == (0, ""), err
    assert "Signed out 1 other place." in out
    assert simon("whoami", config="third")[0] == 1
    assert len(json.loads(simon("devices", "--json")[1])["credentials"]) == 1

    status, out, err = simon("devices", "--revoke", str(here["id"]))  # this terminal
    assert status == 0 and "Signed out here" in out, err
    assert simon("whoami", "--json")[0] == 1
    assert simon("accounts", "--json")[1].count(name) == 0  # no longer kept


def test_export_holds_every_game_and_delete_account_removes_it(
    simon: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = new_name()
    assert simon("register", name, "--bot")[0] == 0
    games = set()
    for code in ("SS1-S1-AAAAABD", "SS1-S1-AAAAABE"):
        status, out, err = simon("play", "--code", code, "--solve", "--json")
        assert status == 0, err
        games.add(json.loads(out)["game"])
    monkeypatch.chdir(tmp_path)
    status, out, err = simon("export")
    assert status == 0, err
    path = tmp_path / f"simon-{name}-data.json"
    assert f"Wrote simon-{name}-data.json" in out and "with its 2 games." in out
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = json.loads(path.read_text())
    assert {str(game["id"]) for game in data["games"]} == games
    assert all(game["actions"] for game in data["games"])
    status, out, err = simon("export", "-o", "mine.json", "--json")
    assert status == 0, err
    assert json.loads(out) == {**json.loads(out), "games": 2, "path": "mine.json"}

    token = simon("token")[1].strip()
    status, out, err = simon("delete-account")  # no terminal, no --confirm
    assert status == 2 and "--confirm" in err
    status, out, err = simon("delete-account", "--confirm", "someone")
    assert status == 2 and "nothing was deleted" in err
    assert json.loads(simon("whoami", "--json")[1])["player"] == name
    status, out, err = simon("delete-account", "--confirm", name)
    assert status == 0, err
    anonymous = re.search(r"as (#\w+)", out)
    assert anonymous is not None and f"Deleted the account {name}" in out
    assert simon("whoami", "--json")[0] == 1  # forgotten here
    status, out, _ = simon("login", "--token", "--json", config="second", stdin=token)
    assert status == 1 and json.loads(out)["error"]["code"] == "bad-token"
