"""``simon league``: private leagues. ``new``, ``join`` (a code or its invite link),
``leave``, ``list`` (the default), ``show`` (today's places and points, the season's table,
past winners, members' streaks), and the owner's ``remove``, ``hand-over`` and ``public``.
"""

from __future__ import annotations

import argparse
import asyncio
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel
from rich.console import Console
from rich.table import Table
from rich.text import Text

from server.engine import SUIT_COUNTS
from server.protocol import (
    LeagueHandOver,
    LeagueJoin,
    LeagueLeave,
    LeagueNew,
    LeaguePublic,
    LeagueRemove,
    LeagueRequest,
    Leagues,
    LeaguesRequest,
    LeagueView,
    room_code_form,
)

from ..arguments import player_name
from ..offline import add_json_argument
from ..online import add_server_argument, ask_signed_in, print_json
from ..race_table import ordinal
from ..ui.widgets import format_clock
from ..wording import plural
from ..words import _, long_day
from .friends import dump

#: The longest league name the server keeps.
NAME_MOST = 40


def league_code(text: str) -> str:
    """A league's code for argparse's ``type=``: as typed (any case, the dash optional), or
    the invite link that carries it (``https://HOST/play?league=KXR4M-7M2PQ``).

    >>> league_code("https://example.org/play?league=kxr4m7m2pq")
    'KXR4M-7M2PQ'
    """
    typed = text.strip()
    if "league=" in typed:
        found = parse_qs(urlsplit(typed).query).get("league", [""])
        typed = found[0]
    code = room_code_form(typed)
    if code is None:
        raise argparse.ArgumentTypeError(
            _("%(text)r is no league code: give its code (like KXR4M-7M2PQ) or its invite link")
            % {"text": text}
        )
    return code


def league_name(text: str) -> str:
    name = " ".join(text.split())
    if not 1 <= len(name) <= NAME_MOST:
        raise argparse.ArgumentTypeError(
            _("a league's name is 1 to %(most)s characters long") % {"most": NAME_MOST}
        )
    return name


def month(text: str) -> str:
    if not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", text.strip()):
        raise argparse.ArgumentTypeError(
            _("%(text)r is not a month: write YYYY-MM") % {"text": text}
        )
    return text.strip()


def on_off(text: str) -> bool:
    if text.lower() in ("on", "yes", "true"):
        return True
    if text.lower() in ("off", "no", "false"):
        return False
    raise argparse.ArgumentTypeError(_("give on or off"))


# -- what a league's page shows ------------------------------------------------------


def heading(view: LeagueView) -> list[str]:
    """The league's name, code, suits, owner and who sees it; its invite link."""
    seen = _("public page") if view.public else _("private")
    said = {
        "name": view.name,
        "code": view.code,
        "suits": plural(view.suits, "suit"),
        "owner": view.owner,
        "members": plural(len(view.members), "member"),
        "seen": seen,
    }
    return [
        _("League %(name)s (%(code)s): %(suits)s, %(members)s, owner %(owner)s, %(seen)s") % said,
        _("Invite link: %(link)s (or: simon league join %(code)s)")
        % {"link": view.invite, "code": view.code},
    ]


def today_table(view: LeagueView) -> Table:
    table = Table(title=_("Today, %(day)s") % {"day": long_day(view.day)}, title_justify="left")
    table.add_column(_("Place"), justify="right")
    table.add_column(_("Player"))
    table.add_column(_("Points"), justify="right")
    table.add_column(_("Won"), justify="center")
    table.add_column(_("Runs"), justify="right")
    table.add_column(_("Score"), justify="right")
    table.add_column(_("Moves"), justify="right")
    table.add_column(_("Time"), justify="right")
    for row in view.today:
        table.add_row(
            ordinal(row.place),
            row.name,
            str(row.points),
            "✓" if row.won else "",
            f"{row.removed}/4",
            str(row.score),
            str(row.moves),
            format_clock(row.elapsed),
        )
    return table


