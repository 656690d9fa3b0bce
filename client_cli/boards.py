"""``simon leaderboard``, ``simon history`` and ``simon daily``: rich tables, or JSON."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, get_args

from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from server.engine import SUIT_COUNTS, SuitCount
from server.protocol import (
    Board,
    BoardName,
    DailyInfo,
    DailyRequest,
    ErrorCode,
    History,
    HistoryGame,
    HistoryRequest,
    LeaderboardPage,
    LeaderboardRequest,
    LeaderboardRow,
    RankInfo,
    RankRequest,
)

from .arguments import bounded, player_name
from .connection import Connection
from .errors import ClientError, ServerError, UsageError
from .offline import add_json_argument
from .online import add_server_argument, open_connection, print_json
from .race_table import ordinal
from .ui.widgets import format_clock
from .wording import UNDER_REVIEW, board_note, player_label, plural, review_wait
from .words import N_, _, long_day, ngettext, pad

#: The games' modes, as the history says them.
MODES = {"daily": N_("daily"), "practice": N_("practice")}
PAGE = 100  # the most rows the server sends at once
HISTORY_LOOKUP = 100  # a player's latest games, searched for a held daily result


def parse_day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("%(text)r is not a day: write YYYY-MM-DD") % {"text": text}
        ) from None


def _dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json", exclude={"type", "id"})


def leaderboard_table(title: str, rows: Sequence[LeaderboardRow], me: str | None) -> Table:
    """A board's rows: rich pads each column by the names' width on a terminal (a wide
    letter takes two cells, a combining mark none), so every alphabet lines up."""
    table = Table(title=title, title_justify="left")
    table.add_column(_("Rank"), justify="right")
    table.add_column(_("Player"))
    table.add_column(_("Won"), justify="center")
    table.add_column(_("Runs"), justify="right")
    table.add_column(_("Score"), justify="right")
    table.add_column(_("Moves"), justify="right")
    table.add_column(_("Time"), justify="right")
    for row in rows:  # the server's order: wins first, then the most runs removed
        style = "bold cyan" if row.player == me else None
        table.add_row(
            str(row.rank),
            player_label(row.player, row.bot) + (" " + _("(verified)") if row.verified else ""),
            "✓" if row.won else "",
            f"{row.removed}/4",
            str(row.score),
            str(row.moves),
            format_clock(row.elapsed),
            style=style,
        )
    return table


async def _leaderboard(args: argparse.Namespace) -> int:
    connection = await open_connection(args, account=args.around_me)
    me = connection.player.name if connection.player else None
    board = leaderboard_board(args.board, args.around_me, connection)
    try:
        today = connection.server_day()
        if args.day is not None and args.day > today:
            raise ClientError(
                _(
                    "no leaderboard for %(day)s: that day has not begun "
                    "(it is %(today)s on the server)"
                )
                % {"day": args.day, "today": today}
            )
        mine = await own_daily(connection, args.day or today, args.suits, board)
        if args.around_me:
            info = await connection.request(
                RankRequest(
                    type="rank",
                    day=args.day,
                    suits=args.suits,
                    board=board,
                    around=args.around,
                ),
                RankInfo,
            )
            result = _dump(info)
            rows = info.around
            title = f"{info.day} · {plural(info.suits, 'suit')}{board_title(info.board)} · "
            # held: said by the server on the board it is held from, else by your history
            held_here = info.review == "held" or (mine is not None and bool(mine.review))
            title += f"{info.player}: " + _rank_text(info, held=held_here)
            day, suits, total, dealt = info.day, info.suits, info.total, info.dealt is not False
        else:
            rows, after, page = [], None, None
            while len(rows) < args.top:
                page = await connection.request(
                    LeaderboardRequest(
                        type="leaderboard",
                        day=args.day,
                        suits=args.suits,
                        board=board,
                        limit=min(PAGE, args.top - len(rows)),
                        after=after,
                    ),
                    LeaderboardPage,
                )
                rows += page.rows
                after = page.next
                if after is None or not page.rows:
                    break
            assert page is not None
            result = {
                "day": page.day.isoformat(),
                "suits": page.suits,
                "board": page.board,
                "total": page.total,
                "rows": [_dump(row) for row in rows],
            }
            title = f"{page.day} · {plural(page.suits, 'suit')}{board_title(page.board)} · "
            title += plural(page.total, "result")
            day, suits, total, dealt = page.day, page.suits, page.total, page.dealt is not False
        command = f"simon leaderboard{' --around-me' if args.around_me else ''} --suits {suits}"
        if args.day is not None:
            command += f" --day {day}"
        elsewhere = (
            await new_board_hint(
                connection,
                mine,
                day=day,
                suits=suits,
                board=board,
                total=total,
                command=f"{command} --board new",
            )
            if dealt
            else None
        )
    finally:
        await connection.close()
    held = mine if mine is not None and mine.review else None
    held_anyhow = held is not None or result.get("review") == "held"
    if held_anyhow:
        result["review"] = "held"
        if connection.review_hours is not None:
            result["review_hours"] = connection.review_hours
    result["dealt"] = dealt
    if elsewhere is not None:
        result["new_board"] = elsewhere.as_json()
    if args.json:
        print_json(result)
        return 0
    if rows:
        Console().print(leaderboard_table(title, rows, me))
    else:  # plain lines: a command in them is never wrapped
        print(title)
        if elsewhere is None and not held_anyhow:  # held: the line below says it all
            print(_no_rows(day, suits, board, today, dealt=dealt))
    if elsewhere is not None:
        print(elsewhere.text())
    if held_anyhow:
        score = held.score if held is not None else None
        print(_held_line(score, connection.review_hours, empty=not rows))
    return 0


def _leaderboard_command(args: argparse.Namespace) -> int:
    if args.friends:  # a board of its own: client_cli.social.friends (which uses this module's)
        from .social.friends import friends_board

        return asyncio.run(friends_board(args))
    return asyncio.run(_leaderboard(args))


def leaderboard_board(asked: Board | None, around_me: bool, connection: Connection) -> Board:
    """The board ``--board`` names, else the public one; but a bot account's own rank (or
    ``simon stats`` of its own day) is on the bots' board, the only one it plays on."""
    if asked is not None:
        return asked
    player = connection.player
    return "bots" if around_me and player is not None and player.bot else "humans"


