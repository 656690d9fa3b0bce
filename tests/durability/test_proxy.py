"""The TCP proxy the fault tests put in front of PostgreSQL and Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from tests.support.proxy import TcpProxy, proxied_database_url, proxied_redis_url


@asynccontextmanager
async def echo_server() -> AsyncIterator[int]:
    """A TCP echo server on a free port of 127.0.0.1; yields the port."""

    writers: set[asyncio.StreamWriter] = set()

    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.add(writer)
        try:
            while data := await reader.read(4096):
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for writer in writers:
            writer.transport.abort()
        await server.wait_closed()


async def roundtrip(port: int, payload: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(payload)
        await writer.drain()
        return await asyncio.wait_for(reader.readexactly(len(payload)), 5)
    finally:
        writer.close()


async def closed_by_peer(reader: asyncio.StreamReader) -> bool:
    """True when the connection ends (EOF or reset) rather than carrying bytes."""
    try:
        return await asyncio.wait_for(reader.read(1), 5) == b""
    except ConnectionError:
        return True


async def test_bytes_go_through_both_ways() -> None:
    async with echo_server() as port, TcpProxy("127.0.0.1", port) as proxy:
        assert proxy.port != port
        payload = bytes(range(256)) * 1000  # more than one read's worth
        assert await roundtrip(proxy.port, payload) == payload
        assert proxy.bytes_up == proxy.bytes_down == len(payload)


async def test_cut_closes_open_and_new_connections_until_restored() -> None:
    async with echo_server() as port, TcpProxy("127.0.0.1", port) as proxy:
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        writer.write(b"ping")
        assert await asyncio.wait_for(reader.readexactly(4), 5) == b"ping"
        proxy.cut()
        assert await closed_by_peer(reader)
        writer.close()
        new_reader, new_writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        assert await closed_by_peer(new_reader)
        new_writer.close()
        assert proxy.connections == 0
        proxy.restore()
        assert await roundtrip(proxy.port, b"back") == b"back"


async def test_freeze_holds_the_bytes_until_restored() -> None:
    async with echo_server() as port, TcpProxy("127.0.0.1", port) as proxy:
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        proxy.freeze()
        writer.write(b"held")
        await writer.drain()
        with pytest.raises(TimeoutError):  # nothing comes back while frozen
            await asyncio.wait_for(reader.read(4), 0.2)
        assert proxy.connections == 1  # the connection stays open
        proxy.restore()
        assert await asyncio.wait_for(reader.readexactly(4), 5) == b"held"
        writer.close()


async def test_stopping_closes_every_connection() -> None:
    async with echo_server() as port:
        async with TcpProxy("127.0.0.1", port) as proxy:
            reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
            proxy.freeze()  # a frozen pump must not keep the proxy from stopping
            writer.write(b"x")
            await writer.drain()
        assert await closed_by_peer(reader)
        writer.close()


async def test_urls_through_the_proxy() -> None:
    async with TcpProxy("127.0.0.1", 9) as proxy:
        assert (
            proxied_database_url("postgresql+asyncpg://postgres@127.0.0.1:5432/simon_test_x", proxy)
            == f"postgresql+asyncpg://postgres@127.0.0.1:{proxy.port}/simon_test_x"
        )
        assert proxied_redis_url("redis://127.0.0.1:6379/0", proxy) == (
            f"redis://127.0.0.1:{proxy.port}/0"
        )


async def test_a_delay_holds_each_chunk_each_way_and_keeps_their_order() -> None:
    loop = asyncio.get_running_loop()
    async with echo_server() as port, TcpProxy("127.0.0.1", port, delay=0.15) as proxy:
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        try:
            sent = loop.time()
            for part in (b"one ", b"two ", b"three"):  # overlapping: latency, not a queue
                writer.write(part)
                await writer.drain()
            echoed = await asyncio.wait_for(reader.readexactly(13), 5)
            took = loop.time() - sent
        finally:
            writer.close()
    assert echoed == b"one two three"
    assert took >= 0.3  # held 150 ms on the way there and 150 ms on the way back
