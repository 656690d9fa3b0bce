"""What every command that talks to the server shares: the address, the account, the socket."""

from __future__ import annotations

import argparse
import json
from typing import Any, TypeVar

from pydantic import BaseModel

from server.protocol import PlayerInfo

from .config import Account, Config, server_address
from .connection import Connection
from .errors import NoAccountError
from .words import _


def add_server_argument(parser: argparse.ArgumentParser, *, shared: bool = False) -> None:
    """``--server URL``; ``shared`` for the one before the command, which a command's own
    overrides (the command's has no default, so it leaves the shared value alone)."""
    parser.add_argument(
        "--server",
        metavar="URL",
        default=None if shared else argparse.SUPPRESS,
        help=_("the server, like ws://HOST:PORT (default: $SIMON_SERVER or ws://127.0.0.1:8765)"),
    )
    parser.add_argument(
        "--as",
        dest="as_name",
        metavar=_("NAME"),
        default=None if shared else argparse.SUPPRESS,
        help=_("play as this account kept for the server, not the current one (simon accounts)"),
    )


async def open_connection(
    args: argparse.Namespace, *, account: bool = False, reconnect: bool = False
) -> Connection:
    """A connection to ``--server``, authenticated as ``--as NAME`` or the current account
    kept for that server, if any.

    ``account=True`` refuses to go on without one.
    """
    server = server_address(args.server)
    saved = chosen_account(args, server)
    if account and saved is None:
        raise NoAccountError(no_account(server))
    connection = Connection(server, token=saved.token if saved else None, reconnect=reconnect)
    await connection.open()
    player = connection.player
    if saved is not None and player is not None:
        config = Config()
        changed = player.bot != saved.bot or config.account_language != player.language
        # a file from an older client did not know: `accounts` marks it now
        config.mark_bot(server, saved.name, player.bot)
        # the next run's first words, and the offline commands', are the account's
        config.account_language = player.language
        if changed:
            config.save()
    return connection


Reply = TypeVar("Reply", bound=BaseModel)


async def ask_signed_in(
    args: argparse.Namespace, message: BaseModel, expect: type[Reply]
) -> tuple[PlayerInfo, Reply]:
    """One request on a connection signed in as the chosen account (refused without one):
    the account, and the reply, which must be an ``expect``."""
    connection = await open_connection(args, account=True)
    try:
        player = connection.player
        assert player is not None  # signed in, or open_connection refused
        return player, await connection.request(message, expect)
    finally:
        await connection.close()


def no_account(server: str) -> str:
    return _("no account on %(server)s: run `simon register NAME` first") % {"server": server}


def chosen_account(args: argparse.Namespace, server: str) -> Account | None:
    """The account ``--as NAME`` names (an error if it is not kept), else the current one."""
    config = Config()
    name = getattr(args, "as_name", None)
    if name is None:
        return config.account(server)
    found = config.account(server, name)
    if found is None:
        raise NoAccountError(config.not_kept(server, name))
    return found


def print_json(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False))
