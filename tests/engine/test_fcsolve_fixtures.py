"""Freecell Solver's solutions, expanded into our single moves, replay to a win with the engine.

The fixtures come from bench/make_fcs_fixtures.py (the command is in the file);
fc-solve itself is not needed here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from server.engine import Game, parse_moves

FIXTURES = Path(__file__).parent.parent / "fixtures" / "fcsolve_solutions.json"
DOCUMENT: dict[str, Any] = json.loads(FIXTURES.read_text())
SOLVED = [deal for deal in DOCUMENT["deals"] if deal["solved"]]


def test_fixtures_say_how_they_were_made() -> None:
    assert DOCUMENT["command"].startswith("python -m bench.make_fcs_fixtures")
    assert len(SOLVED) >= 20


@pytest.mark.parametrize("deal", SOLVED, ids=[deal["name"] for deal in SOLVED])
def test_expanded_solution_wins(deal: dict[str, Any]) -> None:
    game = Game.from_code(deal["code"]) if deal["code"] else Game.from_board(deal["board"])
    assert game.board_text() == deal["board"]
    moves = parse_moves(deal["moves"])
    assert len(moves) == deal["length"] >= deal["fcsolve_moves"]
    for move in moves:
        assert move.count is not None  # counts always explicit
        game.push(move)
    assert game.is_won
    assert len(game.removed) == 4
    assert game.score == 900 - len(moves)
