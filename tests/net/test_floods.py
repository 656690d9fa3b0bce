"""Floods no well-behaved client sends, through a real server over bare sockets: control
frames in a loop (answered by the websocket library itself, below the message loop), a
flood ended by a reset, and hundreds of connections that never say a word.

Each client address is a loopback address of its own (127.0.0.2, 127.0.0.3, ...: on Linux
all of 127/8 is the machine), so the server counts them apart with no proxy in between.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time

import pytest
from websockets.frames import Opcode

from server.net import RunningServer
from tests.conftest import Backend
from tests.support.raw import connect_from, control_frames, flood, get_from, open_websocket
from tests.support.servers import Client, server_settings, serving

FLOODER = "127.0.0.2"
OTHER = "127.0.0.3"
#: Long enough for any machine, however loaded: the floods below never end by themselves.
DEADLINE = 30.0


def _lines_about(caplog: pytest.LogCaptureFixture, *words: str) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.levelno >= logging.WARNING and any(w in record.getMessage() for w in words)
    ]


async def _settled(server: RunningServer, connections: int) -> None:
    """Until the server holds at most ``connections`` TCP connections."""
    async with asyncio.timeout(DEADLINE):
        while server.gate.total > connections:  # noqa: ASYNC110
            await asyncio.sleep(0.05)


@pytest.mark.parametrize("opcode", [Opcode.PING, Opcode.PONG], ids=["ping", "pong"])
async def test_a_control_frame_flood_is_closed_with_one_log_line(
    backend: Backend, caplog: pytest.LogCaptureFixture, opcode: Opcode
) -> None:
    caplog.set_level(logging.INFO)
    async with (
        serving(server_settings(backend, limits_exempt="")) as server,
        Client.connect(server.url, local_addr=(OTHER, 0)) as other,
    ):
        sock = await asyncio.to_thread(open_websocket, server.host, server.port, source=FLOODER)
        flooding = asyncio.ensure_future(
            asyncio.to_thread(flood, sock, control_frames(opcode, 1000), seconds=DEADLINE)
        )
        # another client is answered meanwhile: its ping frames and its messages
        while not flooding.done():
            await asyncio.wait_for(await other.websocket.ping(), DEADLINE)
            assert (await other.request({"type": "ping"}))["type"] == "pong"
            await asyncio.sleep(0.5)  # 4 frames a second: well within its own budget
        outcome = await flooding
        assert outcome.closed, outcome  # by the server, well before the deadline
        await asyncio.wait_for(await other.websocket.ping(), DEADLINE)
        await _settled(server, 1)
    lines = _lines_about(caplog, FLOODER, "socket.send")
    assert len(lines) == 1, lines
    assert "too many" in lines[0], lines
    # nor a line per connection from the websocket library at the default level
    per_connection = [r.getMessage() for r in caplog.records if r.name.startswith("websockets")]
    assert per_connection == [], per_connection


async def test_a_flood_ended_by_a_reset_logs_no_flood_of_send_failures(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with serving(server_settings(backend, limits_exempt="")) as server:
        for _ in range(3):
            sock = await asyncio.to_thread(open_websocket, server.host, server.port, source=FLOODER)
            await asyncio.to_thread(
                flood, sock, control_frames(Opcode.PING, 20_000), seconds=0.5, then_reset=True
            )
        await _settled(server, 0)
        async with Client.connect(server.url, local_addr=(OTHER, 0)) as other:
            assert (await other.request({"type": "ping"}))["type"] == "pong"
    failures = _lines_about(caplog, "socket.send")
    assert len(failures) <= 1, (len(failures), failures[:3])


async def test_silent_sockets_from_one_address_do_not_lock_another_out(
    backend: Backend,
) -> None:
    settings = server_settings(
        backend,
        limits_exempt="",
        max_connections=100,
        max_connections_per_address=20,
        handshake_timeout_seconds=60,  # silence is not ended by the handshake's timeout
        first_bytes_timeout_seconds=60,  # nor by the first bytes' deadline
    )
    async with serving(settings) as server:
        silent: list[socket.socket] = []
        try:
            for _ in range(300):
                sock = await asyncio.to_thread(connect_from, server.host, server.port, FLOODER)
                silent.append(sock)
            # the server has taken them all from its backlog once the count stops moving
            seen = -1
            while server.gate.total != seen:
                seen = server.gate.total
                await asyncio.sleep(0.3)
            status, _, body = await asyncio.to_thread(
                get_from, server.host, server.port, "/healthz", source=OTHER
            )
            assert status == 200, (status, body)
            assert server.gate.total < settings.max_connections, server.gate.total
            async with Client.connect(server.url, local_addr=(OTHER, 0)) as other:
                assert (await other.request({"type": "ping"}))["type"] == "pong"
        finally:
            for sock in silent:
                sock.close()


def _silence_until_closed(host: str, port: int) -> bytes:
    """Connect, say nothing, and wait (at most :data:`DEADLINE`) for the server to close."""
    with connect_from(host, port, FLOODER, timeout=DEADLINE) as sock:
        try:
            return sock.recv(1024)  # b"": closed; a timeout fails the test
        except ConnectionResetError:
            return b""


async def test_a_connection_that_sends_nothing_is_closed_at_the_first_bytes_deadline(
    backend: Backend,
) -> None:
    settings = server_settings(
        backend,
        limits_exempt="",
        handshake_timeout_seconds=10 * DEADLINE,  # the handshake's timeout is not what ends it
        first_bytes_timeout_seconds=1,
    )
    async with serving(settings) as server:
        started = time.monotonic()
        assert await asyncio.to_thread(_silence_until_closed, server.host, server.port) == b""
        assert time.monotonic() - started < settings.handshake_timeout_seconds
        await _settled(server, 0)
        assert server.gate.by_address == {}


async def test_a_trusted_proxy_is_not_capped_at_accept_like_a_client(backend: Backend) -> None:
    settings = server_settings(
        backend, limits_exempt="", trusted_proxies=FLOODER, max_connections_per_address=2
    )
    async with serving(settings) as server:
        # ten players behind one proxy: each counted by its own forwarded address
        async with asyncio.TaskGroup() as group:
            clients = [
                group.create_task(_ping_through(server.url, f"198.51.100.{n}")) for n in range(10)
            ]
        assert [client.result() for client in clients] == ["pong"] * 10


async def _ping_through(url: str, address: str) -> str:
    async with Client.connect(
        url, local_addr=(FLOODER, 0), additional_headers={"X-Forwarded-For": address}
    ) as client:
        await asyncio.sleep(0.5)  # all ten open at once
        return str((await client.request({"type": "ping"}))["type"])
