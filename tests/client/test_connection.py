"""The websocket client against a scripted websocket server: ids, errors, reconnects."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from websockets.asyncio.server import ServerConnection, serve

from client_cli.connection import Connection
from client_cli.errors import NetworkError, ServerError
from server.protocol import (
    Authenticated,
    Error,
    ErrorCode,
    Ping,
    PlayerInfo,
    Pong,
    ServerMessage,
    Welcome,
    encode,
    parse_client_message,
)


class Script:
    """A tiny server: answers hello, auth and ping; can drop a connection on demand."""

    def __init__(self) -> None:
        self.connections = 0
        self.received: list[Any] = []
        self.drop_after_auth = 0  # drop this many connections right after auth

    async def handle(self, socket: ServerConnection) -> None:
        self.connections += 1
        async for frame in socket:
            message = parse_client_message(frame)
            self.received.append(message)
            if message.type == "hello":
                await socket.send(encode(Welcome(id=message.id, server_time="now")))
            elif message.type == "auth":
                if message.token != "good":
                    reply = Error(id=message.id, code=ErrorCode.BAD_TOKEN, message="bad token")
                    await socket.send(encode(reply))
                    continue
                player = PlayerInfo(name="ann")
                await socket.send(encode(Authenticated(id=message.id, player=player)))
                if self.drop_after_auth:
                    self.drop_after_auth -= 1
                    await socket.close()
            elif message.type == "ping":
                await socket.send(json.dumps({"type": "pong", "server_time": "x"}))  # no id
                await socket.send(encode(Pong(id=message.id, server_time="now")))


@pytest.fixture
async def script() -> AsyncIterator[tuple[Script, str]]:
    script = Script()
    async with serve(script.handle, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        yield script, f"ws://127.0.0.1:{port}"


async def test_a_reply_is_matched_to_its_request_by_id(script: tuple[Script, str]) -> None:
    server, url = script
    pushed: list[ServerMessage] = []
    got_push = asyncio.Event()

    def on_message(message: ServerMessage) -> None:
        pushed.append(message)
        got_push.set()

    async with Connection(url, token="good", on_message=on_message) as connection:
        assert connection.player is not None and connection.player.name == "ann"
        pong = await connection.request(Ping(type="ping"), Pong)
        assert pong.server_time == "now"
        await asyncio.wait_for(got_push.wait(), 5)  # sent before the answer with the id
    assert [message.type for message in pushed] == ["pong"]  # the one with no id
    ids = [message.id for message in server.received]
    assert len(set(ids)) == len(ids)


async def test_an_error_reply_raises_server_error(script: tuple[Script, str]) -> None:
    _, url = script
    with pytest.raises(ServerError) as refused:
        await Connection(url, token="bad").open()
    assert refused.value.code == "bad-token"


async def test_a_dropped_connection_is_opened_again_and_resumed(
    script: tuple[Script, str],
) -> None:
    server, url = script
    server.drop_after_auth = 1
    resumed = asyncio.Event()
    statuses: list[str] = []

    async def on_reconnect() -> None:
        resumed.set()

    connection = Connection(
        url, token="good", reconnect=True, on_reconnect=on_reconnect, on_status=statuses.append
    )
    await connection.open()
    try:
        await asyncio.wait_for(resumed.wait(), 5)
        assert server.connections == 2
        assert any(status.startswith("reconnecting") for status in statuses)
        assert statuses[-1] == "connected"
        assert isinstance(await connection.request(Ping(type="ping"), Pong), Pong)
    finally:
        await connection.close()


async def test_without_reconnect_a_drop_fails_the_next_request(
    script: tuple[Script, str],
) -> None:
    server, url = script
    server.drop_after_auth = 1
    dropped = asyncio.Event()

    def on_status(status: str) -> None:
        if status == "disconnected":
            dropped.set()

    connection = Connection(url, token="good", on_status=on_status)
    await connection.open()
    await asyncio.wait_for(dropped.wait(), 5)
    with pytest.raises(NetworkError, match="not connected"):
        await connection.request(Ping(type="ping"), Pong)
    await connection.close()


async def test_a_reply_that_cannot_be_read_fails_its_request_at_once() -> None:
    """A reply with the request's id that does not parse (here a ``rank`` without its
    ``total``) fails that request with a sentence saying so, long before the timeout."""

    async def handle(socket: ServerConnection) -> None:
        async for frame in socket:
            message = parse_client_message(frame)
            if message.type == "hello":
                await socket.send(encode(Welcome(id=message.id, server_time="now")))
            else:
                garbled = {"type": "rank", "id": message.id, "day": "2026-03-01", "suits": 1}
                await socket.send(json.dumps({**garbled, "player": "ann", "around": []}))

    async with serve(handle, "127.0.0.1", 0) as server:
        port = next(iter(server.sockets)).getsockname()[1]
        async with Connection(f"ws://127.0.0.1:{port}", timeout=60) as connection:
            with pytest.raises(NetworkError) as failed:
                await connection.request(Ping(type="ping"), Pong)
    assert "not protocol v1" in str(failed.value) and "total" in str(failed.value)
    assert "in time" not in str(failed.value)
