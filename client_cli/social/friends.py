"""``simon follow``, ``unfollow``, ``block``, ``unblock`` and ``following``; and the
friends' board (``simon leaderboard --friends``): you and everyone you follow, with no
scores of today before you finished your own daily."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import BaseModel
from rich.console import Console

from server.protocol import (
    Block,
    Follow,
    FollowedPlayer,
    Following,
    FollowingRequest,
    LeaderboardPage,
    LeaderboardRequest,
    LeaderboardRow,
    Unblock,
    Unfollow,
)

from ..arguments import player_name, refuse
from ..offline import add_json_argument
from ..online import add_server_argument, ask_signed_in, open_connection, print_json
from ..wording import plural
from ..words import _, long_day

PAGE = 100  # the most rows the server sends at once


def dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json", exclude={"type", "id"})


def _said(request: str, name: str) -> str:
    """What a follow, unfollow, block or unblock of ``name`` did, in one line."""
    said = {"name": name}
    if request == "follow":
        return (
            _(
                "You follow %(name)s now: their dailies show on your friends' board "
                "(simon leaderboard --friends), and you hear when they finish one."
            )
            % said
        )
    if request == "unfollow":
        return _("You no longer follow %(name)s.") % said
    if request == "block":
        return _("%(name)s is blocked: they do not follow you, and cannot follow you again.") % said
    return _("%(name)s is no longer blocked: they may follow you again.") % said


async def _change(args: argparse.Namespace) -> int:
    """``simon follow|unfollow|block|unblock NAME``."""
    kinds: dict[str, type[Follow | Unfollow | Block | Unblock]] = {
        "follow": Follow,
        "unfollow": Unfollow,
        "block": Block,
        "unblock": Unblock,
    }
    request = kinds[args.command](type=args.command, name=args.name)
    _, circle = await ask_signed_in(args, request, Following)
    if args.json:
        print_json(dump(circle))
        return 0
    print(_said(args.command, args.name))
    return 0


def _names(players: Sequence[FollowedPlayer]) -> list[str]:
    return [
        f"  {player.name}  " + _("since %(day)s") % {"day": _day(player.since)}
        for player in players
    ]


def _day(since: str) -> str:
    try:
        return long_day(datetime.fromisoformat(since).date())
    except ValueError:
        return since


def circle_lines(circle: Following) -> list[str]:
    """Whom you follow, who follows you, whom you blocked: a heading and a line each."""
    lines = [_("You follow (%(count)s):") % {"count": len(circle.following)}]
    lines += _names(circle.following) or [
        "  " + _("nobody yet: simon follow NAME puts a player on your friends' board")
    ]
    lines.append(_("Your followers (%(count)s):") % {"count": len(circle.followers)})
    lines += _names(circle.followers) or ["  " + _("nobody yet")]
    if circle.blocked:
        lines.append(_("Blocked (%(count)s):") % {"count": len(circle.blocked)})
        lines += _names(circle.blocked)
    return lines


async def _following(args: argparse.Namespace) -> int:
    _, circle = await ask_signed_in(args, FollowingRequest(type="following"), Following)
    if args.json:
        print_json(dump(circle))
    else:
        print("\n".join(circle_lines(circle)))
    return 0


# -- the friends' board ---------------------------------------------------------------


async def friends_board(args: argparse.Namespace) -> int:
    """``simon leaderboard --friends``: the board of you and everyone you follow; today,
    before your own daily, only who of them has finished."""
    if args.around_me or args.board is not None:
        refuse(args, _("--friends is a board of its own: give it without --board or --around-me"))
    from ..boards import leaderboard_table  # boards hands --friends over to this module

    connection = await open_connection(args, account=True)
    me = connection.player.name if connection.player else None
    try:
        rows: list[LeaderboardRow] = []
        after, page = None, None
        while len(rows) < args.top:
            page = await connection.request(
                LeaderboardRequest(
                    type="leaderboard",
                    day=args.day,
                    suits=args.suits,
                    board="friends",
                    limit=min(PAGE, args.top - len(rows)),
                    after=after,
                ),
                LeaderboardPage,
            )
            rows += page.rows
            after = page.next
            if after is None or not page.rows:
                break
    finally:
        await connection.close()
    assert page is not None
    if args.json:
        result: dict[str, Any] = {
            "day": page.day.isoformat(),
            "suits": page.suits,
            "board": "friends",
            "total": page.total,
            "rows": [dump(row) for row in rows],
        }
        if page.finished is not None:
            result["finished"] = page.finished
        print_json(result)
        return 0
    title = f"{page.day} · {plural(page.suits, 'suit')} · " + _("friends") + " · "
    title += plural(page.total, "result")
    if rows:
        Console().print(leaderboard_table(title, rows, me))
        return 0
    print(title)
    print(friends_empty(page))
    return 0


def friends_empty(page: LeaderboardPage) -> str:
    """Why a friends' board shows no rows: your own daily is not done yet (and who of your
    friends has finished), or nobody finished that day."""
    said = {"suits": page.suits, "day": page.day}
    if page.finished:
        return _(
            "finished: %(names)s — finish yours to see their scores "
            "(simon play --daily --suits %(suits)s)"
        ) % {"names": ", ".join(page.finished), "suits": page.suits}
    if page.finished is not None:
        return (
            _(
                "Nobody you follow has finished today's %(suits)s-suit deal yet; "
                "finish yours to see their scores when they do (simon play --daily "
                "--suits %(suits)s)."
            )
            % said
        )
    return (
        _(
            "No results: neither you nor anyone you follow finished the %(suits)s-suit "
            "deal of %(day)s."
        )
        % said
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    helps = {
        "follow": _("follow a player: their dailies go on your friends' board"),
        "unfollow": _("stop following a player"),
        "block": _("stop a player following you, now and later"),
        "unblock": _("let a blocked player follow you again"),
    }
    for command, help_text in helps.items():
        parser = subparsers.add_parser(command, help=help_text)
        parser.add_argument("name", type=player_name, metavar=_("NAME"))
        add_server_argument(parser)
        add_json_argument(parser)
        parser.set_defaults(handler=lambda args: asyncio.run(_change(args)))
    parser = subparsers.add_parser(
        "following", help=_("whom you follow, who follows you, and whom you blocked")
    )
    add_server_argument(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=lambda args: asyncio.run(_following(args)))


__all__ = ["circle_lines", "friends_board", "friends_empty", "register"]
