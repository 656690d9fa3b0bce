"""The lower bound behind the proof that the docs' example has no win in 49 moves.

Near the end of known wins the shortest win is found by plain breadth-first search, with
no bound at all: the bound must never exceed it, and the bounded search must find exactly it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.solver.example_bound import bounded, lower_bound
from server.engine import Game
from server.solver.search import UNIT, Columns, canonical, children

FIXTURES = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures/fcsolve_solutions.json").read_text()
)["deals"]
MOVES_BEFORE_THE_END = 4


def shortest_win(start: Columns, limit: int) -> int:
    """Breadth-first over every useful legal move: the length of a shortest win."""
    layer, seen = [start], {canonical(start)}
    for depth in range(1, limit + 1):
        following: list[Columns] = []
        for columns in layer:
            for *_move, new, _delta in children(columns, UNIT):
                if not any(new):
                    return depth
                key = canonical(new)
                if key not in seen:
                    seen.add(key)
                    following.append(new)
        layer = following
    raise AssertionError(f"no win within {limit} moves")


def positions_near_the_end() -> list[tuple[str, Columns]]:
    found: list[tuple[str, Columns]] = []
    for fixture in [deal for deal in FIXTURES if deal["solved"]][:12]:
        game = Game.from_board(fixture["board"])
        for move in fixture["moves"].split()[:-MOVES_BEFORE_THE_END]:
            game.play(move)
        found.append((fixture["name"], tuple(bytes(column) for column in game.columns)))
    return found


@pytest.mark.parametrize(("name", "start"), positions_near_the_end())
def test_bound_never_exceeds_the_shortest_win(name: str, start: Columns) -> None:
    shortest = shortest_win(start, MOVES_BEFORE_THE_END)
    assert lower_bound(start) <= shortest, name
    assert bounded(start, shortest)[0] == shortest
    assert bounded(start, shortest - 1)[0] is None
