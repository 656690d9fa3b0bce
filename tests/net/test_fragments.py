"""Fragmented messages through a real server over bare sockets: no browser fragments a
message, and the websocket library would take 4,096 fragments a message, each through its
parser. Every fragment takes from the budgets as a message does, and a message in more
than ``SIMON_MAX_MESSAGE_FRAGMENTS`` frames is closed with 1009.

The flooder is a loopback address of its own (127.0.0.2), so the server counts it apart
from the other client (127.0.0.3) with no proxy in between.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import struct

import pytest
from websockets.frames import Frame, Opcode

from server.net import RunningServer
from tests.conftest import Backend
from tests.support.raw import fragmented, open_websocket
from tests.support.servers import Client, server_settings, serving

FLOODER = "127.0.0.2"
OTHER = "127.0.0.3"
#: Long enough for any machine, however loaded.
DEADLINE = 30.0
PING = json.dumps({"type": "ping"}).encode()


def _server_frames(data: bytes) -> tuple[list[tuple[int, bytes]], int]:
    """The (opcode, payload) of each whole unmasked frame at the start of ``data``, as a
    server sends them, and how many bytes they took."""
    frames = []
    at = taken = 0
    while at + 2 <= len(data):
        opcode, length = data[at] & 0x0F, data[at + 1] & 0x7F
        at += 2
        if length == 126:
            (length,) = struct.unpack("!H", data[at : at + 2])
            at += 2
        elif length == 127:
            (length,) = struct.unpack("!Q", data[at : at + 8])
            at += 8
        if at + length > len(data):
            break
        frames.append((opcode, data[at : at + length]))
        at = taken = at + length
    return frames, taken


def converse(sock: socket.socket, messages: list[bytes]) -> list[tuple[int, bytes]]:
    """Send each of ``messages`` once the server has answered the one before (a text
    frame), until its close frame or its EOF: the frames the server sent. What is not
    answered within :data:`DEADLINE` fails the test."""
    sock.settimeout(DEADLINE)
    frames: list[tuple[int, bytes]] = []
    pending = b""
    with sock:
        for message in messages:
            try:
                sock.sendall(message)
            except (ConnectionResetError, BrokenPipeError):
                return frames
            answered = False
            while not answered:
                try:
                    chunk = sock.recv(1 << 16)
                except ConnectionResetError:
                    chunk = b""
                if not chunk:
                    return frames
                new, taken = _server_frames(pending + chunk)
                pending = (pending + chunk)[taken:]
                frames += new
                if any(opcode == Opcode.CLOSE for opcode, _ in new):
                    return frames
                answered = any(opcode == Opcode.TEXT for opcode, _ in new)
    return frames


def _close_code(frames: list[tuple[int, bytes]]) -> int | None:
    for opcode, payload in frames:
        if opcode == Opcode.CLOSE and len(payload) >= 2:
            return int(struct.unpack("!H", payload[:2])[0])
    return None


def _texts(frames: list[tuple[int, bytes]]) -> list[dict[str, object]]:
    return [json.loads(payload) for opcode, payload in frames if opcode == Opcode.TEXT]


def _lines_about(caplog: pytest.LogCaptureFixture, address: str) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.levelno >= logging.WARNING and address in record.getMessage()
    ]


async def _open(server: RunningServer) -> socket.socket:
    return await asyncio.to_thread(open_websocket, server.host, server.port, source=FLOODER)


async def test_a_message_in_too_many_fragments_is_closed_with_1009_and_one_log_line(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    settings = server_settings(backend, limits_exempt="", max_message_fragments=8)
    async with (
        serving(settings) as server,
        Client.connect(server.url, local_addr=(OTHER, 0)) as other,
    ):
        # within the cap: answered as any message is
        frames = await asyncio.to_thread(converse, await _open(server), [fragmented(PING, 8)])
        assert [m["type"] for m in _texts(frames)] == ["pong"], frames
        # over it, three times over: closed each time, before the message is read
        for _ in range(3):
            frames = await asyncio.to_thread(
                converse, await _open(server), [fragmented(PING, 4000)]
            )
            assert _close_code(frames) == 1009, frames
            assert _texts(frames) == [], frames  # never answered: not read
        assert (await other.request({"type": "ping"}))["type"] == "pong"
    lines = _lines_about(caplog, FLOODER)
    assert len(lines) == 1, lines  # one line for the offender, not one per offence
    assert "fragments" in lines[0], lines


async def test_fragments_take_from_the_connections_budget(backend: Backend) -> None:
    # 20 frames, barely refilled: 10 messages of 4 fragments are 40 frames
    settings = server_settings(
        backend,
        limits_exempt="",
        rate_limit_messages=20,
        rate_limit_window_seconds=3600,
        max_message_fragments=8,
    )
    async with serving(settings) as server:
        frames = await asyncio.to_thread(converse, await _open(server), [fragmented(PING, 4)] * 10)
        assert _close_code(frames) == 1008, frames
        # 5 messages of 4 fragments spent the 20 frames: the 6th's first fragment is over
        assert [m["type"] for m in _texts(frames)] == ["pong"] * 5, frames


async def test_fragments_take_from_the_addresss_budget(backend: Backend) -> None:
    # the address's budget is 24 frames (a handshake takes one); each connection's own
    # is far more
    settings = server_settings(
        backend,
        limits_exempt="",
        messages_per_address=24,
        address_message_window_seconds=3600,
        max_message_fragments=8,
    )
    async with serving(settings) as server:
        pongs = []
        codes = []
        for _ in range(2):  # each: a handshake, then 3 messages of 4 fragments
            frames = await asyncio.to_thread(
                converse, await _open(server), [fragmented(PING, 4)] * 3 + [_close_frame()]
            )
            pongs.append(sum(1 for m in _texts(frames) if m["type"] == "pong"))
            codes.append(_close_code(frames))
        # 13 frames for the first connection; the second's third message goes over at its
        # third fragment (1 + 4 + 4 + 3 = 12 more)
        assert pongs == [3, 2], (pongs, codes)
        assert codes == [1000, 1008], codes


def _close_frame() -> bytes:
    return Frame(Opcode.CLOSE, struct.pack("!H", 1000)).serialize(mask=True, extensions=[])
