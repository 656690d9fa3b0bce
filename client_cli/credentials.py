"""Signing in: ``simon login`` (a code approved in a browser signed in to the account, as
RFC 8628's device flow; or ``--token``, the token of another machine; or
``--recovery-code``) and ``simon token`` (print it, or ``--rotate`` it).

Each sign-in is a credential of its own on the server (``simon devices`` lists them); its
token is kept in the config as ``simon register``'s is.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import socket
import sys
from collections.abc import Callable, Coroutine
from typing import Any, TextIO

from server.protocol import (
    DeviceCode,
    DeviceCodeRequest,
    DeviceToken,
    PlayerInfo,
    Recover,
    RotateToken,
    SignedIn,
    TokenRotated,
)

from .accounts import also_kept, command
from .config import Account, Config, server_address
from .connection import Connection
from .errors import NetworkError, NoAccountError, ServerError, UsageError
from .online import ask_signed_in, chosen_account, no_account, print_json
from .wording import player_label
from .words import _, explicit, language, ngettext, number

#: The most characters of a device's name the server keeps.
DEVICE_NAME_MOST = 64
#: What ``slow-down`` adds to the wait between polls (RFC 8628, section 3.5).
SLOW_DOWN_SECONDS = 5


def device_name() -> str:
    """What this terminal is called in ``simon devices``: ``simon on HOSTNAME``."""
    host = "".join(c for c in socket.gethostname() if c.isprintable()).strip() or "?"
    return f"simon on {host}"[:DEVICE_NAME_MOST]


def _read_token() -> str:
    """The token from standard input (a pipe) or a prompt that does not echo it."""
    if sys.stdin.isatty():
        token = getpass.getpass(_("Token (from `simon token` on the other machine): "))
    else:
        token = sys.stdin.readline()
    token = token.strip()
    if not token:
        raise UsageError(
            _("no token given: pipe it in (simon token | ...) or type it at the prompt")
        )
    return token


def _keep(args: argparse.Namespace, server: str, player: PlayerInfo, token: str) -> int:
    """Keep the account signed in with ``token``, make it current and say so."""
    config = Config()
    before = config.current(server)
    replaced = config.add_account(server, Account(player.name, token, player.bot))
    config.account_language = player.language
    config.save()
    if args.json:
        print_json({"player": player.name, "server": server, "bot": player.bot})
        return 0
    said = {
        "player": player_label(player.name, player.bot),
        "server": server,
        "path": config.path,
        "name": player.name,
        "also": also_kept(config, server, player.name, before),
    }
    if replaced:
        line = _(
            "Logged in as %(player)s on %(server)s; the token is saved in %(path)s, in "
            "place of the one kept for that name, and %(name)s is the current "
            "account%(also)s."
        )
    else:
        line = _(
            "Logged in as %(player)s on %(server)s; the token is saved in %(path)s, and "
            "%(name)s is the current account%(also)s."
        )
    print(line % said)
    return 0


async def _login_with_token(args: argparse.Namespace) -> int:
    server = server_address(args.server)
    token = _read_token()
    async with Connection(server, token=token) as connection:
        player = connection.player
    assert player is not None
    return _keep(args, server, player, token)


async def _login_with_recovery_code(args: argparse.Namespace) -> int:
    server = server_address(args.server)
    async with Connection(server) as connection:
        request = Recover(
            type="recover",
            code=args.recovery_code.strip(),
            device=device_name(),
            lang=language() if explicit() else None,
        )
        signed = await connection.request(request, SignedIn)
    return _keep(args, server, signed.player, signed.token)


def _show_code(asked: DeviceCode, out: TextIO) -> None:
    minutes = max(1, round(asked.expires_in / 60))
    print(
        _("To sign in this terminal, open this link in a browser signed in to your account:"),
        file=out,
    )
    print(f"\n    {asked.verification_uri_complete}\n", file=out)
    print(
        ngettext(
            "and approve the code %(code)s there (or type it at %(page)s). "
            "It expires in %(count)s minute.",
            "and approve the code %(code)s there (or type it at %(page)s). "
            "It expires in %(count)s minutes.",
            minutes,
        )
        % {"code": asked.user_code, "page": asked.verification_uri, "count": number(minutes)},
        file=out,
    )
    print(_("Waiting for the approval… (Ctrl-C stops)"), file=out, flush=True)


def _refused(error: ServerError, message: str) -> ServerError:
    """The server's refusal said in the client's words (its code kept, for ``--json``)."""
    return ServerError(error.error.model_copy(update={"message": message}))


async def _poll(server: str, connection: Connection, asked: DeviceCode) -> SignedIn:
    """Ask for the token every ``interval`` seconds (more on ``slow-down``) until the code
    is approved, refused or expired; a dropped connection is opened again. The connection
    is closed when it returns."""
    try:
        while True:
            try:
                return await _polled(connection, asked)
            except NetworkError:  # the server went away a while (a restart): the code is kept
                await connection.close()
                connection = Connection(server)
                await connection.open()
    finally:
        await connection.close()


async def _polled(connection: Connection, asked: DeviceCode) -> SignedIn:
    interval = max(1, asked.interval)
    poll = DeviceToken(type="device_token", device_code=asked.device_code)
    while True:
        await asyncio.sleep(interval)
        try:
            return await connection.request(poll, SignedIn)
        except ServerError as error:
            if error.code == "authorization-pending":
                continue
            if error.code == "slow-down":
                interval += SLOW_DOWN_SECONDS
                continue
            if error.code == "expired-token":
                raise _refused(
                    error,
                    _(
                        "the code %(code)s expired before it was approved: run `simon login` "
                        "again for a new one"
                    )
                    % {"code": asked.user_code},
                ) from None
            if error.code == "access-denied":
                raise _refused(
                    error,
                    _("the sign-in with the code %(code)s was refused: no account was kept")
                    % {"code": asked.user_code},
                ) from None
            raise


async def _login_with_code(args: argparse.Namespace) -> int:
    server = server_address(args.server)
    connection = await Connection(server).open()
    try:
        request = DeviceCodeRequest(type="device_code", device=device_name())
        asked = await connection.request(request, DeviceCode)
    except BaseException:
        await connection.close()
        raise
    _show_code(asked, sys.stderr if args.json else sys.stdout)
    signed = await _poll(server, connection, asked)
    return _keep(args, server, signed.player, signed.token)


def _login(args: argparse.Namespace) -> int:
    run: Callable[[argparse.Namespace], Coroutine[Any, Any, int]] = _login_with_code
    if args.token:
        run = _login_with_token
    elif args.recovery_code is not None:
        run = _login_with_recovery_code
    try:
        return asyncio.run(run(args))
    except KeyboardInterrupt:
        print(file=sys.stderr)  # past the ^C the terminal echoed
        print(_("simon: stopped; no account was kept"), file=sys.stderr)
        return 130


async def _rotate(args: argparse.Namespace) -> int:
    server = server_address(args.server)
    player, reply = await ask_signed_in(args, RotateToken(type="rotate_token"), TokenRotated)
    config = Config()  # kept at once: the old token is refused from now on
    config.add_account(server, Account(player.name, reply.token, player.bot), current=False)
    config.save()
    if args.json:
        print_json({"player": player.name, "server": server, "token": reply.token})
    else:
        print(
            _(
                "%(player)s on %(server)s has a new token, saved in %(path)s; the old one is "
                "refused from now on (on other machines too: `simon login` there again)."
            )
            % {
                "player": player_label(player.name, player.bot),
                "server": server,
                "path": config.path,
            }
        )
    return 0


def _token(args: argparse.Namespace) -> int:
    if args.rotate:
        return asyncio.run(_rotate(args))
    server = server_address(args.server)
    account = chosen_account(args, server)
    if account is None:
        raise NoAccountError(no_account(server))
    if args.json:
        print_json({"player": account.name, "server": server, "token": account.token})
    else:
        print(account.token)
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command(
        subparsers,
        "login",
        _login,
        help=_("sign this terminal in: approve a code in a browser signed in to the account"),
        description=_(
            "Shows a short code and a link: open it in a browser signed in to the account "
            "and approve the code; this terminal then gets a token of its own, kept as the "
            "current account. `--token` reads a token (printed by `simon token` on a machine "
            "that has the account) from standard input or a prompt that does not echo it; "
            "`--recovery-code` signs in with one of the account's recovery codes."
        ),
    )
    how = parser.add_mutually_exclusive_group()
    how.add_argument(
        "--token",
        action="store_true",
        help=_("read a token from standard input or a prompt, not a code to approve"),
    )
    how.add_argument(
        "--recovery-code",
        metavar=_("CODE"),
        help=_("sign in with a recovery code (each works once)"),
    )
    parser = command(
        subparsers,
        "token",
        _token,
        help=_("print the account's secret token, for `simon login --token` on another machine"),
    )
    parser.add_argument(
        "--rotate",
        action="store_true",
        help=_("replace the token with a new one (kept here; the old one is refused)"),
    )