def _rank_text(info: RankInfo, *, held: bool) -> str:
    """Where the player stands, or why they have no rank (``rank`` absent; ``held``: their
    result is held for review)."""
    if info.rank is not None:
        return _("rank %(rank)s of %(total)s") % {"rank": info.rank, "total": info.total}
    why = _("result held for review") if held else _("no result")
    return f"{why}, {plural(info.total, 'result')}"


def no_deal(day: date, suits: int) -> str:
    """What a board or a day's figures say of a day that had no deal."""
    return _(
        "There was no %(suits)s-suit daily on %(day)s: no deal was dealt that day, "
        "so it has no board."
    ) % {"suits": suits, "day": day}


def _no_rows(day: date, suits: int, board: Board, today: date, *, dealt: bool) -> str:
    """Why a leaderboard is empty."""
    if not dealt:
        return no_deal(day, suits)
    said = {"suits": suits, "day": day}
    if day == today and board == "bots":
        return (
            _(
                "No results yet: no bot has finished today's %(suits)s-suit deal "
                "(simon play --daily --suits %(suits)s)."
            )
            % said
        )
    if day == today:
        return (
            _(
                "No results yet: nobody has finished today's %(suits)s-suit deal "
                "(simon play --daily --suits %(suits)s)."
            )
            % said
        )
    if board == "bots":
        return _("No results: no bot finished the %(suits)s-suit deal of %(day)s.") % said
    return _("No results: nobody finished the %(suits)s-suit deal of %(day)s.") % said


def _held_line(score: int | None, hours: int | None, *, empty: bool) -> str:
    """What a player whose result is held is told under a board: one thing, whether the
    board shows others' results or none (``empty``), and how long a review usually takes."""
    if empty and score is not None:
        said = _(
            "No result on this board yet; yours (score %(score)s) is under review: held for "
            "fair-play review, it stays off the public leaderboard until a reviewer clears it."
        ) % {"score": score}
    elif empty:
        said = _(
            "No result on this board yet; yours is under review: held for fair-play review, "
            "it stays off the public leaderboard until a reviewer clears it."
        )
    elif score is not None:
        said = _(
            "Your result (score %(score)s) is under review: held for fair-play review, "
            "it stays off the public leaderboard until a reviewer clears it."
        ) % {"score": score}
    else:
        said = _(
            "Your result is under review: held for fair-play review, it stays off the "
            "public leaderboard until a reviewer clears it."
        )
    wait = review_wait(hours)
    return f"{said} {wait}" if wait else said


