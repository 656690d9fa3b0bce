"""The config folder: tokens per server, owner-only, and the remembered suit count."""

from __future__ import annotations

import json
import re
import stat
from pathlib import Path

import pytest

from client_cli.config import (
    DEFAULT_SERVER,
    Account,
    Config,
    config_dir,
    normalize_server,
    server_address,
)
from client_cli.errors import UsageError


def test_the_token_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    folder = tmp_path / "cfg"
    config = Config(folder)
    config.add_account("ws://example:1", Account("ann", "secret"))
    config.save()
    assert stat.S_IMODE(config.path.stat().st_mode) == 0o600
    again = Config(folder)
    assert again.account("ws://example:1") == Account("ann", "secret")
    assert again.account("ws://elsewhere:1") is None


def test_the_last_suit_count_is_remembered(tmp_path: Path) -> None:
    config = Config(tmp_path)
    assert config.last_suits is None
    config.last_suits = 4
    config.save()
    assert Config(tmp_path).last_suits == 4


def test_simon_config_dir_overrides_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIMON_CONFIG_DIR", str(tmp_path))
    assert config_dir() == tmp_path
    assert Config().path == tmp_path / "config.json"


def test_a_broken_config_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{nope", encoding="utf-8")
    with pytest.raises(UsageError, match="not valid JSON"):
        Config(tmp_path)


def test_the_server_comes_from_the_option_then_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SIMON_SERVER", raising=False)
    assert server_address(None) == DEFAULT_SERVER
    monkeypatch.setenv("SIMON_SERVER", "example.org:9000")
    assert server_address(None) == "ws://example.org:9000"
    assert server_address("wss://other/") == "wss://other"
    with pytest.raises(UsageError):
        normalize_server("ftp://example.org")


def test_a_web_address_means_its_websocket() -> None:
    # the README and the server's start-up line give http:// addresses
    assert normalize_server("http://127.0.0.1:8765/") == "ws://127.0.0.1:8765"
    assert normalize_server("HTTPS://play.example.org") == "wss://play.example.org"
    assert normalize_server("ws://[::1]:8765") == "ws://[::1]:8765"


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("127.0.0.1:99999", "'127.0.0.1:99999' has no usable port: give 1 to 65535"),
        ("127.0.0.1:abc", "'127.0.0.1:abc' has no usable port"),
        ("ws://127.0.0.1:0", "has no usable port"),
        ("ws://[::1", "'ws://[::1' is not a server address (Invalid IPv6 URL)"),
        ("ws://:8765", "names no host"),
    ],
)
def test_a_bad_address_is_refused_naming_where_it_came_from(
    address: str, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SIMON_SERVER", raising=False)
    with pytest.raises(UsageError, match=f"^--server: .*{re.escape(said)}"):
        server_address(address)
    monkeypatch.setenv("SIMON_SERVER", address)
    with pytest.raises(UsageError, match=f"^SIMON_SERVER: .*{re.escape(said)}"):
        server_address(None)


def test_every_account_of_a_server_is_kept_and_one_is_current(tmp_path: Path) -> None:
    server = "ws://example:1"
    config = Config(tmp_path)
    config.add_account(server, Account("alice", "a-token"))
    config.add_account(server, Account("robo", "r-token", bot=True))
    config.save()
    again = Config(tmp_path)
    assert again.accounts(server) == [Account("alice", "a-token"), Account("robo", "r-token", True)]
    assert again.current(server) == "robo"
    assert again.account(server) == again.account(server, "robo")
    assert again.account(server, "alice") == Account("alice", "a-token")
    assert again.use(server, "alice").token == "a-token"
    assert again.current(server) == "alice"
    with pytest.raises(UsageError, match="kept: alice, robo"):
        again.use(server, "bob")
    # the same name again with another token (a login): kept once, and the caller is told
    assert again.add_account(server, Account("alice", "new")) == Account("alice", "a-token")
    assert [a.name for a in again.accounts(server)] == ["alice", "robo"]


def test_a_one_account_config_file_is_migrated_keeping_its_token(tmp_path: Path) -> None:
    old = {"accounts": {"ws://example:1": {"name": "ann", "token": "secret"}}, "last_suits": 2}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    path.chmod(0o600)
    config = Config(tmp_path)
    assert config.account("ws://example:1") == Account("ann", "secret")
    assert config.last_suits == 2
    written = json.loads(path.read_text(encoding="utf-8"))  # rewritten at once, in the new shape
    assert written["accounts"]["ws://example:1"] == {
        "current": "ann",
        "players": {"ann": {"token": "secret", "bot": False}},
    }
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    config.add_account("ws://example:1", Account("bob", "other"))
    assert Config(tmp_path).account("ws://example:1", "ann") == Account("ann", "secret")
