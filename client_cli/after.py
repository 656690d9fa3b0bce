"""After a game: ``simon stats`` (a player's figures and streak, or a day's results),
``simon replay --game ID`` (a finished game, step by step), ``simon review ID`` (a game
against the solver) and ``simon report ID REASON``; each prints JSON with ``--json``."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable, Sequence
from typing import Any, get_args

from pydantic import BaseModel

from server.engine import SUIT_COUNTS, Game
from server.protocol import (
    Board,
    DayStats,
    DayStatsRequest,
    History,
    HistoryRequest,
    Queued,
    Replay,
    ReplayRequest,
    Reported,
    ReportRequest,
    Review,
    ReviewRequest,
    ServerMessage,
)

from .arguments import player_name
from .boards import (
    _dump,
    board_title,
    leaderboard_board,
    new_board_hint,
    no_deal,
    own_daily,
    parse_day,
)
from .connection import Reply
from .offline import add_json_argument
from .online import add_server_argument, open_connection, print_json
from .ui.widgets import format_clock
from .wording import plural

#: How long ``simon review`` waits for the server's solver (seconds).
REVIEW_TIMEOUT = 300.0
#: The widest bar of a text histogram, in characters.
BAR = 30


async def _ask(
    args: argparse.Namespace,
    message: BaseModel,
    expect: type[Reply],
    *,
    account: bool = False,
    wait: float | None = None,
    on_message: Callable[[ServerMessage], None] | None = None,
) -> Reply:
    """One request to ``--server`` on a connection of its own, and its reply (waited for
    ``wait`` seconds at least); what the server sends meanwhile goes to ``on_message``."""
    connection = await open_connection(args, account=account)
    connection.on_message = on_message
    if wait is not None:
        connection.timeout = max(connection.timeout, wait)
    try:
        return await connection.request(message, expect)
    finally:
        await connection.close()


def histogram_lines(stats: DayStats, width: int = BAR) -> list[str]:
    """The winners' moves as text bars, the bin of ``stats.you`` marked with ``◀ you``.

    ``40-43 ████ 2``
    """
    bins = stats.moves_histogram
    if not bins:
        return []
    most = max(b.count for b in bins) or 1
    mine = stats.you.moves if stats.you is not None and stats.you.won else None
    lines = []
    for found in bins:
        last = found.moves + stats.bin_width - 1
        label = str(found.moves) if stats.bin_width == 1 else f"{found.moves}-{last}"
        bar = "█" * round(width * found.count / most) if found.count else ""
        here = "  ◀ you" if mine is not None and found.moves <= mine <= last else ""
        lines.append(f"{label:>7} {bar} {found.count}{here}")
    return lines


async def _stats(args: argparse.Namespace) -> int:
    if args.day is not None or args.today:
        connection = await open_connection(args)
        # about yourself (no NAME), a bot account looks at the bots' board, as leaderboard does
        board = leaderboard_board(args.board, args.name is None, connection)
        try:
            stats = await connection.request(
                DayStatsRequest(
                    type="day_stats", day=args.day, suits=args.suits, board=board,
                    player=args.name,
                ),
                DayStats,
            )  # fmt: skip
            when = f"--day {args.day}" if args.day is not None else "--today"
            elsewhere = (
                None
                if stats.dealt is False
                else await new_board_hint(
                    connection,
                    await own_daily(connection, stats.day, stats.suits, board),
                    day=stats.day,
                    suits=stats.suits,
                    board=board,
                    total=stats.finished,
                    command=f"simon stats {when} --suits {stats.suits} --board new",
                )
            )
        finally:
            await connection.close()
        if args.json:
            found = _dump(stats)
            if elsewhere is not None:
                found["new_board"] = elsewhere.as_json()
            print_json(found)
            return 0
        if stats.dealt is False:
            print(no_deal(stats.day, stats.suits))
            return 0
        par = f", par {stats.par}" if stats.par is not None else ""
        print(
            f"{stats.day} · {plural(stats.suits, 'suit')}{board_title(stats.board)}: "
            f"{stats.finished} finished, "
            f"{stats.won} won{par}"
        )
        if stats.time_quartiles:
            low, middle, high = (format_clock(t) for t in stats.time_quartiles)
            print(f"winners' times: {low} · {middle} (median) · {high}")
        for line in histogram_lines(stats):
            print(line)
        for not_won in stats.not_won:
            print(f"not won, {plural(not_won.removed, 'run')} removed: {not_won.count}")
        if stats.you is not None:
            print(f"{stats.you.player}: rank {stats.you.rank}, beats or ties "
                  f"{stats.you.percentile}%")  # fmt: skip
        if elsewhere is not None:
            print(elsewhere.text())
        return 0
    history = await _ask(
        args,
        HistoryRequest(type="history", player=args.name, limit=1),
        History,
        account=args.name is None,
    )
    streak = history.streak
    if args.json:
        print_json(
            {
                "player": history.player,
                "stats": _dump(history.stats),
                "streak": None if streak is None else _dump(streak),
            }
        )
        return 0
    figures = history.stats
    print(f"{history.player}: {plural(figures.games, 'game')} finished, {figures.won} won")
    for suits, score in sorted(figures.best_score.items()):
        print(f"  best score, {plural(int(suits), 'suit')}: {score}")
    if streak is not None:
        print(f"days in a row with a daily: {streak.current} (best {streak.best})")
    return 0


def position_lines(replay: Replay, letters: bool = False) -> list[tuple[str, str]]:
    """Each position of a replay as (heading, board): the deal, then after each action
    with its think time; the board as the play screen draws it."""
    from server.engine.actions import apply  # the server's own reading of its log (imported late)

    from .ui.cards import board_lines

    def board(game: Game) -> str:
        return "".join(f"{line.plain}\n" for line in board_lines(game.columns, letters))

    game = Game.from_code(replay.code)
    found = [("the deal", board(game))]
    previous: int | None = None
    for step in replay.moves:
        apply(game, step.action)
        think = "" if previous is None else f" after {(step.at - previous) / 1000:.1f} s"
        previous = step.at
        found.append((f"{step.seq}. {step.action}{think}", board(game)))
    return found


def step_through(
    positions: Sequence[tuple[str, str]],
    read: Callable[[str], str] = input,
    write: Callable[[str], Any] = print,
) -> None:
    """Show one position at a time: Enter or ``n`` next, ``p`` back, a number to jump,
    ``q`` to stop."""
    shown = 0
    while True:
        heading, board = positions[shown]
        write(f"[{shown}/{len(positions) - 1}] {heading}")
        write(board.rstrip("\n"))
        try:
            answer = read("(Enter/n next, p back, number, q quit) ").strip().lower()
        except EOFError:
            return
        if answer == "q":
            return
        if answer == "p":
            shown = max(0, shown - 1)
        elif answer.isdigit():
            shown = min(len(positions) - 1, int(answer))
        elif shown == len(positions) - 1:
            return
        else:
            shown += 1


async def online_replay(args: argparse.Namespace) -> int:
    """``simon replay --game ID``: a finished game as the server applied it."""
    replay = await _ask(args, ReplayRequest(type="replay", game=args.game), Replay)
    if args.json:
        print_json(_dump(replay))
        return 0
    print(f"{replay.player}, {plural(replay.suits, 'suit')} {replay.mode}"
          + (f" of {replay.day}" if replay.day else "") + f", deal {replay.code}")  # fmt: skip
    positions = position_lines(replay, args.letters)
    if sys.stdin.isatty() and sys.stdout.isatty():  # `| head` reads lines, never answers
        step_through(positions)
    else:
        for heading, _ in positions:
            print(heading)
        print(positions[-1][1], end="")
    return 0


def _queued(message: ServerMessage) -> None:
    """Where a review waiting for the server's solver stands (on stderr: ``--json`` keeps
    stdout for the review)."""
    if isinstance(message, Queued):
        where = "next" if message.position == 1 else f"number {message.position}"
        print(f"waiting for the solver: {where} in line", file=sys.stderr)


async def _review(args: argparse.Namespace) -> int:
    review = await _ask(
        args,
        ReviewRequest(type="review", game=args.game),
        Review,
        account=True,
        wait=REVIEW_TIMEOUT,
        on_message=_queued,
    )
    if args.json:
        print_json(_dump(review))
        return 0
    for line in review_lines(review):
        print(line)
    return 0


def review_lines(review: Review) -> list[str]:
    """A review in words: the total, the losing move, where the moves went, then each
    position."""
    lines = []
    if review.won:
        total = f"won in {review.moves} moves"
        if review.against_line is not None:
            total += f": {review.against_line:+d} against the solver's line ({review.solver_line})"
        if review.against_par is not None:
            total += f", {review.against_par:+d} against par ({review.par})"
        lines.append(total)
    else:
        lines.append(f"not won, {review.moves} moves")
        if review.losing_move is not None:
            lines.append(f"no win was left after action {review.losing_move}")
    lines += [
        f"actions {stretch.first}-{stretch.last} cost {stretch.cost} moves"
        for stretch in review.stretches
    ]
    if review.unknown:
        lines.append(f"{review.unknown} positions unknown (the solver's budget ran out)")
    for position in review.positions:
        verdict = {True: "winnable", False: "lost", None: "unknown"}[position.winnable]
        distance = "" if position.distance is None else f", line {position.distance}"
        delta = "" if position.delta is None else f", cost {position.delta:+d}"
        lines.append(
            f"{position.seq:>4} {position.action or 'deal':<10} {verdict}{distance}{delta}"
        )
    return lines


async def _report(args: argparse.Namespace) -> int:
    reported = await _ask(
        args,
        ReportRequest(type="report", game=args.game, reason=args.reason),
        Reported,
        account=True,
    )
    if args.json:
        print_json(_dump(reported))
    else:
        print(f"reported game {reported.game}: thank you, a reviewer will look at it")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "stats", help="a player's figures and streak, or a day's results (--today, --day)"
    )
    parser.add_argument("name", nargs="?", type=player_name, help="default: you")
    parser.add_argument("--today", action="store_true", help="today's results for everyone")
    parser.add_argument("--day", type=parse_day, metavar="YYYY-MM-DD", help="a day's results")
    parser.add_argument("--suits", type=int, choices=SUIT_COUNTS, default=1)
    parser.add_argument(
        "--board",
        choices=get_args(Board),
        help="the humans' board (default; a bot's own figures: the bots'), the new players' "
        "(new) or the bots'",
    )
    add_server_argument(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=lambda args: asyncio.run(_stats(args)))

    parser = subparsers.add_parser("review", help="a finished game reviewed against the solver")
    parser.add_argument("game", help="the game's id")
    add_server_argument(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=lambda args: asyncio.run(_review(args)))

    parser = subparsers.add_parser("report", help="report a ranked result of a past day")
    parser.add_argument("game", help="the game's id (from its replay)")
    parser.add_argument("reason", help="why, in a few words")
    add_server_argument(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=lambda args: asyncio.run(_report(args)))