async def own_daily(
    connection: Connection, day: date, suits: int, board: Board
) -> HistoryGame | None:
    """The signed-in player's finished daily of that day and suit count, when it belongs
    with ``board`` (a bot's with the bots' board, a person's with the others): it may be
    held for review (the board leaves it out; only its player is told), or on the new
    players' board rather than the public one."""
    player = connection.player
    if player is None or player.bot != (board == "bots"):
        return None
    return (await daily_results(connection, day)).get(suits)


@dataclass(frozen=True)
class NewBoardHint:
    """Where to look when the public board does not show a day's results: the player's own
    result (``yours``) is on the new players' board, or the public board is empty and that
    one has ``results``. ``command`` shows the new players' board."""

    command: str
    yours: HistoryGame | None = None
    results: int = 0

    def text(self) -> str:
        if self.yours is not None:
            rank = _(", rank %(rank)s") % {"rank": self.yours.rank} if self.yours.rank else ""
            return _(
                "Your result (score %(score)s%(rank)s) is on the new players' board, where new "
                "accounts play their first days: %(command)s"
            ) % {"score": self.yours.score, "rank": rank, "command": self.command}
        return ngettext(
            "%(count)s result is on the new players' board, where new accounts play their "
            "first days: %(command)s",
            "%(count)s results are on the new players' board, where new accounts play their "
            "first days: %(command)s",
            self.results,
        ) % {"count": self.results, "command": self.command}

    def as_json(self) -> dict[str, Any]:
        if self.yours is not None:
            return {"yours": {"score": self.yours.score, "rank": self.yours.rank}}
        return {"results": self.results}


async def new_board_hint(
    connection: Connection,
    mine: HistoryGame | None,
    *,
    day: date,
    suits: SuitCount,
    board: Board,
    total: int,
    command: str,
) -> NewBoardHint | None:
    """Where to look when the public board (``board``, of ``total`` results) does not show
    a day's results, if anywhere: see :class:`NewBoardHint`."""
    if board != "humans":
        return None
    if mine is not None and mine.board == "new" and not mine.review:
        return NewBoardHint(command, yours=mine)
    if total:
        return None
    newcomers = await connection.request(
        LeaderboardRequest(type="leaderboard", day=day, suits=suits, board="new", limit=1),
        LeaderboardPage,
    )
    return NewBoardHint(command, results=newcomers.total) if newcomers.total else None


async def daily_results(connection: Connection, day: date) -> dict[int, HistoryGame]:
    """The signed-in player's finished daily games of ``day``, by suit count."""
    history = await connection.request(
        HistoryRequest(type="history", limit=HISTORY_LOOKUP), History
    )
    return {game.suits: game for game in history.games if game.mode == "daily" and game.day == day}


async def held_results(connection: Connection, day: date) -> dict[int, HistoryGame]:
    """The signed-in player's daily results of ``day`` held for review, by suit count."""
    results = await daily_results(connection, day)
    return {suits: game for suits, game in results.items() if game.review}


def result_text(game: HistoryGame) -> str:
    """A finished daily in a few words: ``score 812, rank 3``, ``score 849, rank 1 on the new
    players' board (verified)`` or ``score 812, under review``."""
    score = _("score %(score)s") % {"score": game.score}
    if game.review:
        return f"{score}, {_(UNDER_REVIEW)}"
    if game.rank is None:
        return score
    board = f" {note}" if (note := board_note(game.board, None)) else ""
    verified = " " + _("(verified)") if game.verified else ""
    return score + _(", rank %(rank)s") % {"rank": game.rank} + board + verified


def board_title(board: BoardName) -> str:
    if board == "bots":
        return " · " + _("bots")
    if board == "friends":
        return " · " + _("friends")
    return " · " + _("new players") if board == "new" else ""