def today_lines(view: LeagueView) -> list[str]:
    """Today when it has no table: who finished (before your own daily), or nobody."""
    day = {"day": long_day(view.day)}
    said = {"suits": view.suits}
    if view.finished_today:
        return [
            _("Today, %(day)s:") % day,
            "  "
            + _(
                "finished: %(names)s — finish yours to see their scores "
                "(simon play --daily --suits %(suits)s)"
            )
            % (said | {"names": ", ".join(view.finished_today)}),
        ]
    return [
        _("Today, %(day)s:") % day,
        "  "
        + _(
            "nobody has finished today's %(suits)s-suit deal yet "
            "(simon play --daily --suits %(suits)s)"
        )
        % said,
    ]


def season_table(view: LeagueView) -> Table:
    table = Table(title=_("Season %(month)s") % {"month": view.month}, title_justify="left")
    table.add_column(_("Place"), justify="right")
    table.add_column(_("Player"))
    table.add_column(_("Points"), justify="right")
    table.add_column(_("Days"), justify="right")
    table.add_column(_("Wins"), justify="right")
    for row in view.season:
        table.add_row(ordinal(row.place), row.name, str(row.points), str(row.days), str(row.wins))
    return table


def members_table(view: LeagueView) -> Table:
    table = Table(
        title=_("Members (%(count)s)") % {"count": len(view.members)}, title_justify="left"
    )
    table.add_column(_("Player"))
    table.add_column(_("Joined"))
    table.add_column(_("Streak"), justify="right")
    for member in view.members:
        owner = " " + _("(owner)") if member.name == view.owner else ""
        table.add_row(member.name + owner, long_day(member.joined), plural(member.streak, "day"))
    return table


def show(view: LeagueView, console: Console | None = None) -> None:
    """A league's whole page, as ``simon league show`` prints it."""
    console = console or Console()
    for line in heading(view):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    console.print()
    if view.today:
        console.print(today_table(view))
    else:
        for line in today_lines(view):
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    console.print()
    if view.season:
        console.print(season_table(view))
    else:
        console.print(
            _("Season %(month)s: no points yet") % {"month": view.month},
            markup=False,
            highlight=False,
        )
    if view.winners:
        console.print()
        console.print(_("Past winners:"), markup=False, highlight=False)
        for winner in view.winners:
            console.print(
                f"  {winner.month}  {winner.name}  {plural(winner.points, 'point')}",
                markup=False,
                highlight=False,
            )
    console.print()
    console.print(members_table(view))


def leagues_table(found: Leagues) -> Table:
    table = Table(title=_("Your leagues"), title_justify="left")
    table.add_column(_("Code"), no_wrap=True)
    table.add_column(_("Name"))
    table.add_column(_("Owner"))
    table.add_column(_("Suits"), justify="right")
    table.add_column(_("Members"), justify="right")
    table.add_column(_("Public"), justify="center")
    for league in found.leagues:
        table.add_row(
            league.code,
            Text(league.name),  # a league's name is the owner's words: no markup
            league.owner,
            str(league.suits),
            str(league.members),
            "✓" if league.public else "",
        )
    return table


def print_leagues(found: Leagues) -> None:
    if found.leagues:
        Console().print(leagues_table(found))
    else:
        print(
            _(
                "You are in no league: simon league new NAME makes one, "
                "simon league join CODE joins one."
            )
        )


# -- the commands ----------------------------------------------------------------------


async def _ask(args: argparse.Namespace, message: BaseModel, expect: type[Any]) -> Any:
    return (await ask_signed_in(args, message, expect))[1]


def _json(args: argparse.Namespace, reply: BaseModel) -> bool:
    if getattr(args, "json", False):
        print_json(dump(reply))
        return True
    return False


async def _list(args: argparse.Namespace) -> int:
    found = await _ask(args, LeaguesRequest(type="leagues"), Leagues)
    if not _json(args, found):
        print_leagues(found)
    return 0


async def _new(args: argparse.Namespace) -> int:
    view = await _ask(
        args, LeagueNew(type="league_new", name=args.name, suits=args.suits), LeagueView
    )
    if _json(args, view):
        return 0
    said = {"name": view.name, "suits": plural(view.suits, "suit"), "code": view.code}
    print(_("League %(name)s made (%(suits)s): its code is %(code)s.") % said)
    print(_("Invite link: %(link)s") % {"link": view.invite})
    print(_("Others join with: simon league join %(code)s") % said)
    return 0


