"""Limits per client address and on the whole server: the gate alone on a hand-moved
monotonic clock, then through a real server (its gate on the same kind of clock). The
limiters it is made of are tested in test_limiters, the listener in test_listen.

Clients are told apart by ``X-Forwarded-For`` from a trusted proxy (the test itself, on
127.0.0.1), so one machine plays many addresses."""

from __future__ import annotations

import asyncio
import json
import logging
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from server.net import RunningServer, run_server
from server.net.addresses import networks
from server.net.gated import GatedConnection
from server.net.limits import Gate, Limits
from tests.conftest import Backend
from tests.support.servers import Client, quick_prover, server_settings, serving, unique_name


class Ticker:
    """A monotonic clock moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# -- the gate alone ---------------------------------------------------------------------------


def test_the_client_address_comes_from_x_forwarded_for_only_behind_a_trusted_proxy() -> None:
    gate = Gate(Limits(trusted_proxies=networks("127.0.0.1, 10.0.0.0/8")), monotonic=Ticker())
    assert gate.client_address("203.0.113.7", ["198.51.100.1"]) == "203.0.113.7"
    assert gate.client_address("127.0.0.1", ["198.51.100.1"]) == "198.51.100.1"
    assert gate.client_address("127.0.0.1", []) == "127.0.0.1"
    # a client's own (spoofed) entries are left of what our proxies wrote
    assert gate.client_address("127.0.0.1", ["6.6.6.6, 198.51.100.1, 10.1.2.3"]) == ("198.51.100.1")
    assert gate.client_address("127.0.0.1", ["6.6.6.6", "198.51.100.1"]) == "198.51.100.1"
    assert gate.client_address("127.0.0.1", ["not-an-address"]) == "127.0.0.1"
    assert gate.client_address("2001:db8:1:2:3:4:5:6") == "2001:db8:1:2::/64"
    assert gate.client_address("::ffff:192.0.2.1") == "192.0.2.1"


# -- through a real server ---------------------------------------------------------------------


@asynccontextmanager
async def limited_server(
    backend: Backend, **limits: Any
) -> AsyncIterator[tuple[RunningServer, Ticker]]:
    clock = Ticker()
    settings = server_settings(backend, limits_exempt="", trusted_proxies="127.0.0.1", **limits)
    # today's deals proven first (serving's ready): each one proven is told to every
    # connection (daily_changed), which would come between a test's requests and its awaits
    async with serving(settings, monotonic=clock) as server:
        yield server, clock


def from_address(address: str) -> dict[str, Any]:
    return {"additional_headers": {"X-Forwarded-For": address}}


async def test_registrations_per_address(backend: Backend) -> None:
    async with limited_server(backend, registrations_per_address=3) as (server, clock):
        async with Client.connect(server.url, **from_address("198.51.100.1")) as one:
            replies = [
                await one.request({"type": "register", "name": unique_name("r")}) for _ in range(1)
            ]
        for _ in range(2):
            async with Client.connect(server.url, **from_address("198.51.100.1")) as again:
                replies.append(await again.request({"type": "register", "name": unique_name()}))
        assert [reply["type"] for reply in replies] == ["registered"] * 3
        async with Client.connect(server.url, **from_address("198.51.100.1")) as fourth:
            refused = await fourth.request({"type": "register", "name": unique_name()})
            assert refused["code"] == "rate-limited", refused
            assert refused["detail"]["retry_after"] == 1200, refused  # 3 an hour: 20 minutes
            async with Client.connect(server.url, **from_address("198.51.100.2")) as other:
                assert (await other.request({"type": "register", "name": unique_name()}))[
                    "type"
                ] == "registered"
        clock.now += 1200
        # 20 minutes on, the address may make one again (on a new connection: the one that
        # sat unsigned all that time is past its grace period on the same clock)
        async with Client.connect(server.url, **from_address("198.51.100.1")) as later:
            reply = await later.request({"type": "register", "name": unique_name()})
            assert reply["type"] == "registered", reply


async def test_only_accounts_made_count_toward_an_address_registrations(
    backend: Backend,
) -> None:
    async with limited_server(backend, registrations_per_address=2) as (server, _):
        address = from_address("198.51.100.4")
        async with Client.connect(server.url, **address) as first:
            taken = unique_name("taken")
            made = await first.request({"type": "register", "name": taken})
            assert made["type"] == "registered", made
            for _ in range(3):  # this connection has an account already
                again = await first.request({"type": "register", "name": unique_name()})
                assert again["code"] == "already-authenticated", again
        async with Client.connect(server.url, **address) as second:
            for name in ["no spaces here!", taken, taken, "bad/name"]:
                refused = await second.request({"type": "register", "name": name})
                assert refused["code"] in ("bad-name", "name-taken"), refused
            made = await second.request({"type": "register", "name": unique_name()})
            assert made["type"] == "registered", made  # the second of two
        async with Client.connect(server.url, **address) as third:
            over = await third.request({"type": "register", "name": unique_name()})
            assert over["code"] == "rate-limited", over


async def test_registrations_at_once_from_one_address_stay_within_its_budget(
    backend: Backend,
) -> None:
    async with limited_server(backend, registrations_per_address=2) as (server, _):
        address = from_address("198.51.100.5")
        async with (
            Client.connect(server.url, **address) as a,
            Client.connect(server.url, **address) as b,
            Client.connect(server.url, **address) as c,
            Client.connect(server.url, **address) as d,
        ):
            replies = await asyncio.gather(
                *(
                    client.request({"type": "register", "name": unique_name()})
                    for client in (a, b, c, d)
                )
            )
        kinds = sorted(reply.get("code", reply["type"]) for reply in replies)
        assert kinds == ["rate-limited", "rate-limited", "registered", "registered"], replies


async def test_failed_sign_ins_back_off_per_address(backend: Backend) -> None:
    async with limited_server(
        backend,
        auth_failures_free=2,
        auth_backoff_seconds=1,
        auth_backoff_max_seconds=8,
        unauthenticated_grace_seconds=0,  # the clock passes 30 s: the guesser stays regardless
    ) as (server, clock):
        async with Client.connect(server.url, **from_address("198.51.100.3")) as owner:
            token = (await owner.request({"type": "register", "name": unique_name()}))["token"]
        async with Client.connect(server.url, **from_address("203.0.113.3")) as guesser:
            codes = [
                (await guesser.request({"type": "auth", "token": f"guess-{n}"}))["code"]
                for n in range(3)
            ]
            assert codes == ["bad-token"] * 3  # two free, the third starts a lockout
            waits = []
            for _ in range(5):
                locked = await guesser.request({"type": "auth", "token": token})
                assert locked["code"] == "rate-limited", locked  # not even a good token
                waits.append(locked["detail"]["retry_after"])
                clock.now += waits[-1]
                assert (await guesser.request({"type": "auth", "token": "guess"}))[
                    "code"
                ] == "bad-token"
            assert waits == [1, 2, 4, 8, 8]
            # another address signs in with the same token meanwhile
            async with Client.connect(server.url, **from_address("198.51.100.3")) as again:
                signed = await again.request({"type": "auth", "token": token})
                assert signed["type"] == "authenticated", signed
            clock.now += 8
            signed = await guesser.request({"type": "auth", "token": token})
            assert signed["type"] == "authenticated", signed
        assert server.gate.refused["rate-limited"] == 5


async def _released(server: RunningServer, address: str, count: int) -> None:
    """Until the server has let go of connections from ``address`` down to ``count``."""
    async with asyncio.timeout(10):
        # the server lets go when it sees each close, in its own time
        while server.gate.by_address.get(address, 0) > count:  # noqa: ASYNC110
            await asyncio.sleep(0.01)


async def test_connections_per_address_and_overall(backend: Backend) -> None:
    async with limited_server(backend, max_connections_per_address=3, max_connections=5) as (
        server,
        _,
    ):
        async with (
            Client.connect(server.url, **from_address("198.51.100.4")) as a1,
            Client.connect(server.url, **from_address("198.51.100.4")),
            Client.connect(server.url, **from_address("198.51.100.4")),
        ):
            with pytest.raises(InvalidStatus) as refused:
                async with Client.connect(server.url, **from_address("198.51.100.4")):
                    pass
            response = refused.value.response
            assert response.status_code == 429
            assert json.loads(response.body)["error"]["code"] == "too-many-connections"
            async with (
                Client.connect(server.url, **from_address("198.51.100.5")),
                Client.connect(server.url, **from_address("198.51.100.6")),
            ):
                with pytest.raises(InvalidStatus) as full:  # the sixth in all
                    async with Client.connect(server.url, **from_address("198.51.100.7")):
                        pass
                assert full.value.response.status_code == 503
                body = json.loads(full.value.response.body)
                assert body["error"]["code"] == "too-many-connections"
            await a1.websocket.close()
            await _released(server, "198.51.100.4", 2)
            async with Client.connect(server.url, **from_address("198.51.100.4")) as back:
                assert (await back.request({"type": "ping"}))["type"] == "pong"
        await _released(server, "198.51.100.4", 0)
        assert server.gate.by_address == {}


async def test_a_connection_that_does_not_sign_in_is_closed_after_its_grace(
    backend: Backend,
) -> None:
    async with (
        limited_server(backend, unauthenticated_grace_seconds=30) as (server, clock),
        Client.connect(server.url, **from_address("198.51.100.8")) as idle,
        Client.connect(server.url, **from_address("198.51.100.9")) as player,
    ):
        await player.request({"type": "register", "name": unique_name("g")})
        # the idle one is alive (it answers pings, it may ask things) but not signed in
        assert (await idle.request({"type": "ping"}))["type"] == "pong"
        await idle.websocket.ping()
        clock.now += 29
        assert server.gate.sweep() == 0
        clock.now += 2
        server.gate.sweep()  # the server's own sweeper may have been first
        last = await idle.receive()
        assert last["type"] == "error" and last["code"] == "not-authenticated", last
        with pytest.raises(ConnectionClosed) as closed:
            await idle.receive()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        assert server.gate.expired == 1
        assert (await player.request({"type": "ping"}))["type"] == "pong"


def _get(url: str, address: str, **headers: str) -> tuple[int, dict[str, str], Any]:
    request = urllib.request.Request(url, headers={"X-Forwarded-For": address, **headers})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


async def test_http_requests_per_address(backend: Backend) -> None:
    async with limited_server(backend, http_requests_per_address=3, http_window_seconds=60) as (
        server,
        clock,
    ):
        url = server.http_url + "/daily"
        statuses = [(await asyncio.to_thread(_get, url, "198.51.100.10"))[0] for _ in range(3)]
        assert statuses == [200, 200, 200]
        status, headers, body = await asyncio.to_thread(_get, url, "198.51.100.10")
        assert status == 429 and body["error"]["code"] == "rate-limited", body
        assert headers["Retry-After"] == "20"
        assert (await asyncio.to_thread(_get, url, "198.51.100.11"))[0] == 200
        clock.now += 20
        assert (await asyncio.to_thread(_get, url, "198.51.100.10"))[0] == 200


async def test_bearer_tokens_over_http_share_the_sign_in_back_off(backend: Backend) -> None:
    async with limited_server(
        backend, auth_failures_free=2, auth_backoff_seconds=1, auth_backoff_max_seconds=8
    ) as (server, clock):
        url = server.http_url + "/replay/some-game"
        guess = {"Authorization": "Bearer guess", "Accept": "application/json"}
        statuses = [
            (await asyncio.to_thread(_get, url, "203.0.113.4", **guess))[0] for _ in range(3)
        ]
        assert statuses == [401, 401, 401]  # two free, the third starts a lockout
        status, headers, body = await asyncio.to_thread(_get, url, "203.0.113.4", **guess)
        assert status == 429 and body["error"]["code"] == "rate-limited", body
        assert headers["Retry-After"] == "1"
        async with Client.connect(server.url, **from_address("203.0.113.4")) as guesser:
            locked = await guesser.request({"type": "auth", "token": "guess"})
            assert locked["code"] == "rate-limited", locked
            clock.now += 1
            failed = await guesser.request({"type": "auth", "token": "guess"})
            assert failed["code"] == "bad-token", failed  # the fourth failure: 2 s
        status, headers, _ = await asyncio.to_thread(_get, url, "203.0.113.4", **guess)
        assert status == 429 and headers["Retry-After"] == "2"
        assert (await asyncio.to_thread(_get, url, "203.0.113.5", **guess))[0] == 401


async def test_x_forwarded_for_from_an_untrusted_peer_is_ignored(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    clock = Ticker()
    settings = server_settings(
        backend, limits_exempt="", trusted_proxies="", http_requests_per_address=2
    )
    async with run_server(settings, prover=quick_prover, monotonic=clock) as server:
        url = server.http_url + "/daily"
        statuses = [
            (await asyncio.to_thread(_get, url, f"198.51.100.{n}"))[0] for n in range(20, 23)
        ]
        assert statuses == [200, 200, 429]  # every request counted as 127.0.0.1


async def test_reconnecting_does_not_reset_the_message_budget_of_an_address(
    backend: Backend,
) -> None:
    async with limited_server(
        backend, messages_per_address=12, address_message_window_seconds=60
    ) as (server, clock):
        # a handshake is one message, and each ping another: 1 + 4 + 4 + 3, then refusals
        async with Client.connect(server.url, **from_address("198.51.100.40")) as again:
            codes: list[Any] = []
            for _ in range(4):  # short connections, a few messages each
                try:
                    async with Client.connect(server.url, **from_address("198.51.100.40")) as one:
                        for _ in range(3):
                            reply = await one.request({"type": "ping"})
                            codes.append(reply.get("code", reply["type"]))
                except InvalidStatus as error:
                    codes.append(error.response.status_code)
            assert codes == ["pong"] * 8 + ["rate-limited", 429], codes
            # signing in is a message like any other: refused before it is even looked at
            refused = await again.request({"type": "register", "name": unique_name()})
            assert refused["code"] == "rate-limited", refused
            assert "your address" in refused["message"] and refused["detail"]["retry_after"] == 5
            async with Client.connect(server.url, **from_address("198.51.100.41")) as other:
                assert (await other.request({"type": "ping"}))["type"] == "pong"
            clock.now += 5  # 12 a minute: one more every 5 s
            assert (await again.request({"type": "ping"}))["type"] == "pong"
        assert server.gate.offenders.lines == 0  # refused, never closed: nothing logged


async def test_reads_over_the_websocket_share_the_address_http_budget(backend: Backend) -> None:
    async with limited_server(backend, http_requests_per_address=4, http_window_seconds=60) as (
        server,
        _,
    ):
        async with Client.connect(server.url, **from_address("198.51.100.42")) as reader:
            codes = []
            for _ in range(5):
                reply = await reader.request({"type": "history", "player": "nobody-at-all"})
                codes.append(reply.get("code", reply["type"]))
            assert "rate-limited" not in codes[:4] and codes[4] == "rate-limited", codes
            # not a message the connection's own budget refuses: it goes on
            assert (await reader.request({"type": "ping"}))["type"] == "pong"
        status, _, body = await asyncio.to_thread(_get, server.http_url + "/daily", "198.51.100.42")
        assert status == 429 and body["error"]["code"] == "rate-limited", body
        assert (await asyncio.to_thread(_get, server.http_url + "/daily", "198.51.100.43"))[
            0
        ] == 200


async def test_an_accounts_sign_in_requests_have_a_budget_of_their_own(backend: Backend) -> None:
    """Requests about an account's sign-ins (a terminal's code looked up, say) cost the
    account's own budget as well as the address's: guesses spread over many addresses
    still stop at one account's budget."""
    async with limited_server(backend, http_requests_per_address=10, http_window_seconds=60) as (
        server,
        _,
    ):
        addresses = [f"198.51.100.{n}" for n in range(60, 64)]
        async with Client.connect(server.url, **from_address(addresses[0])) as first:
            registered = await first.request({"type": "register", "name": unique_name("ab")})
            codes = []
            for address in addresses:  # 2 lookups of 5 a connection: 10 in all, 4 addresses
                async with Client.connect(server.url, **from_address(address)) as guesser:
                    await guesser.request({"type": "auth", "token": registered["token"]})
                    for _ in range(2):
                        reply = await guesser.request(
                            {"type": "device_lookup", "user_code": "BCDF-GHJK"}
                        )
                        codes.append(reply["code"])
            assert codes[:2] == ["bad-code", "bad-code"] and codes[2:] == ["rate-limited"] * 6
            message = reply["message"]
            assert "account" in message  # the account's budget, not the address's


#: The most keys an instance dict shares with its class's other instances (CPython's
#: ``SHARED_KEYS_MAX_SIZE``): past it, each instance's dict is a table of its own.
SHARED_KEYS_MOST = 30


async def test_a_connections_own_attributes_leave_the_librarys_dict_shared(
    backend: Backend,
) -> None:
    """Ours are slots: the library's connection has nearly 30 attributes of its own, and
    ours in its dict would give every connection a dict of its own (1.5 KiB more each)."""
    async with (
        limited_server(backend) as (server, _),
        Client.connect(server.url) as client,
    ):
        await client.request({"type": "register", "name": unique_name("slots")})
        connections = list(server.server.connections)
        assert connections
        for connection in connections:
            assert isinstance(connection, GatedConnection)
            assert connection.client_address is not None  # ours, in its slot
            assert len(vars(connection)) <= SHARED_KEYS_MOST, sorted(vars(connection))
