"""Where an account is signed in and what is kept about it: ``simon devices`` (with
``--revoke ID`` and ``--others``), ``simon recovery-codes``, ``simon export`` and
``simon delete-account``."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import urllib.error
import urllib.request
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import ValidationError

from server.names import name_key, normal_name
from server.protocol import (
    AccountDeleted,
    DeleteAccount,
    Devices,
    DevicesRequest,
    Error,
    RecoveryCodes,
    RecoveryCodesRequest,
    Revoke,
    ServerMessage,
    SignedOut,
    parse_server_message,
)

from .accounts import command
from .config import Account, Config, server_address
from .connection import Connection, describe_failure
from .errors import ClientError, NetworkError, NoAccountError, ServerError, UsageError
from .online import ask_signed_in, chosen_account, no_account, open_connection, print_json
from .words import N_, _, ngettext, number, pad, width

#: How each kind of credential came to be, as ``simon devices`` says it.
KINDS = {
    "registration": N_("registered"),
    "rotation": N_("new token"),
    "passkey": N_("passkey"),
    "terminal": N_("sign-in code"),
    "recovery": N_("recovery code"),
}
#: How long ``simon export`` waits for the server's file.
EXPORT_TIMEOUT = 120.0


def _when(text: str) -> str:
    """A time the server sent, in this machine's time zone, to the minute."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return text
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def _devices_json(server: str, found: Devices) -> dict[str, Any]:
    return {"server": server, **found.model_dump(exclude={"type", "id"})}


def _print_devices(name: str, server: str, found: Devices) -> None:
    print(
        _("Where %(name)s is signed in on %(server)s (* this terminal):")
        % {"name": name, "server": server}
    )
    rows = [
        (
            "*" if c.current else " ",
            str(c.id),
            _(KINDS[c.kind]) if c.kind in KINDS else c.kind,
            c.device,
            _("%(when)s from %(address)s")
            % {"when": _when(c.last_used), "address": c.last_used_from},
        )
        for c in found.credentials
    ]
    heads = ("", _("ID"), _("HOW"), _("DEVICE"), _("LAST USED"))
    sizes = [max(width(row[i]) for row in [heads, *rows]) for i in range(5)]
    for row in [heads, *rows]:
        print("  " + "  ".join(pad(cell, size) for cell, size in zip(row, sizes, strict=True)))
    for passkey in found.passkeys:
        print(
            _("Passkey %(name)s, added %(when)s")
            % {"name": passkey.name, "when": _when(passkey.created)}
        )
    left = found.recovery_codes_left
    if left:
        print(
            ngettext("%(count)s recovery code left.", "%(count)s recovery codes left.", left)
            % {"count": number(left)}
        )
    else:
        print(_("No recovery codes: `simon recovery-codes` makes ten."))


async def _signed_out_here(connection: Connection, request: Revoke) -> None:
    """Revoke this terminal's own credential: the server answers with ``signed_out``."""
    gone: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()

    def heard(message: ServerMessage) -> None:
        if isinstance(message, SignedOut) and not gone.done():
            gone.set_result(message)

    connection.on_message = heard
    await connection.send(request)
    try:
        await asyncio.wait_for(gone, connection.timeout)
    except TimeoutError:
        raise NetworkError(
            _("the server at %(url)s did not answer in time") % {"url": connection.url}
        ) from None


async def _devices(args: argparse.Namespace) -> int:
    server = server_address(args.server)
    connection = await open_connection(args, account=True)
    try:
        player = connection.player
        assert player is not None
        found = await connection.request(DevicesRequest(type="devices"), Devices)
        said = ""
        if args.others:
            request = Revoke(type="revoke", others=True)
            after = await connection.request(request, Devices)
            gone = len(found.credentials) - len(after.credentials)
            said = ngettext(
                "Signed out %(count)s other place.", "Signed out %(count)s other places.", gone
            ) % {"count": number(gone)}
            found = after
        elif args.revoke is not None:
            revoked = next((c for c in found.credentials if c.id == args.revoke), None)
            if revoked is None:
                raise UsageError(
                    _(
                        "%(name)s is signed in nowhere with the id %(id)s: "
                        "`simon devices` lists them"
                    )
                    % {"name": player.name, "id": args.revoke}
                )
            request = Revoke(type="revoke", credential=args.revoke)
            if revoked.current:
                await _signed_out_here(connection, request)
                return _forget(args, server, player.name)
            found = await connection.request(request, Devices)
            said = _("Signed out %(device)s (%(id)s).") % {
                "device": revoked.device,
                "id": revoked.id,
            }
    finally:
        await connection.close()
    if args.json:
        print_json(_devices_json(server, found))
        return 0
    if said:
        print(said)
    _print_devices(player.name, server, found)
    if not said:
        print(
            _(
                "`simon devices --revoke ID` signs one out; `simon devices --others`, every "
                "one but this terminal."
            )
        )
    return 0


