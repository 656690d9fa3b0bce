"""The engine, through ``simon replay --json``, agrees with an independent reading of the rules.

Random games mix legal moves with random ``FROM-TO[xN]`` text, many of them illegal.
The reference (tests/engine/reference_rules.py) judges every move from docs/rules.md
alone; the engine must accept exactly the same moves, refuse the rest at the same
index with a rule the move really breaks, and end on the same board and score.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from client_cli.main import main
from server.engine import Game, Move
from tests.engine.positions import near_solved_board
from tests.engine.reference_rules import ReferenceGame, Verdict, read_move

ROOT = Path(__file__).resolve().parents[2]
STEPS = 60
REFUSALS_CHECKED_PER_GAME = 8


def run_cli(args: list[str]) -> tuple[int, str, str]:
    """``simon ARGS`` in this process: exit status, standard output, standard error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(args)
    return status, out.getvalue(), err.getvalue()


def replay(game_args: list[str], moves: list[str]) -> tuple[int, dict[str, Any]]:
    status, out, err = run_cli(["replay", *game_args, "--moves", " ".join(moves), "--json"])
    assert err == ""
    return status, json.loads(out)


def random_text(rng: random.Random, reference: ReferenceGame) -> str:
    """A move: often a legal one (same-suit landings preferred), often random text."""
    if rng.random() < 0.45:
        source, target = rng.randint(1, 10), rng.randint(1, 10)
        if rng.random() < 0.5:
            return f"{source}-{target}"
        return f"{source}-{target}x{rng.randint(1, 14)}"
    legal = reference.legal_moves()
    if not legal:
        return f"{rng.randint(1, 10)}-{rng.randint(1, 10)}"

    def same_suit(move: tuple[int, int, int]) -> bool:
        source, target, count = move
        destination = reference.columns[target]
        return bool(destination) and destination[-1][1] == reference.columns[source][-count][1]

    # Same-suit landings build runs, so games reach removals and the win.
    preferred = [m for m in legal if same_suit(m)]
    source, target, count = rng.choice(preferred if preferred and rng.random() < 0.8 else legal)
    if reference.judge(source, target, None).count == count and rng.random() < 0.5:
        return f"{source + 1}-{target + 1}"
    return f"{source + 1}-{target + 1}x{count}"


def state_of(reference: ReferenceGame) -> dict[str, Any]:
    return {
        "board": reference.text(),
        "moves": reference.moves,
        "score": reference.score,
        "removed": len(reference.removed),
        "won": reference.won,
    }


def engine_state(result: dict[str, Any]) -> dict[str, Any]:
    return {key: result[key] for key in ("board", "moves", "score", "removed", "won")}


def check_refusal(
    game_args: list[str], accepted: list[str], text: str, verdict: Verdict, expected: dict[str, Any]
) -> None:
    status, result = replay(game_args, [*accepted, text])
    assert status == 1, text
    refused = result["refused"]
    assert refused["index"] == len(accepted)
    assert refused["move"] == text
    assert refused["rule"] in verdict.rules, (text, refused, verdict.rules)
    assert refused["message"]
    assert engine_state(result) == expected


def play_and_compare(game_args: list[str], start: str, seed: int) -> dict[str, Any]:
    """Play one random game through the reference, the engine and the CLI; return the end."""
    rng = random.Random(seed)
    reference = ReferenceGame.from_text(start, 0)
    engine = Game.from_board(start) if game_args[0] == "--board" else Game.from_code(game_args[0])
    accepted: list[str] = []
    refusals_checked = 0
    for step in range(STEPS):
        if step % 10 == 0:
            legal = {(m.source, m.target, m.count) for m in engine.legal_moves()}
            assert legal == set(reference.legal_moves())
        text = random_text(rng, reference)
        before = state_of(reference)
        verdict = reference.judge(*read_move(text))
        assert engine.is_legal(Move.from_text(text)) == verdict.legal, (text, reference.text())
        if verdict.legal:
            reference.play_text(text)
            assert engine.play(text).count == verdict.count
            accepted.append(text)
            assert engine.board_text() == reference.text()
            assert (engine.score, len(engine.removed)) == (reference.score, len(reference.removed))
        elif refusals_checked < REFUSALS_CHECKED_PER_GAME:
            refusals_checked += 1
            check_refusal(game_args, accepted, text, verdict, before)
    status, result = replay(game_args, accepted)
    assert status == 0
    assert "refused" not in result
    assert engine_state(result) == state_of(reference)
    if game_args[0] != "--board":
        assert result["removed_suits"] == reference.removed
    return {"accepted": accepted, "result": result}


def deal(code: str) -> str:
    """The board text of a code, as ``simon deal --json`` gives it to programs."""
    status, out, err = run_cli(["deal", code, "--json"])
    assert (status, err) == (0, "")
    return str(json.loads(out)["board"])


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("suits", [1, 2, 4])
def test_engine_and_reference_agree_on_random_games_from_codes(suits: int, seed: int) -> None:
    number = random.Random(f"{suits}/{seed}").randrange(26**7)
    code = f"SS1-S{suits}-" + "".join(
        chr(ord("A") + number // 26**i % 26) for i in reversed(range(7))
    )
    play_and_compare([code], deal(code), seed)


@pytest.mark.parametrize("suits", [1, 2, 4])
def test_engine_and_reference_agree_from_a_board_file(suits: int, tmp_path: Path) -> None:
    code = f"SS1-S{suits}-BOARDFI"
    board = tmp_path / "board.txt"
    board.write_text(deal(code), encoding="utf-8")
    played = play_and_compare(["--board", str(board), "--suits", str(suits)], deal(code), 99)
    assert played["result"]["suits"] == suits


def test_engine_and_reference_agree_on_removals_and_wins(tmp_path: Path) -> None:
    removed = wins = 0
    for seed in range(30):
        suits = (1, 2, 4)[seed % 3]
        text = near_solved_board(suits, seed)
        board = tmp_path / f"board{seed}.txt"
        board.write_text(text, encoding="utf-8")
        result = play_and_compare(["--board", str(board)], text, seed)["result"]
        removed += result["removed"]
        wins += result["won"]
    # The comparison only means much if runs really were removed, and games won.
    assert removed >= 20
    assert wins >= 1


@pytest.mark.parametrize("suits", [1, 2, 4])
def test_simon_replay_as_a_real_process_agrees_with_the_reference(suits: int) -> None:
    code = f"SS1-S{suits}-PROCESS"
    played = play_and_compare([code], deal(code), 7)
    moves = [*played["accepted"], "1-1"]  # and a refusal at the end
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "client_cli.main",
            "replay",
            code,
            "--moves",
            " ".join(moves),
            "--json",
        ],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT), "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 1, completed.stderr
    result = json.loads(completed.stdout)
    assert result["refused"]["index"] == len(played["accepted"])
    assert result["refused"]["rule"] == "same-column"
    assert engine_state(result) == engine_state(played["result"])
