"""Make tests/fixtures/fcsolve_solutions.json: Freecell Solver's solutions as our single moves.

For the docs/rules.md example and N random 4-suit codes, every Simple Simon preset of
fc-solve is run; the shortest won solution, expanded into single legal moves of
our rules (see bench/fcsolve.py), is written with its preset and fc-solve's own
move count. Deals no preset wins are listed without moves. The tests replay the
fixtures with the engine, so they need no fc-solve.

Usage (from the repository root; needs fc-solve, Debian package freecell-solver-bin)::

    python -m bench.make_fcs_fixtures --count 40 --seed 2026
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Final

from bench.fcsolve import SIMPLE_SIMON_PRESETS, best_of_presets
from server.engine import Game, GameCode
from server.engine.codes import DEALS_PER_SUIT_COUNT

EXAMPLE = (Path(__file__).resolve().parents[1] / "tests/fixtures/example_board.txt").read_text()

DEFAULT_OUTPUT = Path("tests/fixtures/fcsolve_solutions.json")


def fcsolve_version() -> str:
    done = subprocess.run(["fc-solve", "--version"], capture_output=True, text=True, check=False)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if "version" in line]
    return lines[0].strip() if lines else "?"


def fixture(name: str, game: Game) -> dict[str, object]:
    best, _results = best_of_presets(game)
    entry: dict[str, object] = {
        "name": name,
        "code": str(game.code) if game.code else None,
        "board": game.board_text(),
    }
    if best is None:
        entry.update(solved=False, moves="")
    else:
        entry.update(
            solved=True,
            preset=best.preset or "default",
            fcsolve_moves=best.raw_moves,
            length=len(best.moves),
            moves=" ".join(move.text() for move in best.moves),
        )
    return entry


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--count 1 --output /dev/null"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=40, help="random 4-suit codes")
    parser.add_argument("--seed", type=int, default=2026, help="picks the codes")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    games = [("rules-example", Game.from_board(EXAMPLE))]
    for _ in range(args.count):
        code = GameCode(4, rng.randrange(DEALS_PER_SUIT_COUNT))
        games.append((str(code), Game.from_code(code)))
    entries = []
    for name, game in games:
        entries.append(fixture(name, game))
        print(name, "won" if entries[-1]["solved"] else "not won", file=sys.stderr)
    document = {
        "command": (f"python -m bench.make_fcs_fixtures --count {args.count} --seed {args.seed}"),
        "fcsolve": fcsolve_version(),
        "presets": [preset or "default" for preset in SIMPLE_SIMON_PRESETS],
        "note": "moves are fc-solve's best solution expanded into single legal moves",
        "deals": entries,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(document, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
