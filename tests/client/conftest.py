"""The client's tests run in English unless they say otherwise (tests/client/test_words.py
runs the other languages): no locale of the machine's reaches them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from client_cli import words


@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for variable in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LANG", "C")
    words.use("en")
    yield
    words.use("en")
