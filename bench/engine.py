"""Benchmark of the rules engine: moves, legal move lists, undo, snapshots, memory.

Run from the repository root::

    python -m bench.engine            # about half a minute; prints a table
    python -m bench.engine --games 50 # quicker, noisier

Games are random legal play from deals of 1, 2 and 4 suits (a fixed seed, so every
run plays the same games). Figures depend on the machine and its load: compare
runs on one machine, not across machines.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Final

from server.engine import SUIT_COUNTS

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.engine import UNDO_LIMIT, Game, GameCode, Move

MOVES_PER_GAME = 150


def random_game(code: GameCode, rng: random.Random) -> tuple[Game, list[Move]]:
    """A fresh game and up to MOVES_PER_GAME random legal moves for it (implied counts)."""
    game = Game.from_code(code)
    fresh = game.copy()
    moves = []
    for _ in range(MOVES_PER_GAME):
        legal = list(game.legal_moves())
        if not legal:
            break
        move = rng.choice(legal)
        # Written without a count when that is what the count would be, as players do.
        implied = Move(move.source, move.target)
        chosen = implied if game.resolve(implied) == move else move
        game.push(chosen)
        moves.append(chosen)
    return fresh, moves


def rate(operations: int, seconds: float) -> str:
    return f"{operations / seconds:,.0f}/s"


REPEATS = 3


def timed(action: Callable[[], int], setup: Callable[[], None] | None = None) -> tuple[int, float]:
    """Run ``action`` (it returns how many operations it did) a few times; keep the fastest.

    The fastest run is the one least disturbed by other work on a shared machine.
    """
    best = float("inf")
    count = 0
    for _ in range(REPEATS):
        if setup is not None:
            setup()
        start = time.perf_counter()
        count = action()
        best = min(best, time.perf_counter() - start)
    return count, best


def deep_size(root: object) -> int:
    """Bytes held by an object and everything it references, each object counted once.

    Small ints are shared by the interpreter, so cards and counts cost nothing here.
    """
    seen: set[int] = set()
    total = 0
    stack = [root]
    while stack:
        item = stack.pop()
        if id(item) in seen or (isinstance(item, int) and -5 <= item <= 256):
            continue
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list | tuple | set | frozenset):
            stack.extend(item)
        slots = getattr(type(item), "__slots__", ())
        stack.extend(getattr(item, name) for name in slots if hasattr(item, name))
    return total


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--games 3"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="random games (default 1000)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    games = [
        random_game(GameCode(SUIT_COUNTS[i % 3], rng.randrange(26**7)), rng)
        for i in range(args.games)
    ]
    total_moves = sum(len(moves) for _, moves in games)
    rows: list[tuple[str, str, str]] = []

    def push_all() -> int:
        for fresh, moves in games:
            game = fresh.copy()
            for move in moves:
                game.push(move)
        return total_moves

    count, seconds = timed(push_all)
    rows.append(("push (validate + apply)", rate(count, seconds), f"{count:,} moves"))

    # The positions before each move, to time reading-only operations on them.
    positions: list[tuple[Game, Move]] = []
    finished: list[Game] = []
    for fresh, moves in games:
        game = fresh.copy()
        for move in moves:
            positions.append((game.copy(), move))
            game.push(move)
        finished.append(game)

    def resolve_all() -> int:
        for game, move in positions:
            game.resolve(move)
        return len(positions)

    count, seconds = timed(resolve_all)
    rows.append(("resolve only (validate)", rate(count, seconds), f"{count:,} moves"))

    generated = sum(len(list(game.legal_moves())) for game, _ in positions)

    def legal_lists() -> int:
        for game, _ in positions:
            list(game.legal_moves())
        return len(positions)

    count, seconds = timed(legal_lists)
    rows.append(("legal_moves() full lists", rate(count, seconds), f"{count:,} positions"))
    rows.append(
        ("legal moves generated", rate(generated, seconds), f"{generated / count:.1f} per list")
    )

    undo_games: list[Game] = []

    def fresh_copies() -> None:
        undo_games[:] = [game.copy() for game in finished]

    def undo_all() -> int:
        undone = 0
        for game in undo_games:
            while game.can_undo:
                game.undo()
                undone += 1
        return undone

    count, seconds = timed(undo_all, fresh_copies)
    rows.append(("undo", rate(count, seconds), f"{count:,} undos"))

    def snapshot_all() -> int:
        for game in finished:
            game.snapshot()
        return len(finished)

    count, seconds = timed(snapshot_all)
    rows.append(("snapshot()", rate(count, seconds), f"{count:,} games"))
    snapshots = [game.snapshot() for game in finished]

    def restore_all() -> int:
        for data in snapshots:
            Game.restore(data)
        return len(snapshots)

    count, seconds = timed(restore_all)
    rows.append(("restore() (re-deals the code)", rate(count, seconds), f"{count:,} games"))

    codes = [game.code for game in finished]

    def deal_all() -> int:
        for code in codes:
            code.deal()  # type: ignore[union-attr]
        return len(codes)

    count, seconds = timed(deal_all)
    rows.append(("GameCode.deal() (shuffle)", rate(count, seconds), f"{count:,} deals"))

    full = [g for g in finished if len(g.snapshot()) >= 3 * UNDO_LIMIT] or finished
    snapshot_bytes = sum(len(g.snapshot()) for g in full) / len(full)
    rows.append(("snapshot size, full undo", f"{snapshot_bytes:.0f} B", f"{len(full)} games"))
    board_snapshot = Game.from_board(full[0].board_text(), full[0].suits)
    rows.append(("snapshot size, board game", f"{len(board_snapshot.snapshot())} B", "no code"))
    rows.append(
        ("Game in memory (getsizeof)", f"{sum(deep_size(g) for g in full) / len(full):.0f} B", "")
    )

    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [Game.restore(g.snapshot()) for g in full]
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    rows.append(
        ("Game in memory (tracemalloc)", f"{(after - before) / len(kept):.0f} B", "restored")
    )

    print(f"engine benchmark: {args.games} games, {total_moves:,} moves, seed {args.seed}")
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.system()}")
    print()
    width = max(len(name) for name, _, _ in rows)
    print(f"{'operation':<{width}}  {'figure':>14}  note")
    print(f"{'-' * width}  {'-' * 14}  {'-' * 20}")
    for name, figure, note in rows:
        print(f"{name:<{width}}  {figure:>14}  {note}")


if __name__ == "__main__":
    main()
