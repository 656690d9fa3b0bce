"""``simon register`` and its kin: names refused before the server is asked."""

from __future__ import annotations

import json
from typing import Any

import pytest

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
