"""Control characters and loose numbers stop at the edge, on both databases, through the
real server: a NUL in a name, an id or a cursor is refused ``invalid-message`` (``400``
over HTTP), never handed to the driver (asyncpg cannot send a NUL to PostgreSQL: before,
such input answered ``unavailable``/``503`` and logged a traceback every time)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import pytest

from server.store.leaderboard import encode_cursor
from server.store.order import ResultKey
from tests.conftest import Backend
from tests.support.servers import Client, get_json, server_settings, serving, unique_name

#: A cursor in the server's own format whose game id holds a NUL.
NUL_CURSOR = encode_cursor(
    ResultKey(
        won=True,
        removed=4,
        score=800,
        elapsed=12.5,
        finished_at=datetime(2026, 3, 1, tzinfo=UTC),
        id="g\x00",
    )
)

#: (message, the field refused): text with a control character in every text field.
DIRTY_TEXT: list[tuple[dict[str, Any], str]] = [
    ({"type": "register", "name": "al\x00ice"}, "name"),
    ({"type": "register", "name": "al\u0085ice"}, "name"),  # C1: NEXT LINE
    ({"type": "auth", "token": "tok\x00en"}, "token"),
    ({"type": "start", "mode": "practice", "code": "SS1-S1-\x00"}, "code"),
    ({"type": "move", "move": "1-2\x00"}, "move"),
    ({"type": "resume", "game": "g\x00"}, "game"),
    ({"type": "leaderboard", "after": "abc\x00"}, "after"),
    ({"type": "rank", "player": "bob\x00"}, "player"),
    ({"type": "history", "player": "\x1b[31mbob"}, "player"),
    ({"type": "hello", "client": "simon\x7f"}, "client"),
]

#: (message, the field refused): numbers that are not exactly whole JSON numbers.
LOOSE_NUMBERS: list[tuple[dict[str, Any], str]] = [
    ({"type": "start", "mode": "practice", "suits": 1.0}, "suits"),
    ({"type": "start", "mode": "practice", "suits": "1"}, "suits"),
    ({"type": "start", "mode": "practice", "suits": True}, "suits"),
    ({"type": "race", "suits": 4.0}, "suits"),
    ({"type": "leaderboard", "limit": 5.0}, "limit"),
    ({"type": "leaderboard", "limit": "5"}, "limit"),
    ({"type": "auto", "column": 3.0}, "column"),
    ({"type": "targets", "column": "3"}, "column"),
    ({"type": "resume", "game": "g", "seq": 1.0}, "seq"),
    ({"type": "rank", "player": "bob", "around": "5"}, "around"),
    ({"type": "hello", "version": 1.0}, "version"),
]


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.levelno >= logging.ERROR or record.exc_info
    ]


async def test_control_characters_and_loose_numbers_are_refused_over_the_websocket(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with serving(server_settings(backend)) as server, Client.connect(server.url) as client:
        reply = await client.request({"type": "register", "name": unique_name("clean")})
        assert reply["type"] == "registered", reply
        for message, field in DIRTY_TEXT + LOOSE_NUMBERS:
            reply = await client.request(message)
            assert reply["type"] == "error" and reply["code"] == "invalid-message", (message, reply)
            assert reply["detail"]["field"] == field, (message, reply)
        for message, _ in DIRTY_TEXT:
            assert "control characters" in (await client.request(message))["message"]

        # A control character in the id itself: refused, and the id is not echoed.
        await client.send({"type": "ping", "id": "p\x00"})
        refused = await client.receive()
        assert refused["code"] == "invalid-message" and "id" not in refused, refused
        assert refused["detail"]["field"] == "id", refused

        # The id of a move goes to the action log with it: a NUL there would fail the
        # whole group commit on PostgreSQL. Refused at the edge; the game goes on.
        started = await client.request({"type": "start", "mode": "practice", "suits": 1})
        assert started["type"] == "state", started
        await client.send({"type": "auto", "id": "m\x00", "column": 1})
        refused = await client.receive()
        assert refused["code"] == "invalid-message" and "id" not in refused, refused
        resumed = await client.request({"type": "resume", "game": started["state"]["game"]})
        assert resumed["state"]["seq"] == 0, resumed

        # A cursor in the server's format, but its game id holds a NUL.
        reply = await client.request({"type": "leaderboard", "after": NUL_CURSOR})
        assert reply["code"] == "bad-cursor", reply

        # Clean input of the same shapes still works.
        page = await client.request({"type": "leaderboard", "suits": 1, "limit": 5})
        assert page["type"] == "leaderboard", page
        pong = await client.request({"type": "ping", "id": "p-é"})
        assert pong == {**pong, "type": "pong", "id": "p-é"}
    assert _errors(caplog) == []


@pytest.mark.parametrize(
    ("query", "code"),
    # one refusal at the edge and one deeper, end to end; each parameter's refusals are
    # tests/net/test_http.py's
    [
        ("/rank?player=bob%00", "invalid-message"),
        (f"/leaderboard?after={quote(NUL_CURSOR)}", "bad-cursor"),
    ],
)
async def test_control_characters_and_loose_numbers_answer_400_over_http(
    backend: Backend, caplog: pytest.LogCaptureFixture, query: str, code: str
) -> None:
    caplog.set_level(logging.WARNING)
    async with serving(server_settings(backend)) as server:
        status, body = await get_json(server.http_url + query)
        assert status == 400, (query, status, body)
        assert body["error"]["code"] == code, body
        status, body = await get_json(server.http_url + "/leaderboard?limit=5")
        assert status == 200, body
    assert _errors(caplog) == []
