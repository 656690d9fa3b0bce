"""After a game: ``simon stats`` (a player's figures and streak, or a day's results),
``simon replay --game ID`` (a finished game, step by step), ``simon review ID`` (a game
against the solver), ``simon report ID REASON`` and ``simon share`` (a finished daily's text
to share); each prints JSON with ``--json``."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO, get_args

from pydantic import BaseModel

from server.engine import SUIT_COUNTS, Game
from server.protocol import (
    Board,
    DailyResultRequest,
    DayStats,
    DayStatsRequest,
    Finished,
    History,
    HistoryRequest,
    Queued,
    Replay,
    ReplayRequest,
    Reported,
    ReportRequest,
    Review,
    ReviewProgress,
    ReviewRequest,
    ServerMessage,
)

from .arguments import player_name
from .boards import (
    MODES,
    _dump,
    board_title,
    leaderboard_board,
    new_board_hint,
    no_deal,
    own_daily,
    parse_day,
)
from .connection import Reply
from .errors import ClientError
from .offline import add_json_argument
from .online import add_server_argument, open_connection, print_json
from .ui.widgets import format_clock
from .wording import plural
from .words import _, ngettext, pad

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
        here = "  ◀ " + _("you") if mine is not None and found.moves <= mine <= last else ""
        lines.append(f"{pad(label, 7, '>')} {bar} {found.count}{here}")
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
        par = _(", par %(par)s") % {"par": stats.par} if stats.par is not None else ""
        print(
            f"{stats.day} · {plural(stats.suits, 'suit')}{board_title(stats.board)}: "
            + _("%(finished)s finished, %(won)s won")
            % {"finished": stats.finished, "won": stats.won}
            + par
        )
        if stats.time_quartiles:
            low, middle, high = (format_clock(t) for t in stats.time_quartiles)
            print(
                _("winners' times: %(low)s · %(middle)s (median) · %(high)s")
                % {"low": low, "middle": middle, "high": high}
            )
        for line in histogram_lines(stats):
            print(line)
        for not_won in stats.not_won:
            print(
                _("not won, %(runs)s removed: %(count)s")
                % {"runs": plural(not_won.removed, "run"), "count": not_won.count}
            )
        if stats.you is not None:
            print(
                _("%(player)s: rank %(rank)s, beats or ties %(percent)s%%")
                % {
                    "player": stats.you.player,
                    "rank": stats.you.rank,
                    "percent": stats.you.percentile,
                }
            )
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
    print(
        _("%(player)s: %(games)s finished, %(won)s won")
        % {"player": history.player, "games": plural(figures.games, "game"), "won": figures.won}
    )
    for suits, score in sorted(figures.best_score.items()):
        print(
            "  "
            + _("best score, %(suits)s: %(score)s")
            % {"suits": plural(int(suits), "suit"), "score": score}
        )
    if streak is not None:
        print(
            _("days in a row with a daily: %(current)s (best %(best)s)")
            % {"current": streak.current, "best": streak.best}
        )
    return 0


def position_lines(replay: Replay, letters: bool = False) -> list[tuple[str, str]]:
    """Each position of a replay as (heading, board): the deal, then after each action
    with its think time; the board as the play screen draws it."""
    from server.engine.actions import apply  # the server's own reading of its log (imported late)

    from .ui.cards import board_lines

    def board(game: Game) -> str:
        return "".join(f"{line.plain}\n" for line in board_lines(game.columns, letters))

    game = Game.from_code(replay.code)
    found = [(_("the deal"), board(game))]
    previous: int | None = None
    for step in replay.moves:
        apply(game, step.action)
        think = (
            ""
            if previous is None
            else " " + _("after %(seconds)s s") % {"seconds": f"{(step.at - previous) / 1000:.1f}"}
        )
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
            answer = read(_("(Enter/n next, p back, number, q quit) ")).strip().lower()
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
    said = {
        "player": replay.player,
        "suits": plural(replay.suits, "suit"),
        "mode": _(MODES.get(replay.mode, replay.mode)),
        "day": replay.day,
        "code": replay.code,
    }
    if replay.race:  # a race room's game (a practice game to the server): its room
        print(
            _("%(player)s, %(suits)s race game in room %(room)s, deal %(code)s")
            % {**said, "room": replay.race}
        )
    elif replay.day:
        print(_("%(player)s, %(suits)s %(mode)s of %(day)s, deal %(code)s") % said)
    else:
        print(_("%(player)s, %(suits)s %(mode)s, deal %(code)s") % said)
    positions = position_lines(replay, args.letters)
    if sys.stdin.isatty() and sys.stdout.isatty():  # `| head` reads lines, never answers
        step_through(positions)
    else:
        for heading, _board in positions:
            print(heading)
        print(positions[-1][1], end="")
    return 0


class SolverProgress:
    """What ``simon review`` shows on stderr while the server's solver works (``--json``
    keeps stdout for the review): a line at once, where the review stands in line when it
    waits, the position the solver is judging (with a bar on a terminal; elsewhere the
    count of positions, once), a warning when the server expects it to take long, a spinner
    with the seconds on a terminal, and how long it took once done."""

    FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
    #: How often the spinner turns (seconds).
    TURN = 0.1
    #: The progress bar's width, in characters.
    BAR = 20

    def __init__(self, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic):
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty()
        self.clock = clock
        self.started = clock()
        self.doing = _("Asking the solver…")
        self.bar = ""
        self.turns = 0
        self.judging = False  # said that the solver judges the positions (off a terminal)
        self.warned = False  # said that the review will take long

    def start(self) -> None:
        if self.tty:
            self._draw()
        else:
            self._say(self.doing)

    def heard(self, message: ServerMessage) -> None:
        """A message pushed while the review is made: ``queued`` or ``review_progress``."""
        if isinstance(message, Queued):
            self.queued(message)
        elif isinstance(message, ReviewProgress):
            self.progress(message)

    def progress(self, message: ReviewProgress) -> None:
        """How far the solver has got: the position it judges, and whether it takes long."""
        if message.long and not self.warned and message.seconds_left_estimate is not None:
            self.warned = True
            seconds = max(1, round(message.seconds_left_estimate))
            self._say_above(
                ngettext(
                    "This review will take a while: about %(count)s second.",
                    "This review will take a while: about %(count)s seconds.",
                    seconds,
                )
                % {"count": seconds}
            )
        positions = max(1, message.positions)
        self.doing = _("judging position %(judged)s of %(positions)s") % {
            "judged": min(message.judged + 1, positions),
            "positions": positions,
        }
        filled = self.BAR * min(message.judged, positions) // positions
        self.bar = "█" * filled + "░" * (self.BAR - filled)
        if self.tty:
            self._draw()
        elif not self.judging:
            self.judging = True
            self._say(
                ngettext(
                    "The solver is judging %(count)s position…",
                    "The solver is judging %(count)s positions…",
                    positions,
                )
                % {"count": positions}
            )

    def queued(self, message: Queued) -> None:
        """A ``queued`` message: where the review waits (said again as it moves)."""
        if message.position == 1:
            self.doing = _("waiting for the solver: next in line")
        else:
            self.doing = _("waiting for the solver: number %(position)s in line") % {
                "position": message.position
            }
        if self.tty:
            self._draw()
        else:
            self._say(self.doing)

    async def spin(self) -> None:
        """Turn the spinner until cancelled (on a terminal only)."""
        if not self.tty:
            return
        while True:
            await asyncio.sleep(self.TURN)
            self.turns += 1
            self._draw()

    def done(self, ok: bool) -> None:
        """The review came (``ok``), or the request failed: the spinner's line is cleared."""
        if self.tty:
            self.stream.write("\r\x1b[2K")
        if ok:
            seconds = f"{self.clock() - self.started:.1f}"
            self._say(_("The solver is done (%(seconds)s s).") % {"seconds": seconds})
        else:
            self.stream.flush()

    def _draw(self) -> None:
        frame = self.FRAMES[self.turns % len(self.FRAMES)]
        seconds = int(self.clock() - self.started)
        bar = f" {self.bar}" if self.bar else ""
        self.stream.write(f"\r\x1b[2K{frame} {self.doing}{bar} {seconds} s")
        self.stream.flush()

    def _say_above(self, line: str) -> None:
        """A line that stays, above the spinner's (redrawn below it) on a terminal."""
        if self.tty:
            self.stream.write("\r\x1b[2K")
        self._say(line)
        if self.tty:
            self._draw()

    def _say(self, line: str) -> None:
        print(line, file=self.stream, flush=True)


