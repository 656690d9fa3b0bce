"""The three populations' traces: what each synthetic player sends, and after how long.

A trace is a list of ``(seconds, action)``: the think time before each decision (from the
``state`` that answers ``start`` for the first one) and the action (a move with its count
explicit, ``undo`` or ``restart``). The bench advances the server's clock by each think time
before sending the action.

- ``machine``: the solver's solution of the daily deal at machine speed (20 to 150 ms a
  move: a program's own latency);
- ``paced``: the same solution, each move after a person's think time
  (:class:`~bench.fairplay.thinking.Pace`);
- ``human``: a person's own path to the win (:mod:`bench.fairplay.policy`), with the same
  think-time model, its decisions of every kind timed by their kind.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from .policy import Played, play_like_a_person
from .thinking import Pace

POPULATIONS: Final = ("machine", "paced", "human")
MACHINE_LATENCY: Final = (0.02, 0.15)  # seconds

Trace = list[tuple[float, str]]


@dataclass(slots=True)
class Plan:
    """One synthetic player's trace, and how it was made."""

    trace: Trace
    pace: Pace | None = None
    played: Played | None = None
    notes: dict[str, int] = field(default_factory=dict)


def machine(solution: Sequence[str], rng: random.Random) -> Plan:
    return Plan([(rng.uniform(*MACHINE_LATENCY), move) for move in solution])


def paced(solution: Sequence[str], rng: random.Random) -> Plan:
    pace = Pace.draw(rng)
    trace = [
        (pace.think(rng, "first" if index == 0 else "move"), move)
        for index, move in enumerate(solution)
    ]
    return Plan(trace, pace=pace)


def human(code: str, rng: random.Random, *, plan_seconds: float = 2.0) -> Plan:
    pace = Pace.draw(rng)
    played = play_like_a_person(code, rng, plan_seconds=plan_seconds)
    trace = [(pace.think(rng, step.kind), step.action) for step in played.steps]
    return Plan(
        trace,
        pace=pace,
        played=played,
        notes={
            "own_moves": played.own_moves,
            "plan_moves": played.plan_moves,
            "looks": played.looks,
            "undos": played.undos,
            "restarts": played.restarts,
        },
    )


def make_plan(
    population: str, code: str, solution: Sequence[str], rng: random.Random, plan_seconds: float
) -> Plan:
    if population == "machine":
        return machine(solution, rng)
    if population == "paced":
        return paced(solution, rng)
    if population == "human":
        return human(code, rng, plan_seconds=plan_seconds)
    raise ValueError(f"no population {population!r}")


__all__ = ["POPULATIONS", "Plan", "Trace", "human", "machine", "make_plan", "paced"]
