"""The config folder: tokens per server, owner-only, and the remembered suit count."""

from __future__ import annotations

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
    config.set_account("ws://example:1", Account("ann", "secret"))
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
        normalize_server("http://example.org")