def _forget(args: argparse.Namespace, server: str, name: str) -> int:
    """This terminal was signed out: its account is no longer kept."""
    config = Config()
    config.remove_account(server, name)
    config.save()
    if args.json:
        print_json({"player": name, "server": server, "signed_out": True})
    else:
        print(
            _(
                "Signed out here: %(name)s's token is refused from now on and no longer kept "
                "in %(path)s."
            )
            % {"name": name, "path": config.path}
        )
    return 0


async def _recovery_codes(args: argparse.Namespace) -> int:
    server = server_address(args.server)
    player, reply = await ask_signed_in(
        args, RecoveryCodesRequest(type="recovery_codes"), RecoveryCodes
    )
    if args.json:
        print_json({"player": player.name, "server": server, "codes": reply.codes})
        return 0
    count = len(reply.codes)
    print(
        ngettext(
            "%(count)s recovery code for %(name)s on %(server)s; it signs in once, with "
            "`simon login --recovery-code CODE`, where no other way is left:",
            "%(count)s recovery codes for %(name)s on %(server)s; each signs in once, with "
            "`simon login --recovery-code CODE`, where no other way is left:",
            count,
        )
        % {"count": number(count), "name": player.name, "server": server}
    )
    print()
    for code in reply.codes:
        print(f"    {code}")
    print()
    print(
        _(
            "Keep them somewhere safe, away from this machine: they are shown only this once, "
            "and the codes made before no longer work."
        )
    )
    return 0


def export_url(server: str) -> str:
    """The account export's address on the server at websocket URL ``server``.

    >>> export_url("wss://simon.example:443/")
    'https://simon.example:443/account/export'
    """
    parts = urlsplit(server)
    scheme = "https" if parts.scheme == "wss" else "http"
    return urlunsplit((scheme, parts.netloc, "/account/export", "", ""))


