"""Run Freecell Solver (``fc-solve``) on a Simple Simon board; expand its solution into our moves.

fc-solve plays Simple Simon with compound "meta-moves": it may move a descending
group of mixed suits as a whole when empty columns would let a player do it in
parts. Our rules (docs/rules.md) count every one-suit transfer as a move, so each of
its moves is replayed here as the shortest sequence of single legal moves (found
by a small breadth-first search over the columns involved) that reaches the same
columns, and every single move is checked by the engine.

fc-solve prints, with ``-p -t -sam``, lines such as::

    Move 3 cards from stack 0 to stack 9
    Move the sequence on top of Stack 5 to the foundations

Stacks are 0-based columns. The second kind is a run removal, which our engine
does by itself right after the move that completes the run, so it is skipped.

Only 4-suit boards: fc-solve refuses a pack with duplicate cards.

>>> from server.engine import Game
>>> result = solve_with_fcsolve(Game.from_code("SS1-S4-AAAAABD"), preset="gut")  # doctest: +SKIP
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from collections import deque
from dataclasses import dataclass, field

from server.engine import Game, IllegalMoveError, Move

#: The Simple Simon presets worth trying: None is fc-solve's default; its FreeCell
#: presets (lg, cm, obf, ve ...) do not play Simple Simon.
SIMPLE_SIMON_PRESETS: tuple[str | None, ...] = (None, "tlm", "gut", "ss")

_MOVE_LINE = re.compile(r"^Move (\d+) cards? from stack (\d+) to stack (\d+)\s*$")
_RUN_LINE = re.compile(r"^Move the sequence on top of Stack (\d+) to the foundations")


class FcSolveError(RuntimeError):
    """fc-solve is missing, failed, or printed something this module cannot follow."""


@dataclass
class FcSolveResult:
    """What one fc-solve run gave: won or not, its own move count, and our single moves."""

    preset: str | None
    solved: bool
    raw_moves: int  # fc-solve's (meta-)moves, run removals excluded
    moves: list[Move] = field(default_factory=list)  # expanded single legal moves
    seconds: float = 0.0


def available() -> bool:
    return shutil.which("fc-solve") is not None


def run_fcsolve(
    board: str, preset: str | None = None, *, max_iters: int = 2_000_000, timeout: float = 60.0
) -> tuple[bool, list[tuple[int, int, int]], float]:
    """Run fc-solve; return (solved, its moves as (count, source, target), seconds)."""
    command = ["fc-solve"]
    if preset is not None:
        command += ["-l", preset]
    command += ["--game", "simple_simon", "--max-iters", str(max_iters), "-p", "-t", "-sam", "-"]
    start = time.perf_counter()
    try:
        done = subprocess.run(
            command, input=board, capture_output=True, text=True, timeout=timeout, check=False
        )
    except FileNotFoundError:
        raise FcSolveError("fc-solve is not installed (Debian: freecell-solver-bin)") from None
    except subprocess.TimeoutExpired:
        return False, [], time.perf_counter() - start
    seconds = time.perf_counter() - start
    output = done.stdout
    if "This game is solveable." not in output:
        if "I could not solve" in output:
            return False, [], seconds
        raise FcSolveError(f"fc-solve said: {(output + done.stderr).strip()[-300:]}")
    moves = []
    for line in output.splitlines():
        match = _MOVE_LINE.match(line.strip())
        if match:
            count, source, target = (int(g) for g in match.groups())
            moves.append((count, source, target))
        elif not _RUN_LINE.match(line.strip()) and line.startswith("Move"):
            raise FcSolveError(f"unknown fc-solve move line: {line!r}")
    return True, moves, seconds


def _remove_runs(columns: list[list[int]]) -> None:
    """Take complete one-suit K..A runs off the end of columns, as our engine does."""
    for column in columns:
        if len(column) >= 13 and column[-1] & 15 == 1:
            ace = column[-1]
            if all(column[-1 - i] == ace + i for i in range(13)):
                del column[-13:]


def expand_move(game: Game, count: int, source: int, target: int) -> list[Move]:
    """Play one fc-solve move on ``game`` as single legal moves; return them.

    A move legal as it stands is played as it stands. Otherwise the shortest
    sequence of single moves among the source, the target and the empty columns
    that leaves every column as fc-solve's move would is searched for (breadth
    first, a few thousand positions at most) and played; failing that, the
    classic recursive plan through the empty columns (which may be a few moves
    longer than the shortest) is played.
    """
    goal = [list(c) for c in game.columns]
    if count > len(goal[source]):
        raise FcSolveError(f"fc-solve moves {count} cards from a column of {len(goal[source])}")
    goal[target] += goal[source][-count:]
    del goal[source][-count:]
    _remove_runs(goal)
    goal_key = tuple(tuple(c) for c in goal)
    direct = Move(source, target, count)
    if game.is_legal(direct):
        game.push(direct)
        if game.position_key() != goal_key:
            raise FcSolveError("engine and fc-solve disagree on a direct move")
        return [direct]
    # Only the group's own cards move, and only among the source, the target and
    # the empty columns: that is what fc-solve's meta-move stands for, and it keeps
    # the search small.
    involved = {source, target} | {i for i, c in enumerate(game.columns) if not c}
    base = {i: len(game.column(i)) for i in involved}
    base[source] -= count
    start = game.copy()
    seen = {start.position_key()}
    queue: deque[tuple[Game, list[Move]]] = deque([(start, [])])
    while queue and len(seen) < 5_000:
        position, path = queue.popleft()
        for move in position.legal_moves():
            if move.source not in involved or move.target not in involved:
                continue
            assert move.count is not None
            if len(position.column(move.source)) - move.count < base[move.source]:
                continue  # it would take a card that is not part of the group
            child = position.copy()
            child.push(move)
            key = child.position_key()
            if key in seen:
                continue
            if key == goal_key:
                for step in [*path, move]:
                    game.push(step)
                return [*path, move]
            seen.add(key)
            queue.append((child, [*path, move]))
    # too many states for the shortest way: fall back on the classic recursive one
    planned = _plan_through_empties(game, count, source, target)
    if planned is not None:
        trial = game.copy()
        if all(trial.is_legal(step) and trial.push(step) for step in planned) and (
            trial.position_key() == goal_key
        ):
            for step in planned:
                game.push(step)
            return planned
    raise FcSolveError(f"cannot expand fc-solve's move of {count} from {source} to {target}")


def _plan_through_empties(game: Game, count: int, source: int, target: int) -> list[Move] | None:
    """The classic way to move a mixed-suit group: park its top half in an empty
    column, move the rest, bring the half back; recursively. None if too few empties."""
    column = game.column(source)
    group = column[len(column) - count :]
    sizes: list[int] = []  # one-suit segments, top (exposed) segment first
    run = 1
    for upper, lower in zip(reversed(group[:-1]), reversed(group[1:]), strict=True):
        if upper == lower + 1:
            run += 1
        else:
            sizes.append(run)
            run = 1
    sizes.append(run)
    empties = [i for i, c in enumerate(game.columns) if not c and i != target]

    def plan(segments: list[int], origin: int, goal: int, free: list[int]) -> list[Move] | None:
        if len(segments) == 1:
            return [Move(origin, goal, segments[0])]
        if not free:
            return None
        half = len(segments) // 2
        park, rest_free = free[0], free[1:]
        first = plan(segments[:half], origin, park, rest_free)
        second = plan(segments[half:], origin, goal, rest_free)
        third = plan(segments[:half], park, goal, rest_free)
        if first is None or second is None or third is None:
            return None
        return first + second + third

    return plan(sizes, source, target, empties)


def expand(game: Game, raw: list[tuple[int, int, int]]) -> list[Move]:
    """Expand fc-solve's whole solution on a copy of ``game``; check it wins."""
    play = game.copy()
    moves: list[Move] = []
    for count, source, target in raw:
        try:
            moves += expand_move(play, count, source, target)
        except IllegalMoveError as error:  # pragma: no cover - engine refused a checked move
            raise FcSolveError(f"engine refused an expanded move: {error}") from None
    if not play.is_won:
        raise FcSolveError("fc-solve's solution, expanded, does not win")
    return moves


def solve_with_fcsolve(
    game: Game, preset: str | None = None, *, max_iters: int = 2_000_000, timeout: float = 60.0
) -> FcSolveResult:
    """Run one preset on a 4-suit game and expand its solution into our moves."""
    if game.suits != 4:
        raise FcSolveError("fc-solve plays only the 4-suit pack (it refuses duplicate cards)")
    solved, raw, seconds = run_fcsolve(
        game.board_text(), preset, max_iters=max_iters, timeout=timeout
    )
    if not solved:
        return FcSolveResult(preset, False, 0, [], seconds)
    return FcSolveResult(preset, True, len(raw), expand(game, raw), seconds)


def best_of_presets(
    game: Game, presets: tuple[str | None, ...] = SIMPLE_SIMON_PRESETS, **options: float
) -> tuple[FcSolveResult | None, list[FcSolveResult]]:
    """Every preset's result, and the shortest won one (by expanded moves) or None."""
    results = [solve_with_fcsolve(game, preset, **options) for preset in presets]  # type: ignore[arg-type]
    won = [r for r in results if r.solved]
    return (min(won, key=lambda r: len(r.moves)) if won else None), results