async def _join(args: argparse.Namespace) -> int:
    view = await _ask(args, LeagueJoin(type="league_join", code=args.code), LeagueView)
    if _json(args, view):
        return 0
    said = {"name": view.name, "owner": view.owner, "suits": view.suits}
    print(
        _("You joined %(name)s (owner %(owner)s): its points come from the %(suits)s-suit daily.")
        % said
    )
    print()
    show(view)
    return 0


async def _leave(args: argparse.Namespace) -> int:
    found = await _ask(args, LeagueLeave(type="league_leave", code=args.code), Leagues)
    if _json(args, found):
        return 0
    print(_("You left the league %(code)s.") % {"code": args.code})
    print_leagues(found)
    return 0


async def _show(args: argparse.Namespace) -> int:
    request = LeagueRequest(type="league", code=args.code, month=args.month)
    view = await _ask(args, request, LeagueView)
    if not _json(args, view):
        show(view)
    return 0


async def _remove(args: argparse.Namespace) -> int:
    request = LeagueRemove(type="league_remove", code=args.code, name=args.name)
    view = await _ask(args, request, LeagueView)
    if not _json(args, view):
        said = {"name": args.name, "league": view.name}
        print(
            _("%(name)s is no longer in %(league)s (their past points stay in past days).") % said
        )
    return 0


async def _hand_over(args: argparse.Namespace) -> int:
    request = LeagueHandOver(type="league_hand_over", code=args.code, name=args.name)
    view = await _ask(args, request, LeagueView)
    if not _json(args, view):
        print(_("%(name)s owns %(league)s now.") % {"name": view.owner, "league": view.name})
    return 0


async def _public(args: argparse.Namespace) -> int:
    request = LeaguePublic(type="league_public", code=args.code, public=args.public)
    view = await _ask(args, request, LeagueView)
    if _json(args, view):
        return 0
    said = {"league": view.name}
    if view.public:
        print(_("The page of %(league)s is public now: anyone with its link sees it.") % said)
    else:
        print(_("The page of %(league)s is private again: only its members see it.") % said)
    return 0


def _command(
    commands: Any, name: str, help_text: str, run: Any, *, code: bool = True
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(name, help=help_text)
    if code:
        parser.add_argument(
            "code", type=league_code, metavar=_("CODE"), help=_("its code or invite link")
        )
    add_server_argument(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=lambda args: asyncio.run(run(args)))
    return parser


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    league = subparsers.add_parser(
        "league", help=_("private leagues: a day's points and a monthly season among friends")
    )
    add_server_argument(league)
    add_json_argument(league)
    league.set_defaults(handler=lambda args: asyncio.run(_list(args)))
    # Any: argparse's action is generic in the parser class, and ours is a subclass
    commands: Any = league.add_subparsers(dest="league_command", metavar=_("COMMAND"))
    _command(commands, "list", _("the leagues you are in (the default)"), _list, code=False)
    new = _command(commands, "new", _("make a league: you own it"), _new, code=False)
    new.add_argument("name", type=league_name, metavar=_("NAME"))
    new.add_argument(
        "--suits",
        type=int,
        choices=SUIT_COUNTS,
        default=1,
        help=_("the daily whose results count: 1 Easy (default), 2 Medium, 4 Hard"),
    )
    _command(commands, "join", _("join a league by its code or invite link"), _join)
    _command(commands, "leave", _("leave a league (its owner hands it over first)"), _leave)
    show_parser = _command(
        commands,
        "show",
        _("a league's day, season table, past winners and members' streaks"),
        _show,
    )
    show_parser.add_argument(
        "--month", type=month, metavar="YYYY-MM", help=_("the season shown (default: this one)")
    )
    remove = _command(commands, "remove", _("the owner removes a member"), _remove)
    remove.add_argument("name", type=player_name, metavar=_("NAME"))
    hand_over = _command(
        commands, "hand-over", _("the owner makes another member the owner"), _hand_over
    )
    hand_over.add_argument("name", type=player_name, metavar=_("NAME"))
    public = _command(
        commands,
        "public",
        _("the owner puts the league's page on the web, or takes it off"),
        _public,
    )
    public.add_argument("public", type=on_off, metavar="on|off")


__all__ = ["league_code", "register", "show"]