async def _review(args: argparse.Namespace) -> int:
    connection = await open_connection(args, account=True)  # no account: said before a line
    progress = SolverProgress()
    connection.on_message = progress.heard
    connection.timeout = max(connection.timeout, REVIEW_TIMEOUT)
    progress.start()
    spinner = asyncio.create_task(progress.spin())
    try:
        review = await connection.request(ReviewRequest(type="review", game=args.game), Review)
    except BaseException:
        progress.done(ok=False)
        raise
    finally:
        spinner.cancel()
        await connection.close()
    progress.done(ok=True)
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
        total = _("won in %(moves)s") % {"moves": plural(review.moves, "move")}
        if review.against_line is not None:
            total += _(": %(delta)s against the solver's line (%(line)s)") % {
                "delta": f"{review.against_line:+d}",
                "line": review.solver_line,
            }
        if review.against_par is not None:
            total += _(", %(delta)s against par (%(par)s)") % {
                "delta": f"{review.against_par:+d}",
                "par": review.par,
            }
        lines.append(total)
    else:
        lines.append(_("not won, %(moves)s") % {"moves": plural(review.moves, "move")})
        if review.losing_move is not None:
            lines.append(
                _("no win was left after action %(action)s") % {"action": review.losing_move}
            )
    lines += [
        _("actions %(first)s-%(last)s cost %(cost)s")
        % {"first": stretch.first, "last": stretch.last, "cost": plural(stretch.cost, "move")}
        for stretch in review.stretches
    ]
    if review.unknown:
        lines.append(
            _("%(count)s positions unknown (the solver's budget ran out)")
            % {"count": review.unknown}
        )
    for position in review.positions:
        verdict = {True: _("winnable"), False: _("lost"), None: _("unknown")}[position.winnable]
        distance = "" if position.distance is None else _(", line %(d)s") % {"d": position.distance}
        delta = "" if position.delta is None else _(", cost %(d)s") % {"d": f"{position.delta:+d}"}
        action = position.action or _("deal")
        lines.append(f"{position.seq:>4} {pad(action, 10)} {verdict}{distance}{delta}")
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
        print(
            _("reported game %(game)s: thank you, a reviewer will look at it")
            % {"game": reported.game}
        )
    return 0


