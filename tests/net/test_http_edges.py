"""Plain HTTP on the websocket port, at its edges, through a real server: ``nosniff`` on
every answer (the library's own refusals too), ``HEAD`` without a body, other methods
405 (with a body too), a request answered whatever follows it (a pipelined request, the
client's EOF), ``/metrics`` for the machine itself only (or on a listener of its own),
and days out of range answered 400/404, never 503 with a traceback."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from typing import Any

import pytest

from server.net import RunningServer
from tests.conftest import Backend
from tests.support.raw import get_from
from tests.support.servers import Client, free_port, server_settings, serving, unique_name

#: One of each kind of answer: pages, JSON, errors, static files, health, metrics.
PATHS = {
    "/": 200,
    "/day/2026-01-31": 200,
    "/static/style.css": 200,
    "/static/nothing.css": 404,
    "/healthz": 200,
    "/daily": 200,
    "/leaderboard?limit=abc": 400,
    "/history?player=nobody-at-all": 404,
    "/no/such/path": 404,
    "/metrics": 200,
}


def _raw(server: RunningServer, request: bytes, *, then_eof: bool = False) -> bytes:
    """Send ``request`` as it is (``then_eof``: and shut the socket for writing at once);
    everything the server answers until it closes."""
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(request)
        if then_eof:
            sock.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        return answer


def _head_and_body(answer: bytes) -> tuple[list[str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.decode().split("\r\n"), body


async def _get(
    server: RunningServer, path: str, **options: Any
) -> tuple[int, dict[str, str], bytes]:
    return await asyncio.to_thread(
        get_from, server.host, server.port, path, source="127.0.0.1", **options
    )


async def test_every_answer_says_nosniff(backend: Backend) -> None:
    async with serving(server_settings(backend)) as server:
        for path, status in PATHS.items():
            got, headers, _ = await _get(server, path)
            assert got == status, (path, got)
            assert headers.get("X-Content-Type-Options") == "nosniff", (path, headers)
        # the library's own refusal of a request it will not read
        too_long = b"GET /" + b"a" * 10_000 + b" HTTP/1.1\r\n\r\n"
        lines, _ = _head_and_body(await asyncio.to_thread(_raw, server, too_long))
        assert lines[0].startswith("HTTP/1.1 414"), lines
        assert "X-Content-Type-Options: nosniff" in lines, lines


async def test_head_answers_the_headers_of_get_without_the_body(backend: Backend) -> None:
    async with serving(server_settings(backend)) as server:
        for path in ("/", "/daily", "/static/app.js", "/no/such/path"):
            get, _ = _head_and_body(await asyncio.to_thread(_raw, server, _request("GET", path)))
            lines, body = _head_and_body(
                await asyncio.to_thread(_raw, server, _request("HEAD", path))
            )
            assert lines[0] == get[0], (path, lines[0], get[0])
            assert body == b"", (path, body[:80])
            length = [line for line in lines if line.startswith("Content-Length: ")]
            assert length and length != ["Content-Length: 0"], (path, lines)
            if path.startswith("/static/"):  # the same bytes each time: the same length
                assert length == [g for g in get if g.startswith("Content-Length: ")]
        lines, _ = _head_and_body(await asyncio.to_thread(_raw, server, _request("POST", "/")))
        assert lines[0].startswith("HTTP/1.1 405") and "Allow: GET, HEAD" in lines, lines


def _request(method: str, path: str) -> bytes:
    return f"{method} {path} HTTP/1.1\r\nHost: simon\r\nAccept: */*\r\n\r\n".encode()


async def test_metrics_are_for_the_machine_itself_not_through_a_proxy(backend: Backend) -> None:
    settings = server_settings(backend, limits_exempt="", trusted_proxies="127.0.0.1")
    async with serving(settings) as server:
        status, _, body = await _get(server, "/metrics")
        assert status == 200 and b"simon_connections" in body
        forwarded = await asyncio.to_thread(_raw, server, _forwarded("/metrics", "203.0.113.9"))
        assert forwarded.startswith(b"HTTP/1.1 404"), forwarded[:200]
        assert b"simon_connections" not in forwarded


def _forwarded(path: str, address: str) -> bytes:
    return (
        f"GET {path} HTTP/1.1\r\nHost: simon\r\nAccept: application/json\r\n"
        f"X-Forwarded-For: {address}\r\n\r\n"
    ).encode()


async def test_metrics_on_a_listener_of_their_own(backend: Backend) -> None:
    metrics_port = free_port()
    settings = server_settings(backend, metrics_host="127.0.0.1", metrics_port=metrics_port)
    async with serving(settings) as server:
        assert server.metrics_port == metrics_port
        assert (await _get(server, "/metrics"))[0] == 404  # not on the players' port at all
        status, headers, body = await asyncio.to_thread(
            get_from, "127.0.0.1", metrics_port, "/metrics", source="127.0.0.1"
        )
        assert status == 200 and b"simon_connections" in body
        assert headers["X-Content-Type-Options"] == "nosniff"
        status, _, _ = await asyncio.to_thread(
            get_from, "127.0.0.1", metrics_port, "/daily", source="127.0.0.1"
        )
        assert status == 404


OUT_OF_RANGE = ("0001-01-01", "0001-01-02", "9999-12-31", "9999-12-30")


async def test_days_out_of_range_are_refused_plainly(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with serving(server_settings(backend)) as server, Client.connect(server.url) as client:
        name = unique_name("far")
        assert (await client.request({"type": "register", "name": name}))["type"] == "registered"
        for day in OUT_OF_RANGE:
            for path in (
                f"/day/{day}",
                f"/day/{day}?player={name}",
                f"/leaderboard?day={day}",
                f"/rank?day={day}&player={name}",
                f"/player/{name}?day={day}",
            ):
                status, _, body = await _get(server, path)
                assert status in (200, 400, 404), (path, status, body[:200])
            for message in (
                {"type": "leaderboard", "day": day},
                {"type": "rank", "day": day, "player": name},
            ):
                reply = await client.request(message)
                assert reply.get("code") not in ("unavailable", "internal"), (message, reply)
        status, _, body = await _get(server, "/day/0001-01-01")
        assert status == 404 and b"no board" in body, body[:300]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


def _errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]


async def test_pipelined_requests_get_the_first_one_answered(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with serving(server_settings(backend)) as server:
        for first in ("/static/app.js", "/healthz", "/no/such/path"):
            both = _request("GET", first) + b"GET / HTTP/1.1\r\n\r\n"
            answer = await asyncio.to_thread(_raw, server, both)
            lines, _ = _head_and_body(answer)
            assert lines[0].startswith(f"HTTP/1.1 {PATHS.get(first, 200)} "), (first, lines)
            assert "Connection: close" in lines, lines  # the second is not answered
            assert answer.count(b"HTTP/1.1 ") == 1, answer[:300]
    assert _errors(caplog) == []


async def test_a_request_followed_at_once_by_eof_is_answered(backend: Backend) -> None:
    async with serving(server_settings(backend)) as server:
        for path, status in PATHS.items():
            answer = await asyncio.to_thread(_raw, server, _request("GET", path), then_eof=True)
            assert answer.startswith(f"HTTP/1.1 {status} ".encode()), (path, answer[:200])


@pytest.mark.parametrize(
    ("method", "body_headers", "status"),
    [
        ("POST", "Content-Length: 3\r\n", 405),
        ("PUT", "Transfer-Encoding: chunked\r\n", 405),
        ("DELETE", "Content-Length: 3\r\n", 405),
        ("GET", "Content-Length: 3\r\n", 400),
    ],
)
async def test_a_request_with_a_body_is_answered_not_dropped(
    backend: Backend, caplog: pytest.LogCaptureFixture, method: str, body_headers: str, status: int
) -> None:
    caplog.set_level(logging.WARNING)
    request = (
        f"{method} /healthz HTTP/1.1\r\nHost: simon\r\n{body_headers}\r\n"
        + ("3\r\nx=1\r\n0\r\n\r\n" if "chunked" in body_headers else "x=1")
    ).encode()
    async with serving(server_settings(backend)) as server:
        lines, body = _head_and_body(await asyncio.to_thread(_raw, server, request))
    assert lines[0].startswith(f"HTTP/1.1 {status} "), lines
    assert "X-Content-Type-Options: nosniff" in lines, lines
    if status == 405:
        assert "Allow: GET, HEAD" in lines, lines
        assert f"{method} is not served".encode() in body, body
    else:
        assert b"GET takes no body" in body, body
    assert _errors(caplog) == []


async def test_a_replay_id_of_any_length_answers_a_json_client_json(backend: Backend) -> None:
    async with serving(server_settings(backend)) as server:
        for game in ("x" * 64, "x" * 65, "x" * 2000):
            status, headers, body = await _get(server, "/replay/" + game)
            assert status == 404, (len(game), status, body[:200])
            assert headers["Content-Type"] == "application/json", (len(game), headers)
            assert json.loads(body)["error"]["code"] == "not-found", body


#: Headers the server reads, each sent twice: an answer by what the two say together, as
#: HTTP reads a repeated header, never a traceback (the library's ``get`` raises on them).
REPEATED = [
    ("/", "Upgrade", ("a", "b"), 200),
    ("/", "Upgrade", ("websocket", "websocket"), 200),
    ("/replay/abc", "Authorization", ("Bearer x", "Bearer y"), 401),
    ("/no/such/path", "Accept", ("text/html", "application/json"), 404),
    ("/static/style.css", "Accept-Encoding", ("gzip", "identity"), 200),
    ("/static/style.css", "If-None-Match", ('"a"', '"b"'), 200),
]


async def test_a_header_sent_twice_is_read_as_both_values(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with serving(server_settings(backend)) as server:
        for path, name, (first, second), status in REPEATED:
            request = (
                f"GET {path} HTTP/1.1\r\nHost: simon\r\n{name}: {first}\r\n{name}: {second}\r\n\r\n"
            ).encode()
            lines, _ = _head_and_body(await asyncio.to_thread(_raw, server, request))
            assert lines[0].startswith(f"HTTP/1.1 {status} "), (name, lines)
        # the page a repeated If-None-Match names is not sent again
        _, headers, _ = await _get(server, "/static/style.css")
        etag = headers["ETag"]
        request = (
            f"GET /static/style.css HTTP/1.1\r\nHost: simon\r\n"
            f'If-None-Match: "other"\r\nIf-None-Match: {etag}\r\n\r\n'
        ).encode()
        lines, _ = _head_and_body(await asyncio.to_thread(_raw, server, request))
        assert lines[0].startswith("HTTP/1.1 304 "), lines
    assert _errors(caplog) == []
