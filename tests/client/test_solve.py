"""``simon solve``: JSON fields, human output, and bad input (one line, exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from client_cli.main import main
from server.engine import Game

NEARLY_WON = "\n".join(
    [" ".join(f"{r}{s}" for r in "KQJT98765432") for s in "SHDC"] + ["AS", "AH", "AD", "AC"]
)


def test_json_for_a_code(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "SS1-S1-AAAAABD", "--json", "--budget", "6000"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["solvable"] is True
    assert result["code"] == "SS1-S1-AAAAABD"
    assert isinstance(result["nodes"], int) and result["nodes"] > 0
    assert isinstance(result["seconds"], float)
    assert all("x" in move for move in result["moves"])  # counts always explicit
    game = Game.from_code("SS1-S1-AAAAABD")
    for move in result["moves"]:
        game.play(move)
    assert game.is_won


def test_json_for_a_board_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = tmp_path / "board.txt"
    board.write_text(NEARLY_WON)
    assert main(["solve", "--board", str(board), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["solvable"] is True
    assert result["moves"] == ["5-1x1", "6-2x1", "7-3x1", "8-4x1"]


def test_unknown_is_null(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "SS1-S4-AAAAABD", "--json", "--budget", "20"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["solvable"] is None
    assert result["moves"] == []


def test_unwinnable_is_false(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "SS1-S4-AAAAAAP", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["solvable"] is False


def test_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "SS1-S1-AAAAABD", "--budget", "6000"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("winnable in ")
    assert "positions searched" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "SS1-S9-AAAAAAA"],
        ["solve", "nonsense"],
        ["solve", "--board", "/nonexistent/board.txt"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("simon: ")
    assert "Traceback" not in err


def test_bad_board_text_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    board = tmp_path / "board.txt"
    board.write_text("AS AS ZZ\n")
    assert main(["solve", "--board", str(board)]) == 2
    assert capsys.readouterr().err.startswith("simon: ")


@pytest.mark.parametrize("budget", ["0", "many"])
def test_bad_budget_exits_2(budget: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["solve", "SS1-S4-AAAAAAA", "--budget", budget]) == 2
    err = capsys.readouterr().err
    assert "--budget" in err.splitlines()[-1]
    assert "Traceback" not in err