async def _share(args: argparse.Namespace) -> int:
    """``simon share``: the text to share of your finished daily, as its end gave it (in
    your language), outside the play screen."""
    finished = await _ask(
        args,
        DailyResultRequest(type="daily_result", day=args.day, suits=args.suits),
        Finished,
        account=True,
    )
    if args.json:
        print_json(_dump(finished))
        return 0
    if finished.share is None:  # a server that made none (it always makes one for a daily)
        raise ClientError(_("the server gave no text to share for this game"))
    print(finished.share)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "stats", help=_("a player's figures and streak, or a day's results (--today, --day)")
    )
    parser.add_argument(
        "name", nargs="?", type=player_name, metavar=_("name"), help=_("default: you")
    )
    parser.add_argument("--today", action="store_true", help=_("today's results for everyone"))
    parser.add_argument("--day", type=parse_day, metavar="YYYY-MM-DD", help=_("a day's results"))
    parser.add_argument("--suits", type=int, choices=SUIT_COUNTS, default=1)
    parser.add_argument(
        "--board",
        choices=get_args(Board),
        help=_(
            "the humans' board (default; a bot's own figures: the bots'), the new players' "
            "(new) or the bots'"
        ),
    )
    add_server_argument(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=lambda args: asyncio.run(_stats(args)))

    parser = subparsers.add_parser("review", help=_("a finished game reviewed against the solver"))
    parser.add_argument("game", metavar=_("game"), help=_("the game's id"))
    add_server_argument(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=lambda args: asyncio.run(_review(args)))

    parser = subparsers.add_parser(
        "share", help=_("the text to share of your finished daily (today's by default)")
    )
    parser.add_argument("--suits", type=int, choices=SUIT_COUNTS, default=1)
    parser.add_argument("--day", type=parse_day, metavar="YYYY-MM-DD", help=_("default: today"))
    add_server_argument(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=lambda args: asyncio.run(_share(args)))

    parser = subparsers.add_parser("report", help=_("report a ranked result of a past day"))
    parser.add_argument("game", metavar=_("game"), help=_("the game's id (from its replay)"))
    parser.add_argument("reason", metavar=_("reason"), help=_("why, in a few words"))
    add_server_argument(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=lambda args: asyncio.run(_report(args)))