async def _history(args: argparse.Namespace) -> int:
    connection = await open_connection(args, account=args.name is None)
    try:
        history = await connection.request(
            HistoryRequest(type="history", player=args.name, limit=args.limit), History
        )
    finally:
        await connection.close()
    if args.json:
        print_json(_dump(history))
        return 0
    stats = history.stats
    best = ", ".join(
        f"{plural(int(s), 'suit')} {score}" for s, score in sorted(stats.best_score.items())
    )
    title = _("%(player)s: %(games)s, %(won)s won") % {
        "player": history.player,
        "games": plural(stats.games, "game"),
        "won": stats.won,
    }
    if best:
        title += _("; best %(best)s") % {"best": best}
    if history.games:
        Console().print(history_table(title, history.games))
        print(game_ids(history.games))
    else:
        print(_("%(player)s: no games yet") % {"player": history.player})
    if history.counts_from is not None:
        print(
            _(
                "New player: dailies go on the new players' board; they count on the public "
                "board from %(day)s."
            )
            % {"day": history.counts_from}
        )
    return 0


def history_table(title: str, games: Sequence[HistoryGame]) -> Table:
    """A player's games, one a line; codes are never cut: at 80 columns a long one folds."""
    table = Table(
        title=title,
        title_justify="left",
        box=None,
        header_style="bold underline",
        padding=(0, 1, 0, 0),
        pad_edge=False,
    )
    for column, justify in (
        (N_("Day"), "left"),
        (N_("Code"), "left"),
        (N_("Mode"), "left"),
        (N_("Won"), "center"),
        (N_("Score"), "right"),
        (N_("Moves"), "right"),
        (N_("Time"), "right"),
        (N_("Rank"), "right"),
    ):
        table.add_column(
            _(column),
            justify=justify,  # type: ignore[arg-type]
            overflow="fold",  # a race's code may wrap at its space, never be cut
            no_wrap=column != "Mode",
        )
    for game in games:
        table.add_row(
            _day_of(game),
            _code_of(game),
            _("race %(room)s") % {"room": game.race}
            if game.race
            else _(MODES.get(game.mode, game.mode)),
            "✓" if game.won else "",
            str(game.score),
            str(game.moves),
            format_clock(game.elapsed),
            _standing(game),
        )
    return table


def game_ids(games: Sequence[HistoryGame]) -> str:
    """The games' ids, in the order of :func:`history_table` (too long for a column there at
    80 characters): what a player copies to replay or review a game."""
    lines = [_("Game ids (simon replay --game ID, simon review ID):")]
    lines += [f"  {_day_of(game)} {pad(_code_of(game), 14)} {game.game}" for game in games]
    return "\n".join(lines)


def _day_of(game: HistoryGame) -> str:
    return str(game.day or game.finished_at[:10])


def _code_of(game: HistoryGame) -> str:
    return game.code or _("(today's)")  # a daily's code stays secret until its day is over


def _standing(game: HistoryGame) -> str:
    """A finished game's rank column: its daily rank (or under review), or its race place
    (the Mode column says it was a race)."""
    if game.review:
        return _(UNDER_REVIEW)
    if game.rank is not None:
        tags = [
            tag
            for tag, on in ((_("new"), game.board == "new"), (_("verified"), game.verified))
            if on
        ]
        return str(game.rank) + (f" ({', '.join(tags)})" if tags else "")
    if game.place is not None:
        return ordinal(game.place)
    return ""


#: How often ``simon daily`` asks again while the server proves the day's deals (seconds).
PROVING_RETRY = 2.0


async def today_deals(connection: Connection) -> DailyInfo:
    """Today's deals, waiting (with a line on stderr) while the server still proves them."""
    told = False
    while True:
        try:
            return await connection.request(DailyRequest(type="daily"), DailyInfo)
        except ServerError as error:
            if error.code != ErrorCode.PROVING:
                raise
            if not told:
                print(_("proving today's deals: a moment…"), file=sys.stderr, flush=True)
                told = True
            await asyncio.sleep(PROVING_RETRY)


