"""``simon solve``: is a deal winnable, and a short way to win it (no server needed)."""

from __future__ import annotations

import argparse
import json

from server.engine import Game
from server.solver import DEFAULT_MAX_NODES, DEFAULT_MAX_SECONDS, Verdict, solve

from .arguments import bounded
from .errors import ClientError, UsageError
from .offline import add_game_arguments, load_game
from .wording import plural
from .words import N_, _, hundredths, ngettext, number


def winning_moves(code: str) -> list[str]:
    """The solver's solution of a deal, counts explicit (bot mode's ``--solve``); a
    ClientError when it finds none within its default budget."""
    solution = solve(Game.from_code(code))
    if solution.verdict is not Verdict.WINNABLE:
        raise ClientError(
            _("the solver found no win for %(code)s (%(verdict)s)")
            % {"code": code, "verdict": solution.verdict.value}
        )
    return [move.text() for move in solution.moves]


_positive_int = bounded(
    int, noun=N_("a whole number"), rule=N_("give at least 1"), accept=lambda v: v >= 1
)
_positive_float = bounded(
    float,
    noun=N_("a number of seconds"),
    rule=N_("give more than 0 seconds"),
    accept=lambda v: v > 0,
)


def cmd_solve(args: argparse.Namespace) -> int:
    game = load_game(args.code, args.board, args.suits)
    if game.is_won:
        raise UsageError(_("that board has no cards left: there is nothing to solve"))
    solution = solve(game, max_nodes=args.budget, max_seconds=args.seconds)
    moves = [move.text() for move in solution.moves]  # counts explicit: FROM-TOxN
    if args.json:
        print(
            json.dumps(
                {
                    "code": str(game.code) if game.code else None,
                    "suits": game.suits,
                    "solvable": solution.solvable,
                    "verdict": solution.verdict.value,
                    "moves": moves,
                    "length": len(moves),
                    "nodes": solution.nodes,
                    "seconds": round(solution.seconds, 3),
                }
            )
        )
        return 0
    if solution.verdict is Verdict.WINNABLE:
        print(
            _("winnable in %(moves)s (score %(score)s):")
            % {"moves": plural(len(moves), "move"), "score": 900 - len(moves)}
        )
        for start in range(0, len(moves), 10):
            print("  " + " ".join(moves[start : start + 10]))
    elif solution.verdict is Verdict.UNWINNABLE:
        print(_("not winnable: every reachable position was explored"))
    else:
        print(_("unknown: the search budget ran out (try a larger --budget or --seconds)"))
    print(
        ngettext(
            "%(count)s position searched in %(seconds)s s",
            "%(count)s positions searched in %(seconds)s s",
            solution.nodes,
        )
        % {"count": number(solution.nodes), "seconds": hundredths(solution.seconds)}
    )
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    solve_parser = subparsers.add_parser(
        "solve", help=_("find whether a deal can be won, with a short solution")
    )
    add_game_arguments(solve_parser, required=True)
    solve_parser.add_argument(
        "--budget",
        type=_positive_int,
        default=DEFAULT_MAX_NODES,
        metavar=_("NODES"),
        help=_("most positions to search (default %(default)s)"),
    )
    solve_parser.add_argument(
        "--seconds",
        type=_positive_float,
        default=DEFAULT_MAX_SECONDS,
        metavar=_("SECONDS"),
        help=_("most seconds to search (default %(default)s)"),
    )
    solve_parser.set_defaults(handler=cmd_solve)
