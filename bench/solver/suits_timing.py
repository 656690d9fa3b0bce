"""Default solve (with shortening) on random 1- and 2-suit codes: length and time.

Usage, from the repository root::

    python -m bench.solver.suits_timing --count 40
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Final

from server.engine import Game, GameCode
from server.engine.codes import DEALS_PER_SUIT_COUNT
from server.solver import solve

#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--count 1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=40, help="codes per suit count")
    args = parser.parse_args()
    for suits in (1, 2):
        rng = random.Random(100 + suits)
        lengths: list[int] = []
        seconds: list[float] = []
        cpu: list[float] = []
        verdicts: dict[str, int] = {}
        for _ in range(args.count):
            game = Game.from_code(GameCode(suits, rng.randrange(DEALS_PER_SUIT_COUNT)))
            started = time.process_time()
            solution = solve(game)
            cpu.append(time.process_time() - started)
            seconds.append(solution.seconds)
            verdicts[solution.verdict.value] = verdicts.get(solution.verdict.value, 0) + 1
            if solution.moves:
                lengths.append(len(solution.moves))
        print(
            f"{suits} suit(s): {verdicts}; median length {statistics.median(lengths)}; "
            f"seconds median {statistics.median(seconds):.2f}, max {max(seconds):.2f}; "
            f"CPU median {statistics.median(cpu):.2f}"
        )


if __name__ == "__main__":
    main()
