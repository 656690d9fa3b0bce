"""A stop is not held up by a client that never answers the closing handshake: its
connection waits :data:`~server.net.app.CLOSE_TIMEOUT` for the client's close frame, not
the library's 10 s."""

from __future__ import annotations

import asyncio
import struct
import time

from server.net.app import CLOSE_TIMEOUT
from tests.conftest import Backend
from tests.support.raw import open_websocket
from tests.support.servers import server_settings, serving

#: What the rest of a stop may take besides the wait for the close frame.
SLACK = 2.5
#: The library's default close timeout, which a stop must not wait for.
LIBRARY_CLOSE_TIMEOUT = 10.0


async def test_a_client_that_never_answers_close_holds_a_stop_up_only_briefly(
    backend: Backend,
) -> None:
    assert CLOSE_TIMEOUT + SLACK < LIBRARY_CLOSE_TIMEOUT
    async with serving(server_settings(backend)) as server:
        # opened, then never read from nor written to: its close frame is never answered
        sock = await asyncio.to_thread(open_websocket, server.host, server.port)
        await asyncio.sleep(0.2)  # its connection handler is running
        stopping = time.monotonic()
    stopped_in = time.monotonic() - stopping
    with sock:
        sock.settimeout(5)
        received = b""
        while chunk := sock.recv(4096):
            received += chunk
    assert stopped_in < CLOSE_TIMEOUT + SLACK, stopped_in
    assert b"\x88\x02" + struct.pack("!H", 1001) in received, received  # told: going away
