"""Accounts: ``simon register NAME``, ``whoami``, ``accounts`` and ``use NAME`` (signing in
elsewhere, tokens and devices are :mod:`client_cli.credentials`'s).

The config keeps every account registered (or logged in) on each server, and which one
is current; ``--as NAME`` picks another for one command. No command forgets a token.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable

from server.protocol import Register, Registered

from .arguments import player_name
from .config import Account, Config, server_address
from .connection import Connection
from .errors import ClientError
from .offline import add_json_argument
from .online import (
    add_server_argument,
    open_connection,
    print_json,
)
from .wording import player_label
from .words import _, language


def also_kept(config: Config, server: str, name: str, before: str | None) -> str:
    """`` (also kept here: alice; `simon use alice` switches back)``, or nothing: the other
    accounts kept, and the way back to ``before``, the account current until ``name``."""
    others = [a.name for a in config.accounts(server) if a.name != name]
    if not others:
        return ""
    names = ", ".join(others)
    if before in others:
        return _(" (also kept here: %(names)s; `simon use %(before)s` switches back)") % {
            "names": names,
            "before": before,
        }
    return _(" (also kept here: %(names)s)") % {"names": names}


async def _register(args: argparse.Namespace) -> int:
    server = server_address(args.server)
    config = Config()
    before = config.current(server)
    async with Connection(server) as connection:
        request = Register(type="register", name=args.name, bot=args.bot)
        reply = await connection.request(request, Registered)
        config.add_account(server, Account(reply.player.name, reply.token, reply.player.bot))
        config.save()  # the token first: it is never shown again
        try:  # the account starts with the language simon speaks, on every device
            await connection.keep_language()
            config.account_language = language()
        except ClientError:  # a server that keeps none: the account is made all the same
            config.account_language = None
    config.save()
    if args.json:
        print_json({"player": reply.player.name, "server": server, "bot": reply.player.bot})
    else:
        name = reply.player.name
        who = _("the bot account %(name)s") % {"name": name} if reply.player.bot else name
        print(
            _(
                "Registered %(who)s on %(server)s; the token is saved in %(path)s, and "
                "%(name)s is the current account%(also)s."
            )
            % {
                "who": who,
                "server": server,
                "path": config.path,
                "name": name,
                "also": also_kept(config, server, name, before),
            }
        )
    return 0


async def _whoami(args: argparse.Namespace) -> int:
    connection = await open_connection(args, account=True)
    try:
        player = connection.player
    finally:
        await connection.close()
    assert player is not None
    if args.json:
        print_json(
            {
                "player": player.name,
                "server": connection.url,
                "created": player.created,
                "bot": player.bot,
            }
        )
    else:
        print(
            _("%(player)s on %(server)s")
            % {"player": player_label(player.name, player.bot), "server": connection.url}
        )
    return 0


def _accounts(args: argparse.Namespace) -> int:
    server = server_address(args.server)
    config = Config()
    accounts = config.accounts(server)
    current = config.current(server)
    if args.json:
        print_json(
            {
                "server": server,
                "current": current,
                "accounts": [{"player": a.name, "bot": a.bot} for a in accounts],
            }
        )
        return 0
    if not accounts:
        print(
            _("No account kept for %(server)s: `simon register NAME` creates one.")
            % {"server": server}
        )
        return 0
    print(_("Accounts kept for %(server)s (* current):") % {"server": server})
    for account in accounts:
        mark = "*" if account.name == current else " "
        print(f"  {mark} {player_label(account.name, account.bot)}")
    return 0


def _use(args: argparse.Namespace) -> int:
    server = server_address(args.server)
    config = Config()
    account = config.use(server, args.name)
    config.save()
    if args.json:
        print_json({"player": account.name, "server": server, "bot": account.bot})
    else:
        print(
            _("Now playing as %(player)s on %(server)s.")
            % {"player": player_label(account.name, account.bot), "server": server}
        )
    return 0


def command(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    handler: Callable[[argparse.Namespace], int],
    *,
    help: str,
    description: str | None = None,
) -> argparse.ArgumentParser:
    """A command with ``--server``, ``--as`` and ``--json``."""
    parser = subparsers.add_parser(name, help=help, description=description)
    add_server_argument(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=handler)
    return parser


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command(
        subparsers,
        "register",
        lambda args: asyncio.run(_register(args)),
        help=_("create an account on the server (kept with the others; now current)"),
    )
    parser.add_argument(
        "name",
        type=player_name,
        metavar=_("name"),
        help=_("the name the others will see: 2 to 24 letters of one alphabet, digits, _ or -"),
    )
    parser.add_argument(
        "--bot",
        action="store_true",
        help=_("a bot account, for good: it plays the daily deals on the bots' leaderboard"),
    )
    command(
        subparsers,
        "whoami",
        lambda args: asyncio.run(_whoami(args)),
        help=_("the account this machine plays as"),
    )
    command(
        subparsers,
        "accounts",
        _accounts,
        help=_("the accounts kept for the server (* marks the current one)"),
    )
    parser = command(subparsers, "use", _use, help=_("make a kept account the current one"))
    parser.add_argument("name", metavar=_("name"), help=_("an account `simon accounts` lists"))
