"""A stop is not held up by a client that never answers the closing handshake: its
connection waits :data:`~server.net.app.CLOSE_TIMEOUT` for the client's close frame, not
the library's 10 s. And every action a stop leaves committed was answered before the close:
a client sending ahead learns of each without resending it."""

from __future__ import annotations

import asyncio
import json
import struct
import time

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from server.net.app import CLOSE_TIMEOUT
from tests.conftest import Backend
from tests.support.raw import open_websocket
from tests.support.servers import (
    Client,
    first_legal,
    server_settings,
    serving,
    unique_name,
)

#: Actions a client sends ahead of their answers when the stop comes (a move, an undo, ...).
SENT_AHEAD = 60

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


async def test_every_action_committed_at_a_stop_was_answered_before_the_close(
    backend: Backend,
) -> None:
    settings = server_settings(backend)
    async with serving(settings) as server:
        websocket = await connect(server.url, compression=None)
        client = Client(websocket)
        token = (await client.request({"type": "register", "name": unique_name("ahead")}))["token"]
        state = (await client.request({"type": "start", "suits": 1}))["state"]
        move = first_legal(state["code"])
        for n in range(SENT_AHEAD):  # sent ahead, none of them waited for
            action = {"type": "undo"} if n % 2 else {"type": "move", "move": move}
            await client.send({"id": f"a{n}", **action})
        answered = [await client.receive()]  # the stop comes while the rest are under way
    async with websocket:
        try:
            while True:
                answered.append(json.loads(await websocket.recv()))
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1001, closed
    acknowledged = [frame for frame in answered if frame["type"] in ("moved", "state")]
    assert all(frame["type"] != "error" for frame in answered), answered
    assert len(acknowledged) < SENT_AHEAD, "the stop came after every answer: nothing tested"
    async with serving(settings) as again, Client.connect(again.url) as client:
        await client.request({"type": "auth", "token": token})
        stored = (await client.request({"type": "resume", "game": state["game"]}))["state"]
    assert stored["seq"] == len(acknowledged), (stored["seq"], len(acknowledged))
