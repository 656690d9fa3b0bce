"""``simon register NAME`` and ``simon whoami``."""

from __future__ import annotations

import argparse
import asyncio

from server.protocol import Register, Registered

from .config import Account, Config, server_address
from .connection import Connection
from .offline import add_json_argument
from .online import add_server_argument, open_connection, print_json
from .table import player_label


async def _register(args: argparse.Namespace) -> int:
    server = server_address(args.server)
    config = Config()
    async with Connection(server) as connection:
        request = Register(type="register", name=args.name, bot=args.bot)
        reply = await connection.request(request, Registered)
    config.set_account(server, Account(reply.player.name, reply.token))
    config.save()
    if args.json:
        print_json({"player": reply.player.name, "server": server, "bot": reply.player.bot})
    else:
        who = f"the bot account {reply.player.name}" if reply.player.bot else reply.player.name
        print(f"Registered {who} on {server}; the token is saved in {config.path}.")
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
        print(f"{player_label(player.name, player.bot)} on {connection.url}")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("register", help="create an account on the server")
    parser.add_argument("name", help="the name the others will see")
    parser.add_argument(
        "--bot",
        action="store_true",
        help="a bot account, for good: it plays the daily deals on the bots' leaderboard",
    )
    add_server_argument(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=lambda args: asyncio.run(_register(args)))

    parser = subparsers.add_parser("whoami", help="the account this machine plays as")
    add_server_argument(parser)
    add_json_argument(parser)
    parser.set_defaults(handler=lambda args: asyncio.run(_whoami(args)))
