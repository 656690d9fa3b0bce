"""The traces of the accounts of :mod:`bench.fairplay.across`: the think times and actions
of a person-like player, and of a cheater following another solver's line at a person's
pace."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from server.engine import Game, Move
from server.play.fairplay.difficulty import choices

from .policy import RESTART, STUCK_BELOW, UNDO, Style, _Player, play_like_a_person
from .thinking import Kind, Pace

TRY_CHANCE: Final = 0.03  # a new-account cheater's moves tried and taken back

Trace = list[tuple[float, str]]


@dataclass(slots=True)
class Account:
    index: int
    population: str
    rng: random.Random
    pace: Pace
    style: Style
    waste: float
    name: str = ""
    token: str = ""
    days: dict[str, dict[str, Any]] = field(default_factory=dict)  # day: its figures


def _follow(choices_count: int) -> float:
    """The think-time scale of a choice among ``choices_count`` (1 at 2 options)."""
    return math.sqrt((1 + choices_count) / 3)


def person(code: str, account: Account, plan_seconds: float) -> Trace:
    rng = account.rng
    played = play_like_a_person(code, rng, account.style, plan_seconds=plan_seconds)
    reader = _Player(Game.from_code(code), rng, account.style, plan_seconds)
    trace = []
    for index, step in enumerate(played.steps):
        kind = "first" if index == 0 else step.kind
        think = account.pace.think(rng, kind)
        if step.action == UNDO:
            reader.game.undo()
        elif step.action == RESTART:
            reader.game.restart()
        else:
            options = sum(1 for value, _ in reader.scored() if value >= STUCK_BELOW)
            think *= _follow(options)
            reader.game.play(step.action)
            reader.seen[reader.game.position_key()] += 1
        trace.append((think, step.action))
    return trace


def cheat(code: str, line: Sequence[str], account: Account, *, patient: bool) -> Trace:
    """Another solver's line at a person's pace: a new-account cheater's (a few tries), or a
    patient one's (think times that follow difficulty, moves wasted on purpose)."""
    rng = account.rng
    game = Game.from_code(code)
    trace: Trace = []

    def act(action: str) -> None:
        kind: Kind = "first" if not trace else "undo" if action == UNDO else "move"
        think = account.pace.think(rng, kind)
        if patient and action != UNDO:
            think *= _follow(choices(game))
        if action == UNDO:
            game.undo()
        else:
            game.play(action)
        trace.append((think, action))

    waste = account.waste if patient else TRY_CHANCE
    for move in line:
        if rng.random() < waste:
            detour = _detour(game, rng)
            if detour is not None:
                act(detour.text())
                back = Move(detour.target, detour.source, detour.count)
                if patient and rng.random() < 0.5 and game.is_legal(back):
                    act(game.resolve(back).text())  # the way back: both moves stand
                else:
                    act(UNDO)
        act(move)
    assert game.is_won
    return trace


def _detour(game: Game, rng: random.Random) -> Move | None:
    """A legal move that neither wins nor empties a column by moving all of it."""
    options = []
    for move in game.legal_moves():
        column = game.column(move.source)
        if not game.column(move.target) and move.count == len(column):
            continue
        game.push(move)
        removed = game.removed_count
        game.undo()
        if removed == game.removed_count:
            options.append(move)
    return rng.choice(options) if options else None