async def _daily(args: argparse.Namespace) -> int:
    connection = await open_connection(args)
    try:
        info = await today_deals(connection)
        held = await held_results(connection, info.day) if connection.player else {}
    finally:
        await connection.close()
    deals = [deal for deal in info.deals if args.suits in (None, deal.suits)]
    yesterday = [deal for deal in info.yesterday if args.suits in (None, deal.suits)]
    if args.json:
        result = _dump(info)
        result["deals"] = [_dump(deal) for deal in deals]
        result["yesterday"] = [_dump(deal) for deal in yesterday]
        for deal in result["deals"]:
            if deal["ready"] is None:  # ready: said only of one still being proven
                del deal["ready"]
            if deal["suits"] in held:
                deal["review"] = held[deal["suits"]].review
        print_json(result)
        return 0
    hours, rest = divmod(int(info.seconds_left), 3600)
    print(
        _("Daily deals for %(day)s (next in %(hours)s h %(minutes)s min):")
        % {"day": long_day(info.day), "hours": hours, "minutes": f"{rest // 60:02}"}
    )
    for deal in deals:
        progress = _progress(deal.suits, deal.started, deal.finished)
        if deal.ready is False:  # it opens by itself: simon play --daily waits for it
            progress = _("being proven: ready in a few seconds")
        if deal.suits in held:
            progress += _(", under review (off the leaderboard for now)")
        print(f"  {pad(plural(deal.suits, 'suit'), 7)}  {progress}")
    if any(deal.suits in held for deal in deals) and (wait := review_wait(connection.review_hours)):
        print(f"  {wait}")
    if deals and connection.player is None:
        print(
            _("No account here: `simon register NAME` to play (server %(server)s).")
            % {"server": connection.url}
        )
    elif deals:
        print(_("A deal is revealed when you start it (simon play --daily --suits N): its clock"))
        print(_("starts then."))
    elif args.suits is not None:
        print(_("No %(suits)s-suit deal today.") % {"suits": args.suits})
    if yesterday:
        print(_("Yesterday's deals:"))
        for past in yesterday:
            par = past.par if past.par is not None else _("not known")
            line = _("par %(par)s") % {"par": par}
            print(f"  {pad(plural(past.suits, 'suit'), 7)}  {past.code}  {line}")
    return 0


def _progress(suits: int, started: bool | None, finished: bool | None) -> str:
    """How far the signed-in player is with one of today's deals (``started`` None: no one
    is signed in)."""
    if finished:
        return _("played")
    if started:
        return _("started: take it up with simon play --daily --suits %(suits)s") % {"suits": suits}
    return _("not started") if started is not None else _("ready to play")  # no account here


_positive = bounded(
    int, noun=N_("a positive number"), rule=N_("give a positive number"), accept=lambda v: v >= 1
)
_limit = bounded(
    int, noun=N_("a whole number"), rule=N_("give 1 to 100"), accept=lambda v: 1 <= v <= 100
)
_around = bounded(
    int, noun=N_("a whole number"), rule=N_("give 0 to 25"), accept=lambda v: 0 <= v <= 25
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("leaderboard", help=_("a day's ranking of the daily deal"))
    parser.add_argument("--day", type=parse_day, metavar="YYYY-MM-DD", help=_("default: today"))
    parser.add_argument("--suits", type=int, choices=SUIT_COUNTS, default=1)
    parser.add_argument("--top", type=_positive, default=20, metavar="K", help=_("rows (20)"))
    parser.add_argument(
        "--around-me", action="store_true", help=_("your rank and the rows around it")
    )
    parser.add_argument(
        "--board",
        choices=get_args(Board),
        help=_(
            "the humans' leaderboard (default; a bot's --around-me: the bots'), "
            "the new players' (new) or the bots'"
        ),
    )
    parser.add_argument(
        "--friends", action="store_true", help=_("you and everyone you follow (simon follow NAME)")
    )
    parser.add_argument("--around", type=_around, default=5, metavar="N", help=argparse.SUPPRESS)
    add_server_argument(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=_leaderboard_command, command_parser=parser)

    parser = subparsers.add_parser("history", help=_("a player's finished games"))
    parser.add_argument(
        "name", nargs="?", type=player_name, metavar=_("name"), help=_("default: you")
    )
    parser.add_argument(
        "--limit", type=_limit, default=20, metavar="N", help=_("the latest N games, 1 to 100 (20)")
    )
    add_server_argument(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=lambda args: asyncio.run(_history(args)))

    parser = subparsers.add_parser(
        "daily", help=_("today's deals (revealed when started) and yesterday's codes and par")
    )
    parser.add_argument("--suits", type=int, choices=SUIT_COUNTS)
    add_server_argument(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=lambda args: asyncio.run(_daily(args)))


__all__ = ["UsageError", "register"]
