"""deploy/nginx.conf's own limits per client address, with Debian's nginx in front of a
real node: requests per second, connections at once, and silent sockets closed at the
header timeout. The node's own per-address caps are raised out of the way, so every
refusal seen here is nginx's (an HTML 429 from nginx, not the node's JSON)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import pytest
from websockets.exceptions import InvalidStatus
from websockets.frames import Opcode

from server.net import run_server
from tests.conftest import Backend
from tests.support.dns import StubDns
from tests.support.nginx import NODE_NAME, Nginx, nginx_binary, shared_port
from tests.support.raw import connect_from, control_frames, flood, get_from, open_websocket
from tests.support.servers import Client, free_port, quick_prover, server_settings

NODE = "127.0.0.2"
#: deploy/nginx.conf's figures (checked to be there by the first test).
CONNECTIONS = 64
BURST = 100
DEADLINE = 30.0


@asynccontextmanager
async def behind_nginx(backend: Backend, folder: Path) -> AsyncIterator[tuple[str, int]]:
    """A node on 127.0.0.2 behind the shipped nginx.conf; yields nginx's (host, port)."""
    if nginx_binary() is None:
        pytest.fail("nginx is not installed (Debian package nginx; .ci/run installs it)")
    node_port = shared_port((NODE,))
    settings = server_settings(
        backend,
        trusted_proxies="127.0.0.1",
        limits_exempt="",
        max_connections_per_address=10_000,
        http_requests_per_address=100_000,
        messages_per_address=100_000,
    ).model_copy(update={"host": NODE, "port": node_port})
    async with AsyncExitStack() as stack:
        node = await stack.enter_async_context(run_server(settings, prover=quick_prover))
        await node.hub.daily.deals(node.hub.today())
        dns = await stack.enter_async_context(StubDns({NODE_NAME: [NODE]}))
        listen = free_port()
        balancer = Nginx(folder, listen=listen, resolver=dns.port, node_port=node_port)
        balancer.start()
        stack.callback(balancer.stop)
        async with asyncio.timeout(DEADLINE):
            while True:
                try:
                    status = (await _get(("127.0.0.1", listen), "/healthz", "127.0.0.9"))[0]
                except OSError:
                    status = 0
                if status == 200:
                    break
                await asyncio.sleep(0.1)
        yield "127.0.0.1", listen


async def _get(at: tuple[str, int], path: str, source: str) -> tuple[int, bytes]:
    status, _, body = await asyncio.to_thread(get_from, *at, path, source=source)
    return status, body


def test_the_shipped_figures() -> None:
    conf = (Path(__file__).resolve().parents[2] / "deploy" / "nginx.conf").read_text()
    assert f"limit_conn simon_connections {CONNECTIONS};" in conf
    assert f"burst={BURST} nodelay;" in conf
    assert "client_header_timeout 5s;" in conf


async def test_nginx_limits_requests_per_address(backend: Backend, tmp_path: Path) -> None:
    async with behind_nginx(backend, tmp_path) as at:
        statuses = [(await _get(at, "/healthz", "127.0.0.5"))[0] for _ in range(BURST)]
        assert statuses == [200] * BURST  # the burst (and whatever refilled meanwhile)
        # then 20 a second: many at once, however slow the machine, are mostly refused
        answers: list[tuple[int, bytes]] = []
        for _ in range(4):
            answers += await asyncio.gather(
                *(_get(at, "/healthz", "127.0.0.5") for _ in range(BURST // 2))
            )
        refused = [body for status, body in answers if status == 429]
        assert len(refused) >= BURST // 2, [status for status, _ in answers]
        assert b"nginx" in refused[0], refused[0]  # nginx's answer, not the node's
        assert (await _get(at, "/healthz", "127.0.0.6"))[0] == 200  # another address


async def test_nginx_limits_connections_per_address(backend: Backend, tmp_path: Path) -> None:
    async with behind_nginx(backend, tmp_path) as (host, port), AsyncExitStack() as held:
        url = f"ws://{host}:{port}"
        for _ in range(CONNECTIONS):
            await held.enter_async_context(Client.connect(url, local_addr=("127.0.0.7", 0)))
        with pytest.raises(InvalidStatus) as refused:
            async with Client.connect(url, local_addr=("127.0.0.7", 0)):
                pass
        assert refused.value.response.status_code == 429
        async with Client.connect(url, local_addr=("127.0.0.8", 0)) as other:
            assert (await other.request({"type": "ping"}))["type"] == "pong"


def _silent_until_closed(host: str, port: int) -> bytes:
    with connect_from(host, port, "127.0.0.10", timeout=DEADLINE) as sock:
        try:
            return sock.recv(1024)  # nginx's 408, or nothing: closed (a timeout fails)
        except ConnectionResetError:
            return b""


async def test_nginx_closes_silent_sockets_at_the_header_timeout(
    backend: Backend, tmp_path: Path
) -> None:
    async with behind_nginx(backend, tmp_path) as (host, port):
        answer = await asyncio.to_thread(_silent_until_closed, host, port)
        assert answer == b"" or answer.startswith(b"HTTP/1.1 408"), answer[:100]


async def test_a_ping_flood_through_nginx_is_closed_by_the_node(
    backend: Backend, tmp_path: Path
) -> None:
    async with behind_nginx(backend, tmp_path) as (host, port):
        sock = await asyncio.to_thread(open_websocket, host, port, source="127.0.0.11")
        outcome = await asyncio.to_thread(
            flood, sock, control_frames(Opcode.PING, 1000), seconds=DEADLINE
        )
        assert outcome.closed, outcome
        async with Client.connect(f"ws://{host}:{port}", local_addr=("127.0.0.12", 0)) as other:
            assert (await other.request({"type": "ping"}))["type"] == "pong"
