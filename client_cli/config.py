"""The client's config folder: accounts (tokens) per server and remembered choices (the
last number of suits, the language of the account last signed in).

Everything lives in one JSON file, ``config.json``, readable by its owner only
(0600), in the platform's user config folder or in ``SIMON_CONFIG_DIR``.
The server address comes from ``--server``, else ``SIMON_SERVER``, else the local server.

>>> normalize_server("localhost:9000")
'ws://localhost:9000'
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from platformdirs import user_config_dir

from server.engine import SUIT_COUNTS
from server.i18n import Language, language_named

from .errors import UsageError
from .words import _

DEFAULT_SERVER = "ws://127.0.0.1:8765"
APP_NAME = "simple-simon-online"
CONFIG_FILE = "config.json"


def config_dir() -> Path:
    override = os.environ.get("SIMON_CONFIG_DIR")
    return Path(override) if override else Path(user_config_dir(APP_NAME))


#: Web addresses (as the server's start-up line and the README give them) and their websockets.
WEB_SCHEMES = {"http": "ws", "https": "wss"}


def normalize_server(address: str) -> str:
    """A websocket URL for an address; ``host:port`` means ``ws://host:port``, and a web
    address its websocket (``http://`` is ``ws://``, ``https://`` is ``wss://``).

    >>> normalize_server("http://127.0.0.1:8765/")
    'ws://127.0.0.1:8765'
    >>> normalize_server("127.0.0.1:99999")
    Traceback (most recent call last):
    client_cli.errors.UsageError: '127.0.0.1:99999' has no usable port: give 1 to 65535
    """
    given = address = address.strip().rstrip("/")
    if not address:
        raise UsageError(_("the server address is empty"))
    if "://" not in address:
        address = f"ws://{address}"
    scheme, rest = address.split("://", 1)
    scheme = WEB_SCHEMES.get(scheme.lower(), scheme.lower())
    address = f"{scheme}://{rest}"
    if scheme not in ("ws", "wss"):
        raise UsageError(
            _("%(given)r is not a websocket address: use ws://HOST:PORT") % {"given": given}
        )
    try:
        parts = urlsplit(address)
    except ValueError as error:  # such as a bracket left open: "Invalid IPv6 URL"
        raise UsageError(
            _("%(given)r is not a server address (%(error)s)") % {"given": given, "error": error}
        ) from None
    if not parts.hostname:
        raise UsageError(_("%(given)r names no host: use ws://HOST:PORT") % {"given": given})
    try:
        port = parts.port
    except ValueError:  # not a number, or out of range
        port = 0
    if port == 0:
        raise UsageError(_("%(given)r has no usable port: give 1 to 65535") % {"given": given})
    return address


def server_address(option: str | None) -> str:
    """The server to talk to: ``--server``, else ``SIMON_SERVER``, else the local server;
    a bad address is refused with the place it came from."""
    if option:
        return _checked(option, "--server")
    environment = os.environ.get("SIMON_SERVER")
    if environment:
        return _checked(environment, "SIMON_SERVER")
    return DEFAULT_SERVER


def _checked(address: str, origin: str) -> str:
    try:
        return normalize_server(address)
    except UsageError as error:
        raise UsageError(f"{origin}: {error}") from None


@dataclass(frozen=True)
class Account:
    name: str
    token: str
    bot: bool = False


class Config:
    """The config file, read on creation and written back by :meth:`save`.

    Each server address keeps every account registered (or logged in) there, and which one
    is current::

        {"accounts": {"ws://host:8765": {"current": "ann", "players": {
            "ann": {"token": "...", "bot": false}, "robo": {"token": "...", "bot": true}}}}}

    A file of the older shape (one account per server: ``{"name": ..., "token": ...}``) is
    rewritten in this one when read, its token kept.
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or config_dir()
        self.path = self.folder / CONFIG_FILE
        self.data: dict[str, Any] = {}
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except OSError as error:
            raise UsageError(
                _("cannot read %(path)s: %(error)s") % {"path": self.path, "error": error.strerror}
            ) from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            raise UsageError(
                _("%(path)s is not valid JSON: fix or remove it") % {"path": self.path}
            ) from None
        if isinstance(data, dict):
            self.data = data
        if self._migrate():
            self.save()

    def _migrate(self) -> bool:
        """One account per server becomes the current one of that server's list."""
        changed = False
        for server, entry in self._servers().items():
            if isinstance(entry, dict) and "players" not in entry and entry.get("token"):
                name = str(entry.get("name", ""))
                players = {name: {"token": str(entry["token"]), "bot": False}}
                self._servers()[server] = {"current": name, "players": players}
                changed = True
        return changed

    def _servers(self) -> dict[str, Any]:
        accounts = self.data.setdefault("accounts", {})
        if not isinstance(accounts, dict):
            raise UsageError(
                _("%(path)s: its accounts are not readable: fix or remove it") % {"path": self.path}
            )
        return accounts

    def _players(self, server: str) -> dict[str, Any]:
        entry = self._servers().get(server)
        players = entry.get("players") if isinstance(entry, dict) else None
        return players if isinstance(players, dict) else {}

    def accounts(self, server: str) -> list[Account]:
        """Every account kept for a server, by name."""
        return [
            Account(name, str(entry["token"]), bool(entry.get("bot", False)))
            for name, entry in sorted(self._players(server).items())
            if isinstance(entry, dict) and entry.get("token")
        ]

    def current(self, server: str) -> str | None:
        """The name of the account commands use on a server, unless ``--as`` names another."""
        entry = self._servers().get(server)
        name = entry.get("current") if isinstance(entry, dict) else None
        return name if isinstance(name, str) and name in self._players(server) else None

    def account(self, server: str, name: str | None = None) -> Account | None:
        """The account ``name`` (default: the current one) kept for ``server``, if any."""
        name = name if name is not None else self.current(server)
        return next((a for a in self.accounts(server) if a.name == name), None)

    def add_account(self, server: str, account: Account, *, current: bool = True) -> Account | None:
        """Keep an account and make it current (unless not ``current``); return the one it
        replaced (same name and server, another token), so the caller can say so."""
        replaced = self.account(server, account.name)
        servers = self._servers()
        entry = servers.get(server)
        if not isinstance(entry, dict) or not isinstance(entry.get("players"), dict):
            entry = servers[server] = {"players": {}}
        entry["players"][account.name] = {"token": account.token, "bot": account.bot}
        if current or not isinstance(entry.get("current"), str):
            entry["current"] = account.name
        return replaced if replaced is not None and replaced.token != account.token else None

    def remove_account(self, server: str, name: str) -> bool:
        """Forget a kept account (its token with it); whether there was one. If it was the
        current one, no account is current on that server until ``simon use``."""
        players = self._players(server)
        if name not in players:
            return False
        del players[name]
        entry = self._servers()[server]
        if entry.get("current") == name:
            entry.pop("current", None)
        return True

    def mark_bot(self, server: str, name: str, bot: bool) -> None:
        """Whether a kept account is a bot, as the server says (its token unchanged)."""
        entry = self._players(server).get(name)
        if isinstance(entry, dict):
            entry["bot"] = bot

    def use(self, server: str, name: str) -> Account:
        """Make a kept account the current one; UsageError names the ones there are."""
        account = self.account(server, name)
        if account is None:
            raise UsageError(self.not_kept(server, name))
        self._servers()[server]["current"] = name
        return account

    def not_kept(self, server: str, name: str) -> str:
        """Why ``name`` cannot be used on ``server``, and the names that can."""
        known = ", ".join(a.name for a in self.accounts(server)) or _("none")
        return _(
            "no account %(name)r kept for %(server)s (kept: %(known)s): "
            "`simon register NAME` or `simon login` adds one"
        ) % {"name": name, "server": server, "known": known}

    @property
    def last_suits(self) -> int | None:
        suits = self.data.get("last_suits")
        return suits if suits in SUIT_COUNTS else None

    @last_suits.setter
    def last_suits(self, suits: int) -> None:
        self.data["last_suits"] = suits

    @property
    def account_language(self) -> Language | None:
        """The language kept on the account last signed in, as the server said it: what
        ``simon`` speaks before it hears the account's own (and offline) unless ``--lang``
        chooses. None when the account has none."""
        kept = self.data.get("account_language")
        return language_named(kept) if isinstance(kept, str) else None

    @account_language.setter
    def account_language(self, language: Language | None) -> None:
        if language is None:
            self.data.pop("account_language", None)
        else:
            self.data["account_language"] = language

    def save(self) -> None:
        """Write the file atomically, owner-only: it holds secret tokens."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".config-", dir=self.folder)
        try:
            os.fchmod(handle, 0o600)
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(self.data, stream, indent=2, sort_keys=True)
                stream.write("\n")
            os.replace(temporary, self.path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
