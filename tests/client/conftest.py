"""The client's tests run in English unless they say otherwise (tests/client/test_words.py
runs the other languages): no locale of the machine's reaches them, nor its config folder
(which keeps the language of the account last signed in)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from client_cli import words


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setenv("SIMON_CONFIG_DIR", str(tmp_path / "simon-config"))
    for variable in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "C")
    words.use("en")
    yield
    words.use("en")
