"""``simon register`` and its kin: names refused before the server is asked, and the hint
that tells how to switch back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from client_cli.accounts import also_kept
from client_cli.config import Account, Config
from client_cli.main import main

SERVER = "ws://127.0.0.1:1"  # nothing listens there: a name refused never gets that far


@pytest.mark.parametrize("name", ["", " ", "a", "ann b", "ann\x1b[31m", "x" * 25, "x" * 70])
def test_a_bad_name_gives_the_usage_and_one_line(name: str, capsys: Any) -> None:
    assert main(["register", name, "--server", SERVER]) == 2
    out, err = capsys.readouterr()
    usage, said = err.splitlines()[:-1], err.splitlines()[-1]
    assert out == "" and usage[0].startswith("usage: simon register")
    assert said.startswith("simon: argument name: ") and "a name " in said
    assert main(["register", name, "--server", SERVER, "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "usage"


def test_a_bad_name_to_look_up_is_refused_the_same_way(capsys: Any) -> None:
    for command in (["history", "ann b"], ["stats", "ann b"]):
        assert main([*command, "--server", SERVER]) == 2
        assert "a name uses only letters" in capsys.readouterr().err


def test_the_hint_switches_back_to_the_account_current_before(tmp_path: Path) -> None:
    config = Config(tmp_path)
    for name in ("amy", "zed", "bob"):
        config.add_account(SERVER, Account(name, f"token-{name}"))
    config.use(SERVER, "amy")
    before = config.current(SERVER)
    config.add_account(SERVER, Account("new", "token-new"))
    hint = also_kept(config, SERVER, "new", before)
    assert hint == " (also kept here: amy, bob, zed; `simon use amy` switches back)"
    assert also_kept(config, SERVER, "new", None) == " (also kept here: amy, bob, zed)"
    assert also_kept(Config(tmp_path / "empty"), SERVER, "new", None) == ""