def _download(url: str, account: Account) -> bytes:
    request = urllib.request.Request(
        url, headers={"Authorization": f"Bearer {account.token}", "Accept": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=EXPORT_TIMEOUT) as response:
            body: bytes = response.read()
            return body
    except urllib.error.HTTPError as error:
        raise _http_refusal(url, error) from None
    except urllib.error.URLError as error:
        reason = error.reason if isinstance(error.reason, BaseException) else error
        raise NetworkError(describe_failure(url, reason)) from None
    except OSError as error:
        raise NetworkError(describe_failure(url, error)) from None


def _http_refusal(url: str, error: urllib.error.HTTPError) -> ClientError:
    """The server's ``{"error": ...}`` answer as a ServerError, else a NetworkError."""
    try:
        said = json.loads(error.read())["error"]
        message = parse_server_message(json.dumps({"type": "error", **said}))
    except (ValueError, KeyError, TypeError, ValidationError, OSError):
        message = None
    if isinstance(message, Error):
        return ServerError(message)
    return NetworkError(
        _("the server at %(url)s answered %(status)s") % {"url": url, "status": error.code}
    )


def _write(path: Path, body: bytes) -> None:
    """Write the export owner-only: it holds the account's personal data."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(handle, "wb") as stream:
        stream.write(body)


def _export(args: argparse.Namespace) -> int:
    server = server_address(args.server)
    account = chosen_account(args, server)
    if account is None:
        raise NoAccountError(no_account(server))
    url = export_url(server)
    body = _download(url, account)
    try:
        data = json.loads(body)
        games = len(data.get("games", []))
    except (ValueError, AttributeError, TypeError):
        raise NetworkError(_("the server at %(url)s sent no account data") % {"url": url}) from None
    path = Path(args.output or f"simon-{account.name}-data.json")
    try:
        _write(path, body)
    except OSError as error:
        raise ClientError(
            _("cannot write %(path)s: %(error)s") % {"path": path, "error": error.strerror or error}
        ) from None
    if args.json:
        print_json({"player": account.name, "server": server, "path": str(path), "games": games})
    else:
        print(
            ngettext(
                "Wrote %(path)s: what %(server)s keeps about %(name)s, with its %(count)s game.",
                "Wrote %(path)s: what %(server)s keeps about %(name)s, with its %(count)s games.",
                games,
            )
            % {"path": path, "server": server, "name": account.name, "count": number(games)}
        )
    return 0


def _confirmation(args: argparse.Namespace, name: str, server: str) -> str:
    """The name typed to confirm (``--confirm``, else asked at the terminal)."""
    if args.confirm is not None:
        return str(args.confirm)
    if args.json or not sys.stdin.isatty():
        raise UsageError(
            _("no terminal to confirm at: give --confirm %(name)s to delete the account")
            % {"name": name}
        )
    print(
        _(
            "This deletes the account %(name)s on %(server)s: every place it is signed in, "
            "its passkeys, recovery codes and personal data are removed. Its results stay on "
            "past leaderboards under an anonymous name. It cannot be undone "
            "(`simon export` keeps a copy of the data first)."
        )
        % {"name": name, "server": server}
    )
    return input(_("Type the account's name, %(name)s, to delete it: ") % {"name": name})


async def _delete_account(args: argparse.Namespace) -> int:
    server = server_address(args.server)
    account = chosen_account(args, server)
    if account is None:
        raise NoAccountError(no_account(server))
    typed = normal_name(_confirmation(args, account.name, server))
    if name_key(typed) != name_key(account.name):
        raise UsageError(
            _("%(typed)r is not %(name)s: nothing was deleted")
            % {"typed": typed, "name": account.name}
        )
    connection = await open_connection(args, account=True)
    try:
        player = connection.player
        assert player is not None
        reply = await connection.request(
            DeleteAccount(type="delete_account", confirm=player.name), AccountDeleted
        )
    finally:
        await connection.close()
    config = Config()
    config.remove_account(server, player.name)
    config.account_language = None
    config.save()
    if args.json:
        print_json({"player": player.name, "server": server, "anonymous": reply.name})
    else:
        print(
            _(
                "Deleted the account %(name)s on %(server)s; its results stay on past "
                "leaderboards as %(anonymous)s, and its token is no longer kept in %(path)s."
            )
            % {
                "name": player.name,
                "server": server,
                "anonymous": reply.name,
                "path": config.path,
            }
        )
    return 0


def _credential_id(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(
            _("%(text)r is no id: `simon devices` lists them") % {"text": text}
        )
    return value


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = command(
        subparsers,
        "devices",
        lambda args: asyncio.run(_devices(args)),
        help=_("where the account is signed in (* marks this terminal); sign places out"),
    )
    how = parser.add_mutually_exclusive_group()
    how.add_argument(
        "--revoke",
        type=_credential_id,
        metavar="ID",
        help=_("sign out the place with this id (its token is refused from now on)"),
    )
    how.add_argument(
        "--others",
        action="store_true",
        help=_("sign out every place but this terminal"),
    )
    command(
        subparsers,
        "recovery-codes",
        lambda args: asyncio.run(_recovery_codes(args)),
        help=_("make ten recovery codes, shown once (those made before stop working)"),
    )
    parser = command(
        subparsers,
        "export",
        _export,
        help=_("download what the server keeps about the account, as JSON"),
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar=_("FILE"),
        help=_("where to write it (default: simon-NAME-data.json here)"),
    )
    parser = command(
        subparsers,
        "delete-account",
        lambda args: asyncio.run(_delete_account(args)),
        help=_("delete the account; its results stay on past boards under an anonymous name"),
    )
    parser.add_argument(
        "--confirm",
        metavar=_("NAME"),
        help=_("the account's name, to confirm without being asked"),
    )
