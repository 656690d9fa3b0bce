"""``simon deal`` and ``simon replay``, called in-process through ``client_cli.main.main``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from client_cli.main import main
from client_cli.ui.cards import card_label
from server.engine import Game

CODE = "SS1-S4-AAAAABD"
LAST_SPADES = "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S\nAS\n" + "\n" * 8


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line_error(err: str, *words: str) -> None:
    assert err.startswith("simon: ")
    assert err.count("\n") == 1
    assert "Traceback" not in err
    for word in words:
        assert word in err


def test_deal_prints_the_board_as_the_play_screen_shows_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(capsys, "deal", CODE)
    assert (status, err) == (0, "")
    game = Game.from_code(CODE)
    title, numbers, *rows = out.splitlines()
    assert title == f"{CODE}  4 suits"
    assert numbers.split() == [str(n) for n in range(1, 11)]  # numbered columns
    for index in (0, 9):  # each column reads down, deepest card first, suits as symbols
        cells = [row[index * 5 : index * 5 + 5].strip() for row in rows]
        assert [cell for cell in cells if cell] == [card_label(c) for c in game.column(index)]
    assert rows[0].split()[0] == "8♦" and len(rows) == max(map(len, game.columns))
    assert all(line == line.rstrip() for line in out.splitlines())
    status, out, _ = run(capsys, "deal", CODE, "--letters")
    assert out.splitlines()[2].split()[0] == "8D"


def test_replay_prints_the_final_board_and_counts_in_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "replay", CODE, "--moves", "3-4")
    assert status == 0
    numbers, *rows, summary = out.splitlines()
    assert numbers.split()[-1] == "10" and rows[7].split()[-1] == "2♦"  # 2♦ now on column 4
    assert summary == "not won: 1 move, score 499, 0 runs removed"


def test_deal_json_reports_the_fresh_game(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "deal", "ss1-s2-qwertyu", "--json")
    assert status == 0
    assert json.loads(out) == {
        "code": "SS1-S2-QWERTYU",
        "suits": 2,
        "won": False,
        "moves": 0,
        "score": 500,
        "removed": 0,
        "removed_suits": [],
        "board": Game.from_code("SS1-S2-QWERTYU").board_text(),
    }


def legal_texts(code: str, count: int) -> tuple[list[str], Game]:
    game = Game.from_code(code)
    texts = [game.push(next(game.legal_moves())).text() for _ in range(count)]
    return texts, game


def test_replay_json_reports_the_game_after_the_moves(capsys: pytest.CaptureFixture[str]) -> None:
    texts, game = legal_texts(CODE, 6)
    status, out, err = run(capsys, "replay", CODE, "--moves", " ".join(texts), "--json")
    assert (status, err) == (0, "")
    result = json.loads(out)
    assert "refused" not in result
    assert (result["won"], result["moves"], result["score"], result["removed"]) == (
        False,
        6,
        494,
        0,
    )
    assert result["board"] == game.board_text()


def test_replay_refusal_gives_index_move_rule_message_and_exit_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    texts, game = legal_texts(CODE, 3)
    moves = ", ".join([*texts, "4-4", "1-2"])
    status, out, err = run(capsys, "replay", CODE, "--moves", moves, "--json")
    assert (status, err) == (1, "")
    result = json.loads(out)
    assert result["refused"] == {
        "index": 3,
        "move": "4-4",
        "rule": "same-column",
        "message": "A card must move to another column.",
    }
    assert (result["moves"], result["score"], result["board"]) == (3, 497, game.board_text())


def test_replay_names_the_rank_when_the_rank_is_what_is_wrong(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # after 1-4, column 4 ends ... 4S QC 3H 3C 2C and column 5 ends 7H: a 6 five deep
    # would go, but that card is a 4: the 2C does not go on the 7H (nor does any group)
    status, out, _ = run(capsys, "replay", CODE, "--moves", "1-4 4-5", "--json")
    assert status == 1
    assert json.loads(out)["refused"]["rule"] == "target-not-one-higher"


def test_replay_text_output_names_the_refused_move(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "replay", CODE, "--moves", "4-4")
    assert status == 1
    assert out.endswith(
        "not won: 0 moves, score 500, 0 runs removed\n"
        "move 1 (4-4) refused: A card must move to another column. [same-column]\n"
    )


def test_replay_that_wins_reports_won_and_the_score(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    board = tmp_path / "last-run.txt"
    board.write_text(LAST_SPADES, encoding="utf-8")
    status, out, _ = run(capsys, "replay", "--board", str(board), "--moves", "2-1", "--json")
    result = json.loads(out)
    assert status == 0
    # Only spades are left, so the smallest pack that fits, 1 suit, is inferred.
    assert (result["won"], result["moves"], result["score"], result["removed"]) == (
        True,
        1,
        899,
        4,
    )
    assert (result["suits"], result["removed_suits"], result["board"]) == (1, ["S"] * 4, "\n" * 10)
    args = ["replay", "--board", str(board), "--suits", "4", "--moves", "2-1", "--json"]
    status, out, _ = run(capsys, *args)
    result = json.loads(out)
    assert (result["suits"], result["removed_suits"], result["score"]) == (4, list("HDCS"), 899)


def test_replay_reads_the_board_from_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(Game.from_code(CODE).board_text()))
    status, out, _ = run(capsys, "replay", "--board", "-", "--moves", "", "--json")
    result = json.loads(out)
    assert status == 0
    assert (result["code"], result["suits"], result["board"]) == (
        None,
        4,
        Game.from_code(CODE).board_text(),
    )


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["deal", "SS1-S3-AAAAAAA"], ["S3 is not a suit count"]),
        (["deal", "SS1-S4-AAAAAA"], ["7 letters", "has 6"]),
        (["deal", ""], ["is not a game code"]),
        (["replay", "XX1-S4-AAAAAAA", "--moves", "1-2"], ["unknown code format"]),
        (["replay", CODE, "--moves", "1-2 3-7x 4-5"], ["'3-7x' is not a move"]),
        (["replay", CODE, "--moves", "1-111"], ["'1-111' is not a move"]),
    ],
)
def test_bad_input_gives_one_line_on_stderr_and_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], words: list[str]
) -> None:
    status, out, err = run(capsys, *args)
    assert (status, out) == (2, "")
    assert_one_line_error(err, *words)


def test_unreadable_board_file_gives_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = tmp_path / "missing.txt"
    status, out, err = run(capsys, "replay", "--board", str(missing), "--moves", "1-2")
    assert (status, out) == (2, "")
    assert_one_line_error(err, "cannot read", "missing.txt")
    status, out, err = run(capsys, "replay", "--board", str(tmp_path), "--moves", "1-2")
    assert (status, out) == (2, "")
    assert_one_line_error(err, "cannot read")


def test_board_file_with_a_bad_board_gives_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    board = tmp_path / "bad.txt"
    board.write_text(Game.from_code(CODE).board_text().replace("5D", "5X"), encoding="utf-8")
    status, out, err = run(capsys, "replay", "--board", str(board), "--moves", "1-2")
    assert (status, out) == (2, "")
    assert_one_line_error(err, "'5X' is not a card")


def test_board_file_that_is_not_utf8_gives_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    board = tmp_path / "binary.txt"
    board.write_bytes(b"\xff\xfe\x00junk")
    status, out, err = run(capsys, "replay", "--board", str(board), "--moves", "1-2")
    assert (status, out) == (2, "")
    assert_one_line_error(err)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["solve"], "simon: one of the arguments code --board is required\n"),
        (
            ["solve", CODE, "--board", "-"],
            "simon: argument --board: not allowed with argument code\n",
        ),
        (
            ["replay", "--moves", "1-2"],
            "simon: give a game code or --board FILE to play the moves on\n",
        ),
        (["replay"], "simon: give --moves MOVES with a code or --board FILE, or --game ID\n"),
        (["replay", CODE], "simon: give --moves MOVES with a code or --board FILE, or --game ID\n"),
        (["replay", CODE, "--board", "-", "--moves", "1-2"], "not allowed with argument code\n"),
        (["replay", "--game", "g1", "--moves", "1-2"], "leave out CODE, --board, --moves\n"),
    ],
)
def test_a_game_given_twice_or_not_at_all_is_refused_with_the_usage(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert err.startswith(f"usage: simon {argv[0]} ") and err.endswith(said)
    assert "not both" not in err or "--board" in argv  # "not both" only when both were given
    status, out, err = run(capsys, "--json", *argv)
    assert (status, err) == (2, "")
    error = json.loads(out)["error"]
    assert error["code"] == "usage" and said.removeprefix("simon: ").rstrip() in error["message"]
