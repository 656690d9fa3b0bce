"""What every command that talks to the server shares: the address, the account, the socket."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from server.protocol import ErrorCode, PlayerInfo

from .config import Account, Config, server_address
from .connection import Connection
from .errors import NoAccountError, ServerError
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


#: How long to wait before asking again for a daily still being proven, when the server
#: does not say (seconds).
PROVING_RETRY = 3.0


T = TypeVar("T")


async def when_proven(ask: Callable[[], Awaitable[T]], told: Callable[[str], None]) -> T:
    """``ask()``, again and again while the server refuses it ``proving`` (a daily whose deal
    is still being proven opens by itself within seconds), after the ``retry_after`` it
    says; ``told`` hears the refusal's sentence, once."""
    said = False
    while True:
        try:
            return await ask()
        except ServerError as error:
            if error.code != ErrorCode.PROVING:
                raise
            if not said:
                told(error.error.message)
                said = True
            retry = (error.error.detail or {}).get("retry_after") or PROVING_RETRY
            await asyncio.sleep(float(retry))
