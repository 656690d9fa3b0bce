"""A synthetic person who plays a deal to a win by a path of their own.

The player is a noisy one-move-ahead policy with a person's habits, and a "plan" for the
positions it cannot read:

- **Own moves.** Every legal move is scored the way a player reads the board: a group put on
  its same-suit parent is good, a completed run is very good, emptying a column is good,
  tearing a one-suit run apart or moving a group from one off-suit parent to another is bad,
  and a move back to a position already seen is worse the more often it was seen. Moves
  into an empty column are only considered with the whole movable group, into the leftmost
  empty column (people do not tell empty columns apart). The move is drawn from a softmax
  over the scores at the player's own temperature: strong players almost always take the
  best move, weak ones often a lesser one.
- **Tries.** Now and then (a per-player chance) a move is tried and taken back at once with
  ``undo``: looking at what it would free.
- **Being stuck.** When no move scores as constructive, or after a stretch of own moves,
  the player thinks ahead: the solver is asked, from the player's *own* position, for a
  line (its quick mode, which finds a different line from a different position than the
  daily deal's proof). If the position can be won, the player follows the first few moves
  of that line (3 to 10) and goes back to its own moves; if it cannot (or the solver's
  small budget runs out), the player takes back a few moves (more after each failure) or,
  now and then, restarts the deal. After many decisions the player follows a line to
  the end: every trace is a win.

So the final line is mostly the player's own moves, stitched with short stretches of lines
found from positions the daily's solution never visits.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from typing import Final

from server.engine import Game, Move
from server.engine.cards import rank
from server.solver import Verdict, solve

from .thinking import Kind

UNDO: Final = "undo"
RESTART: Final = "restart"
#: After this many decisions the player follows a solver's line to the end.
PATIENCE: Final = 400
#: The solver's budget for one look ahead (its quick mode needs a few ms on one suit).
PLAN_SECONDS: Final = 2.0
PLAN_NODES: Final = 200_000
#: A best own move scoring under this is no constructive move: time to think ahead.
STUCK_BELOW: Final = 1.0


@dataclass(frozen=True, slots=True)
class Step:
    """One decision: a move with its count explicit (``3-7x2``), ``undo`` or ``restart``,
    and its kind (for the think time before it)."""

    action: str
    kind: Kind


@dataclass(frozen=True, slots=True)
class Style:
    """One player's habits."""

    temperature: float  # of the softmax over move scores: low plays the best move
    try_chance: float  # per own move: a move tried and taken back first
    restart_chance: float  # per failed look ahead (and once early): restart the deal
    stretch: tuple[int, int]  # own moves between looks ahead
    plan: tuple[int, int]  # moves followed from a line found by a look ahead

    @classmethod
    def draw(cls, rng: random.Random) -> Style:
        low = rng.randint(6, 14)
        return cls(
            temperature=rng.uniform(0.35, 1.1),
            try_chance=rng.uniform(0.03, 0.12),
            restart_chance=rng.uniform(0.05, 0.3),
            stretch=(low, low + rng.randint(6, 20)),
            plan=(3, rng.randint(5, 10)),
        )


@dataclass(slots=True)
class Played:
    """What a synthetic person did: the decisions, and how they came about."""

    steps: list[Step]
    own_moves: int = 0  # chosen by the policy (tries included)
    plan_moves: int = 0  # taken from a solver's line from the player's own position
    looks: int = 0  # looks ahead (solver calls)
    restarts: int = 0
    undos: int = 0


def play_like_a_person(
    code: str,
    rng: random.Random,
    style: Style | None = None,
    *,
    patience: int = PATIENCE,
    plan_seconds: float = PLAN_SECONDS,
) -> Played:
    """Play ``code`` to a win the way the module's docstring says; the game is replayed
    with the engine, so every step is legal in turn."""
    style = style or Style.draw(rng)
    player = _Player(Game.from_code(code), rng, style, plan_seconds)
    if rng.random() < style.restart_chance / 2:
        player.own(rng.randint(8, 25))  # a false start, played then restarted
        if not player.game.is_won:
            player.restart()
    failures = 0
    while not player.game.is_won:
        if len(player.played.steps) >= patience:
            player.follow(None)
            break
        player.own(rng.randint(*style.stretch))
        if player.game.is_won:
            break
        line = player.look_ahead()
        if line is not None:
            failures = 0
            player.follow(rng.randint(*style.plan) if len(line) > style.plan[1] else None, line)
            continue
        failures += 1
        if player.game.moves == 0:  # back at the deal: think harder, it can be won
            line = player.look_ahead(plan_seconds * 10)
            if line is None:
                raise ValueError(f"{code} cannot be won (or not within the solver's budget)")
            player.follow(rng.randint(*style.plan), line)
            continue
        if player.game.moves > 10 and rng.random() < style.restart_chance:
            player.restart()
        else:
            for _ in range(min(player.game.moves, rng.randint(1, 3) * failures)):
                player.undo()
    return player.played


