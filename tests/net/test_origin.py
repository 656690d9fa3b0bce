"""Whose pages may open a websocket: through a real server, a handshake whose ``Origin`` is
another site's is refused (403 ``bad-origin``) before it is counted for anything, so a page
of another site in a player's browser (the player's own address) cannot spend the
player's budgets; the server's own origin (its ``Host``, or ``SIMON_PUBLIC_URL``) and a
client with no ``Origin`` (the command line, bots) go on.

The player's address is a loopback address of its own (127.0.0.2), counted apart from the
test's other connections.
"""

from __future__ import annotations

import json

import pytest
from websockets.datastructures import Headers
from websockets.exceptions import InvalidStatus
from websockets.http11 import Request

from server.net.origin import Origins, origin_of
from tests.conftest import Backend
from tests.support.players import registered, signed_in
from tests.support.servers import Client, server_settings, serving, unique_name

PLAYER = "127.0.0.2"
EVIL = "http://evil.example"


async def _refused(url: str, **options: object) -> tuple[int, dict[str, object]]:
    """The status and JSON body of a handshake that must be refused."""
    with pytest.raises(InvalidStatus) as refused:
        async with Client.connect(url, **options) as client:
            # let in: what the other site's page does with it (a guess at a token)
            await client.request({"type": "auth", "token": "a-guess"})
    response = refused.value.response
    return response.status_code, json.loads(response.body)


async def test_another_sites_page_cannot_spend_the_players_budgets(backend: Backend) -> None:
    settings = server_settings(
        backend,
        limits_exempt="",
        max_connections_per_address=8,
        messages_per_address=40,
        address_message_window_seconds=3600,
    )
    async with serving(settings) as server:
        async with Client.connect(server.url, local_addr=(PLAYER, 0)) as player:
            token = await registered(player, unique_name("o"))
        # far more than the free failed sign-ins (5), the address's connections (8) and
        # its handshakes (40)
        for _ in range(60):
            status, body = await _refused(server.url, origin=EVIL, local_addr=(PLAYER, 0))
            assert status == 403, body
            error = body["error"]
            assert isinstance(error, dict)
            assert error["code"] == "bad-origin", body
            assert "own pages" in str(error["message"]), body
        assert server.gate.by_address == {}  # none of them counted against the address
        # the player's own sign-in, from the same address, is untouched
        async with Client.connect(server.url, local_addr=(PLAYER, 0)) as player:
            await signed_in(player, token)
            assert (await player.request({"type": "ping"}))["type"] == "pong"


async def test_the_servers_own_origin_and_no_origin_are_let_in(backend: Backend) -> None:
    async with serving(server_settings(backend)) as server:
        own = f"http://{server.host}:{server.port}"  # what the client sends as Host
        for options in ({"origin": own}, {}, {"origin": own.upper()}):
            async with Client.connect(server.url, **options) as client:
                assert (await client.request({"type": "ping"}))["type"] == "pong", options
        # the same host on another port, or over another scheme's default port: not its own
        for other in (f"http://{server.host}:{server.port + 1}", f"https://{server.host}", "null"):
            status, body = await _refused(server.url, origin=other)
            assert status == 403, (other, body)


async def test_with_a_public_url_only_its_origin_is_let_in(backend: Backend) -> None:
    settings = server_settings(backend, public_url="https://simon.example/")
    async with serving(settings) as server:
        for origin in ("https://simon.example", "https://simon.example:443"):
            async with Client.connect(server.url, origin=origin) as client:
                assert (await client.request({"type": "ping"}))["type"] == "pong", origin
        for other in (f"http://{server.host}:{server.port}", "http://simon.example", EVIL):
            status, body = await _refused(server.url, origin=other)
            assert status == 403, (other, body)
        async with Client.connect(server.url) as client:  # no Origin: not a page
            assert (await client.request({"type": "ping"}))["type"] == "pong"


async def test_behind_a_trusted_proxy_the_forwarded_scheme_and_host_are_the_origin(
    backend: Backend,
) -> None:
    settings = server_settings(backend, limits_exempt="", trusted_proxies=PLAYER)
    async with serving(settings) as server:
        # as a proxy asks: Host as the client sent it, the client's scheme and address
        through = {
            "host": server.host,
            "port": server.port,
            "local_addr": (PLAYER, 0),
            "additional_headers": {"X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.7"},
        }
        url = "ws://simon.example/"  # the Host the node is asked for
        async with Client.connect(url, origin="https://simon.example", **through) as client:
            assert (await client.request({"type": "ping"}))["type"] == "pong"
        # the client spoke https to the proxy: a page over http is another origin
        status, body = await _refused(url, origin="http://simon.example", **through)
        assert status == 403, body
        # from a peer that is no trusted proxy, X-Forwarded-Proto is not believed: the
        # node's Host, over either scheme
        async with Client.connect(
            url,
            origin="http://simon.example",
            host=server.host,
            port=server.port,
            additional_headers={"X-Forwarded-Proto": "https"},
        ) as client:
            assert (await client.request({"type": "ping"}))["type"] == "pong"


def _request(**headers: str) -> Request:
    return Request(
        "/", Headers([(name.replace("_", "-"), value) for name, value in headers.items()])
    )


@pytest.mark.parametrize(
    ("headers", "proto", "allowed"),
    [
        ({"Host": "simon.example"}, None, True),  # no Origin
        ({"Host": "simon.example", "Origin": "https://simon.example"}, None, True),
        ({"Host": "simon.example", "Origin": "http://simon.example"}, None, True),
        ({"Host": "simon.example:443", "Origin": "https://simon.example"}, None, True),
        ({"Host": "Simon.Example:8080", "Origin": "http://simon.example:8080"}, None, True),
        ({"Host": "[::1]:8765", "Origin": "http://[::1]:8765"}, None, True),
        ({"Host": "simon.example", "Origin": "https://simon.example"}, "https", True),
        ({"Host": "simon.example", "Origin": "http://simon.example"}, "https", False),
        ({"Host": "simon.example:8080", "Origin": "http://simon.example"}, None, False),
        ({"Host": "simon.example", "Origin": "http://evil.example"}, None, False),
        ({"Host": "simon.example", "Origin": "null"}, None, False),
        ({"Host": "simon.example", "Origin": "http://simon.example:99999"}, None, False),
        ({"Origin": "http://simon.example"}, None, False),  # no Host to be
    ],
)
def test_an_origin_is_the_hosts_own(
    headers: dict[str, str], proto: str | None, allowed: bool
) -> None:
    refusal = Origins().refusal(_request(**headers), proto)
    assert (refusal is None) is allowed, refusal


def test_two_origins_are_refused() -> None:
    request = Request(
        "/", Headers([("Host", "a.example"), ("Origin", "http://a.example"), ("Origin", EVIL)])
    )
    assert Origins().refusal(request) is not None


def test_the_origin_of_a_public_url() -> None:
    assert origin_of("https://simon.example/day/") == ("https", "simon.example", 443)
    assert origin_of("wss://simon.example:8443") == ("https", "simon.example", 8443)
    assert origin_of("ftp://simon.example") is None
    assert origin_of("simon.example") is None
