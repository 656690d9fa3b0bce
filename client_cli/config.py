"""The client's config folder: accounts (tokens) per server and remembered choices.

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

from platformdirs import user_config_dir

from server.engine import SUIT_COUNTS

from .errors import UsageError

DEFAULT_SERVER = "ws://127.0.0.1:8765"
APP_NAME = "simple-simon-online"
CONFIG_FILE = "config.json"


def config_dir() -> Path:
    override = os.environ.get("SIMON_CONFIG_DIR")
    return Path(override) if override else Path(user_config_dir(APP_NAME))


def normalize_server(address: str) -> str:
    """A websocket URL for an address; ``host:port`` means ``ws://host:port``."""
    address = address.strip().rstrip("/")
    if not address:
        raise UsageError("the server address is empty")
    if "://" not in address:
        address = f"ws://{address}"
    if not address.startswith(("ws://", "wss://")):
        raise UsageError(f"{address!r} is not a websocket address: use ws://HOST:PORT")
    return address


def server_address(option: str | None) -> str:
    """The server to talk to: ``--server``, else ``SIMON_SERVER``, else the local server."""
    return normalize_server(option or os.environ.get("SIMON_SERVER") or DEFAULT_SERVER)


@dataclass(frozen=True)
class Account:
    name: str
    token: str


class Config:
    """The config file, read on creation and written back by :meth:`save`."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or config_dir()
        self.path = self.folder / CONFIG_FILE
        self.data: dict[str, Any] = {}
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except OSError as error:
            raise UsageError(f"cannot read {self.path}: {error.strerror}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            raise UsageError(f"{self.path} is not valid JSON: fix or remove it") from None
        if isinstance(data, dict):
            self.data = data

    def account(self, server: str) -> Account | None:
        entry = self.data.get("accounts", {}).get(server)
        if not isinstance(entry, dict) or not entry.get("token"):
            return None
        return Account(str(entry.get("name", "")), str(entry["token"]))

    def set_account(self, server: str, account: Account) -> None:
        accounts = self.data.setdefault("accounts", {})
        accounts[server] = {"name": account.name, "token": account.token}

    @property
    def last_suits(self) -> int | None:
        suits = self.data.get("last_suits")
        return suits if suits in SUIT_COUNTS else None

    @last_suits.setter
    def last_suits(self, suits: int) -> None:
        self.data["last_suits"] = suits

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