class _Player:
    def __init__(self, game: Game, rng: random.Random, style: Style, plan_seconds: float):
        self.game = game
        self.rng = rng
        self.style = style
        self.plan_seconds = plan_seconds
        self.played = Played([])
        self.seen: Counter[tuple[tuple[int, ...], ...]] = Counter([game.position_key()])
        self.freed: int | None = None  # the column whose top the last move uncovered

    # -- decisions ---------------------------------------------------------------------

    def move(self, move: Move, kind: Kind) -> None:
        played = self.game.push(move)
        self.seen[self.game.position_key()] += 1
        self.freed = played.source
        self.played.steps.append(Step(played.text(), kind))

    def undo(self) -> None:
        self.game.undo()
        self.freed = None
        self.played.undos += 1
        self.played.steps.append(Step(UNDO, "undo"))

    def restart(self) -> None:
        self.game.restart()
        self.freed = None
        self.played.restarts += 1
        self.played.steps.append(Step(RESTART, "restart"))

    def first_kind(self, kind: Kind) -> Kind:
        return "first" if not self.played.steps else kind

    # -- own play ----------------------------------------------------------------------

    def own(self, count: int) -> None:
        """Up to ``count`` own moves; stops early when no move is constructive."""
        for _ in range(count):
            if self.game.is_won:
                return
            scored = self.scored()
            if not scored or scored[0][0] < STUCK_BELOW:
                return
            if self.rng.random() < self.style.try_chance:
                tried = self.pick(scored, self.style.temperature * 2, avoid_win=True)
                if tried is not None:
                    self.move(tried, self.first_kind("move"))
                    self.played.own_moves += 1
                    self.undo()
            choice = self.pick(scored, self.style.temperature)
            assert choice is not None
            kind: Kind = "move"
            value = next(value for value, move in scored if move == choice)
            if value >= 8 or (choice.source == self.freed and value >= 3):
                kind = "obvious"  # a run completes, or the card just freed finds its parent
            self.move(choice, self.first_kind(kind))
            self.played.own_moves += 1

    def pick(
        self, scored: list[tuple[float, Move]], temperature: float, *, avoid_win: bool = False
    ) -> Move | None:
        options = [(value, move) for value, move in scored if not (avoid_win and self.wins(move))]
        if not options:
            return None
        top = options[0][0]
        weights = [math.exp((value - top) / temperature) for value, _ in options]
        return self.rng.choices([move for _, move in options], weights)[0]

    def wins(self, move: Move) -> bool:
        self.game.push(move)
        won = self.game.is_won
        self.game.undo()
        return won

    def scored(self) -> list[tuple[float, Move]]:
        """The moves a person would consider, best first, with their value."""
        game = self.game
        columns = game.columns
        first_empty = next((i for i, column in enumerate(columns) if not column), None)
        scored = []
        for move in game.legal_moves():
            source, target, count = move.source, move.target, move.count
            assert count is not None
            column = columns[source]
            run = game.movable_count(source)
            if not columns[target] and (target != first_empty or count != run):
                continue
            if not columns[target] and count == len(column):
                continue  # a whole column into an empty one changes nothing
            head = column[-count]
            below = column[-count - 1] if count < len(column) else None
            value = 0.15 * count
            if columns[target]:
                value += 3.0 if columns[target][-1] == head + 1 else 0.5
            else:
                value += 0.3
            if count < run:
                value -= 4.0  # tears a one-suit run apart
            elif below is None:
                value += 2.0  # empties a column
            elif rank(below) == rank(head) + 1 and not (
                columns[target] and columns[target][-1] == head + 1
            ):
                value -= 2.0  # from one off-suit parent to another
            removed = game.removed_count
            game.push(move)
            if game.removed_count > removed:
                value += 8.0
            value -= 3.0 * self.seen[game.position_key()]
            game.undo()
            scored.append((value, move))
        scored.sort(key=lambda pair: -pair[0])
        return scored

    # -- thinking ahead ----------------------------------------------------------------

    def look_ahead(self, seconds: float | None = None) -> list[Move] | None:
        """A winning line from here (the solver's quick mode, ``seconds`` at most), or None."""
        self.played.looks += 1
        seconds = seconds or self.plan_seconds
        solution = solve(
            self.game,
            max_seconds=seconds,
            max_nodes=int(PLAN_NODES * seconds / self.plan_seconds),
            shorten=False,
        )
        return solution.moves if solution.verdict is Verdict.WINNABLE else None

    def follow(self, count: int | None, line: list[Move] | None = None) -> None:
        """Play ``count`` moves of ``line`` (all of it with None; a fresh line to the end
        when none is given)."""
        if line is None:
            line = self.look_ahead()
            if line is None:  # lost here: start again, with a line from the deal itself
                self.restart()
                line = solve(self.game, max_seconds=None, max_nodes=None, shorten=False).moves
        for move in line if count is None else line[:count]:
            self.move(move, self.first_kind("move"))
            self.played.plan_moves += 1


__all__ = ["Played", "Step", "Style", "play_like_a_person"]
