"""A websocket client on a bare socket, for what no well-behaved client sends: floods of
control frames, sockets that never say a word. Blocking calls: run them in a thread
(``asyncio.to_thread``) while the server runs in the test's loop.

::

    sock = open_websocket("127.0.0.1", port, source="127.0.0.2")
    outcome = flood(sock, control_frames(Opcode.PING, 1000), seconds=30)
    assert outcome.closed
"""

from __future__ import annotations

import base64
import http.client
import os
import select
import socket
import struct
import time
from dataclasses import dataclass

from websockets.frames import Frame, Opcode


def connect_from(host: str, port: int, source: str, timeout: float = 10.0) -> socket.socket:
    """A TCP connection to ``host:port`` from the local address ``source`` (on Linux every
    127.x.y.z is a loopback address, so one machine plays many client addresses)."""
    return socket.create_connection((host, port), timeout=timeout, source_address=(source, 0))


def open_websocket(host: str, port: int, *, source: str = "127.0.0.1") -> socket.socket:
    """A socket past the websocket opening handshake (101), from ``source``."""
    sock = connect_from(host, port, source)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET / HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    response = b""
    while b"\r\n\r\n" not in response:
        chunk = sock.recv(4096)
        if not chunk:
            raise ConnectionError(f"closed during the handshake: {response!r}")
        response += chunk
    if not response.startswith(b"HTTP/1.1 101"):
        raise ConnectionError(f"not upgraded: {response.splitlines()[0]!r}")
    return sock


def control_frames(opcode: Opcode, count: int) -> bytes:
    """``count`` masked, empty control frames (6 bytes each), as a client sends them."""
    return Frame(opcode, b"").serialize(mask=True, extensions=[]) * count


def fragmented(payload: bytes, count: int) -> bytes:
    """One text message in ``count`` masked frames (a text frame, then continuations), as a
    client that fragments sends it; ``payload`` has at least ``count`` bytes."""
    size = -(-len(payload) // count)
    frames = [
        Frame(
            Opcode.TEXT if i == 0 else Opcode.CONT,
            payload[i * size : (i + 1) * size],
            fin=i == count - 1,
        )
        for i in range(count)
    ]
    return b"".join(frame.serialize(mask=True, extensions=[]) for frame in frames)


@dataclass
class Flood:
    closed: bool  # the server closed the connection (EOF, reset or a close frame)
    sent: int  # bytes sent
    seconds: float
    close_code: int | None = None  # the server's close frame's code, if one was read


def flood(sock: socket.socket, chunk: bytes, *, seconds: float, then_reset: bool = False) -> Flood:
    """Send ``chunk`` over and over until the server closes the connection or ``seconds``
    pass; what the server sends meanwhile is read and dropped (but a close frame's code
    is kept). ``then_reset``: end with a reset rather than a FIN."""
    started = time.monotonic()
    sent = 0
    received = b""
    code = None
    sock.setblocking(False)
    try:
        while time.monotonic() - started < seconds:
            try:
                readable, writable, _ = select.select([sock], [sock], [], 0.5)
                if readable:
                    data = sock.recv(1 << 16)
                    if not data:
                        return Flood(True, sent, time.monotonic() - started, code)
                    received = (received + data)[-4096:]
                    code = _close_code(received) or code
                if writable:
                    sent += sock.send(chunk)
            except BlockingIOError:
                continue
            except (ConnectionResetError, BrokenPipeError):
                return Flood(True, sent, time.monotonic() - started, code)
        return Flood(False, sent, time.monotonic() - started, code)
    finally:
        if then_reset:
            reset(sock)
        else:
            sock.close()


def _close_code(data: bytes) -> int | None:
    """The code of a close frame (unmasked, from a server) in ``data``, if one is there."""
    at = data.rfind(b"\x88")
    if at < 0 or len(data) < at + 4 or data[at + 1] < 2:
        return None
    return int(struct.unpack("!H", data[at + 2 : at + 4])[0])


def get_from(
    host: str, port: int, path: str, *, source: str, method: str = "GET", timeout: float = 10.0
) -> tuple[int, dict[str, str], bytes]:
    """A plain HTTP request from the local address ``source``: (status, headers, body)."""
    connection = http.client.HTTPConnection(host, port, timeout=timeout, source_address=(source, 0))
    try:
        connection.request(method, path)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def reset(sock: socket.socket) -> None:
    """Close ``sock`` with a reset (RST), not a FIN: what a killed flooder's kernel does."""
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


__all__ = [
    "Flood",
    "connect_from",
    "control_frames",
    "flood",
    "fragmented",
    "get_from",
    "open_websocket",
    "reset",
]
