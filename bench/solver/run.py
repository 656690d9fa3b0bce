"""Benchmark the solver side by side with Freecell Solver; the winnable fraction per suit count.

Part 1 (``--boards``, default 200): random 4-suit codes. Each board is solved by
our solver with its default budget and by every Simple Simon preset of fc-solve
(default, tlm, gut, ss), whose best solution is expanded into single legal moves
(bench/fcsolve.py). Every solution of ours is checked by the independent rule
book of tests/engine/reference_rules.py as well as by the engine. Reported: deals
won by each, proofs, unknowns, solution lengths, times.

Part 2 (``--codes``, default 100; the figures in docs come from ``--codes 500``):
the verdict for random codes of 1, 2 and 4 suits, with ``shorten=False`` (a
verdict needs no short solution), so the winnable fraction per suit count.

Usage, from the repository root (part 1 needs fc-solve)::

    python -m bench.solver.run --boards 200 --codes 500 --seed 7 --json out.json
    python -m bench.solver.run --boards 0 --codes 500   # part 2 only
    python -m bench.solver.run --boards 20 --codes 0 --suits-timing  # quick look

Run it on an otherwise idle machine: times are wall-clock seconds of one process.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any, Final

from bench import fcsolve
from server.engine import SUIT_COUNTS, Game, GameCode
from server.engine.codes import DEALS_PER_SUIT_COUNT
from server.solver import Verdict, solve
from tests.engine.reference_rules import play_to_end as play


def _codes(rng: random.Random, suits: int, count: int) -> list[GameCode]:
    return [GameCode(suits, rng.randrange(DEALS_PER_SUIT_COUNT)) for _ in range(count)]


def _quantiles(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"median {statistics.median(ordered):.2f}, p90 {p90:.2f}, max {ordered[-1]:.2f}"


@dataclass(frozen=True, slots=True)
class Row:
    """One board of part 1: our solver's result and fc-solve's best."""

    code: str
    verdict: str
    length: int | None  # our solution's moves, if it won
    nodes: int
    seconds: float
    cpu_seconds: float
    fcs_won: bool
    fcs_length: int | None  # fc-solve's best solution, expanded into single moves
    fcs_preset: str | None
    fcs_seconds: float  # every preset's time
    fcs_error: str | None


def side_by_side(codes: list[GameCode], progress: bool) -> dict[str, Any]:
    """Part 1: our solver and fc-solve on the same 4-suit boards."""
    rows: list[Row] = []
    for index, code in enumerate(codes):
        game = Game.from_code(code)
        cpu = time.process_time()
        ours = solve(game)
        cpu = time.process_time() - cpu
        texts = [move.text() for move in ours.moves]
        if ours.verdict is Verdict.WINNABLE and not play(game.board_text(), texts):
            raise AssertionError(f"{code}: the rule book does not see a win")
        try:
            best, results = fcsolve.best_of_presets(game)
            expand_error = None
        except fcsolve.FcSolveError as error:  # its solution could not be followed
            best, results, expand_error = None, [], str(error)
        row = Row(
            code=str(code),
            verdict=ours.verdict.value,
            length=len(texts) if ours.verdict is Verdict.WINNABLE else None,
            nodes=ours.nodes,
            seconds=ours.seconds,
            cpu_seconds=cpu,
            fcs_won=best is not None,
            fcs_length=len(best.moves) if best else None,
            fcs_preset=(best.preset or "default") if best else None,
            fcs_seconds=sum(r.seconds for r in results),
            fcs_error=expand_error,
        )
        rows.append(row)
        if progress:
            print(
                f"[{index + 1}/{len(codes)}] {code} {row.verdict} {row.length} "
                f"({row.seconds:.2f} s) fc-solve {row.fcs_length}",
                file=sys.stderr,
                flush=True,
            )
    both = [
        (r.length, r.fcs_length) for r in rows if r.length is not None and r.fcs_length is not None
    ]
    ours_median = statistics.median(ours for ours, _ in both) if both else None
    fcs_median = statistics.median(fcs for _, fcs in both) if both else None
    return {
        "boards": len(rows),
        "ours_won": sum(r.verdict == "winnable" for r in rows),
        "ours_unwinnable": sum(r.verdict == "unwinnable" for r in rows),
        "ours_unknown": sum(r.verdict == "unknown" for r in rows),
        "fcs_won": sum(r.fcs_won for r in rows),
        "fcs_won_ours_not": [r.code for r in rows if r.fcs_won and r.length is None],
        "fcs_errors": [r.code for r in rows if r.fcs_error],
        "ours_won_fcs_not": sum(1 for r in rows if r.length is not None and not r.fcs_won),
        "both_won": len(both),
        "median_length_ours": ours_median,
        "median_length_fcs": fcs_median,
        "median_ratio": (
            ours_median / fcs_median if ours_median is not None and fcs_median else None
        ),
        "median_per_deal_ratio": (
            statistics.median(ours / fcs for ours, fcs in both) if both else None
        ),
        "ours_seconds": _quantiles([r.seconds for r in rows]),
        "ours_cpu_seconds": _quantiles([r.cpu_seconds for r in rows]),
        "fcs_seconds_all_presets": _quantiles([r.fcs_seconds for r in rows]),
        "rows": [asdict(r) for r in rows],
    }


def winnable_fraction(
    rng: random.Random, count: int, shorten: bool, progress: bool
) -> dict[str, Any]:
    """Part 2: verdicts for random codes of each suit count."""
    result: dict[str, Any] = {}
    for suits in SUIT_COUNTS:
        verdicts: dict[str, int] = {"winnable": 0, "unwinnable": 0, "unknown": 0}
        lengths, seconds = [], []
        for index, code in enumerate(_codes(rng, suits, count)):
            solution = solve(Game.from_code(code), shorten=shorten)
            if progress and solution.verdict is not Verdict.WINNABLE:
                print(f"{index} {code} {solution.verdict.value}", file=sys.stderr, flush=True)
            verdicts[solution.verdict.value] += 1
            seconds.append(solution.seconds)
            if solution.verdict is Verdict.WINNABLE:
                lengths.append(len(solution.moves))
        result[f"{suits} suits"] = {
            "codes": count,
            **verdicts,
            "winnable_fraction": verdicts["winnable"] / count,
            "median_length": statistics.median(lengths) if lengths else None,
            "seconds": _quantiles(seconds),
        }
        if progress:
            print(suits, result[f"{suits} suits"], file=sys.stderr, flush=True)
    return result


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--boards 1 --codes 1"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=200, help="4-suit boards vs fc-solve")
    parser.add_argument("--codes", type=int, default=100, help="codes per suit count")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--shorten", action="store_true", help="part 2 with short solutions (slower)"
    )
    parser.add_argument("--json", metavar="FILE", help="write every figure and row here")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    report: dict[str, Any] = {"seed": args.seed}
    if args.boards:
        if not fcsolve.available():
            print("part 1 needs fc-solve (Debian: freecell-solver-bin)", file=sys.stderr)
            return 2
        report["side_by_side"] = side_by_side(_codes(rng, 4, args.boards), not args.quiet)
        summary = {k: v for k, v in report["side_by_side"].items() if k != "rows"}
        print(json.dumps(summary, indent=1))
    if args.codes:
        report["winnable"] = winnable_fraction(rng, args.codes, args.shorten, not args.quiet)
        print(json.dumps(report["winnable"], indent=1))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
