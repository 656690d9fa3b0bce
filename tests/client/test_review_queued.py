"""``simon review`` says where its review stands while it waits for the server's solver."""

from __future__ import annotations

import pytest

from client_cli.after import _queued
from server.protocol import parse_server_message


def test_simon_review_says_where_its_review_waits(capsys: pytest.CaptureFixture[str]) -> None:
    _queued(parse_server_message('{"type": "queued", "game": "g1", "position": 3}'))
    _queued(parse_server_message('{"type": "queued", "game": "g1", "position": 1}'))
    _queued(parse_server_message('{"type": "pong", "server_time": "2026-03-01T12:00:00Z"}'))
    out, err = capsys.readouterr()
    assert out == ""  # stdout is the review's (its JSON with --json)
    assert err.splitlines() == [
        "waiting for the solver: number 3 in line",
        "waiting for the solver: next in line",
    ]
