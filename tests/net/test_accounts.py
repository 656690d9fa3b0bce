"""Accounts people keep, over a real server: credentials revoked on one node refused on
another within a second, a token rotated, recovery codes spent once, an account's data
exported and the account deleted, and no secret in the log."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from server.logs import quiet_libraries
from tests.conftest import Backend
from tests.support.servers import Client, fresh_clock, server_settings, serving, unique_name


def _export(base: str, token: str) -> tuple[int, Any]:
    request = urllib.request.Request(
        f"{base}/account/export", headers={"Authorization": f"Bearer {token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def test_a_credential_revoked_on_one_node_is_refused_on_the_other_within_a_second(
    postgres_url: str, redis_url: str, run_id: str
) -> None:
    shared = Backend("services", postgres_url, redis_url, f"simon-test-{run_id}")
    settings = server_settings(shared)  # one Redis prefix for both nodes
    async with serving(settings) as node_a, serving(settings) as node_b:
        async with Client.connect(node_a.url) as on_a, Client.connect(node_b.url) as on_b:
            registered = await on_a.request({"type": "register", "name": unique_name("rv")})
            codes = (await on_a.request({"type": "recovery_codes"}))["codes"]
            recovered = await on_b.request({"type": "recover", "code": codes[0].lower()})
            assert recovered["type"] == "signed_in"
            assert recovered["player"]["name"] == registered["player"]["name"]
            devices = await on_a.request({"type": "devices"})
            kinds = {c["kind"]: c for c in devices["credentials"]}
            assert set(kinds) == {"registration", "recovery"} and kinds["registration"]["current"]
            assert devices["recovery_codes_left"] == 9
            revoked_at = time.monotonic()
            after = await on_a.request({"type": "revoke", "credential": kinds["recovery"]["id"]})
            assert [c["kind"] for c in after["credentials"]] == ["registration"]
            # node B's connection, signed in by the revoked credential, is told at once
            pushed = await on_b.pushed_event(lambda f: f["type"] == "signed_out", timeout=1.0)
            assert pushed["reason"] == "revoked" and time.monotonic() - revoked_at < 1.0
            refused = await on_b.request({"type": "devices"})
            assert refused["type"] == "error" and refused["code"] == "not-authenticated"
        async with Client.connect(node_b.url) as again:
            refused = await again.request({"type": "auth", "token": recovered["token"]})
            assert refused["code"] == "bad-token"
            spent = await again.request({"type": "recover", "code": codes[0]})
            assert spent["code"] == "bad-code"  # one sign-in a code
            kept = await again.request({"type": "auth", "token": registered["token"]})
            assert kept["type"] == "authenticated"


async def test_rotating_a_token_refuses_the_old_one_everywhere(backend: Backend) -> None:
    async with serving(server_settings(backend)) as server:
        async with Client.connect(server.url) as first, Client.connect(server.url) as second:
            registered = await first.request({"type": "register", "name": unique_name("rt")})
            await second.request({"type": "auth", "token": registered["token"]})
            rotated = await first.request({"type": "rotate_token"})
            assert rotated["type"] == "token_rotated" and rotated["token"] != registered["token"]
            # the other connection signed in by the old token is signed out; this one is not
            await second.pushed_event(lambda f: f["type"] == "signed_out", timeout=1.0)
            devices = await first.request({"type": "devices"})
            assert [(c["kind"], c["current"]) for c in devices["credentials"]] == [
                ("rotation", True)
            ]
        async with Client.connect(server.url) as client:
            refused = await client.request({"type": "auth", "token": registered["token"]})
            assert refused["code"] == "bad-token"
            signed = await client.request({"type": "auth", "token": rotated["token"]})
            assert signed["type"] == "authenticated"


async def test_export_then_delete_keeps_results_under_an_anonymous_name(backend: Backend) -> None:
    clock = fresh_clock()
    async with serving(server_settings(backend), clock=clock) as server:
        day = clock.now().date().isoformat()
        name = unique_name("del")
        async with Client.connect(server.url) as client:
            registered = await client.request({"type": "register", "name": name})
            await client.request({"type": "start", "suits": 4})
            await client.request({"type": "resign"})
            practice = await client.request({"type": "start", "mode": "practice"})
            await client.request({"type": "resign"})
            status, data = await asyncio.to_thread(_export, server.http_url, registered["token"])
            assert status == 200 and data["account"]["name"] == name
            games = {game["id"]: game for game in data["games"]}
            assert practice["state"]["game"] in games and len(games) == 2
            assert all(game["actions"][-1]["action"] == "resign" for game in games.values())
            assert "secret_hash" not in json.dumps(data) and registered["token"] not in json.dumps(
                data
            )
            wrong = await client.request({"type": "delete_account", "confirm": "someone"})
            assert wrong["code"] == "not-confirmed"
            deleted = await client.request({"type": "delete_account", "confirm": name.upper()})
            assert deleted["type"] == "account_deleted" and deleted["name"].startswith("#")
        async with Client.connect(server.url) as client:
            refused = await client.request({"type": "auth", "token": registered["token"]})
            assert refused["code"] == "bad-token"
            status, _ = await asyncio.to_thread(_export, server.http_url, registered["token"])
            assert status == 401
            # the name is free again, and the past board keeps the result, anonymously
            again = await client.request({"type": "register", "name": name})
            assert again["type"] == "registered"
            board = await client.request(
                {"type": "leaderboard", "day": day, "suits": 4, "limit": 5}
            )
            assert [row["player"] for row in board["rows"]] == [deleted["name"]]


async def test_a_terminal_code_signs_in_once_after_approval(backend: Backend) -> None:
    clock = fresh_clock()
    async with serving(server_settings(backend), clock=clock) as server:
        async with Client.connect(server.url) as player, Client.connect(server.url) as terminal:
            registered = await player.request({"type": "register", "name": unique_name("tc")})
            asked = await terminal.request({"type": "device_code", "device": "simon on a laptop"})
            assert asked["verification_uri_complete"].endswith(f"/play?code={asked['user_code']}")
            pending = await terminal.request(
                {"type": "device_token", "device_code": asked["device_code"]}
            )
            assert pending["code"] == "authorization-pending"
            hurried = await terminal.request(
                {"type": "device_token", "device_code": asked["device_code"]}
            )
            assert hurried["code"] == "slow-down"  # sooner than the interval
            shown = await player.request(
                {"type": "device_lookup", "user_code": asked["user_code"].lower()}
            )
            assert shown["device"] == "simon on a laptop" and shown["expires_in"] > 500
            approved = await player.request(
                {"type": "device_approve", "user_code": asked["user_code"]}
            )
            assert approved["approved"] is True
        clock.advance(seconds=10)  # the interval, grown by the slow-down
        async with Client.connect(server.url) as terminal:
            signed = await terminal.request(
                {"type": "device_token", "device_code": asked["device_code"]}
            )
            assert signed["type"] == "signed_in"
            assert signed["player"]["name"] == registered["player"]["name"]
        clock.advance(seconds=10)
        async with Client.connect(server.url) as other:
            spent = await other.request(
                {"type": "device_token", "device_code": asked["device_code"]}
            )
            assert spent["code"] == "expired-token"


@pytest.mark.parametrize("kind", ["passkey sign-in", "passkey options"])
async def test_passkeys_need_a_named_host(backend: Backend, kind: str) -> None:
    async with (
        serving(server_settings(backend)) as server,
        Client.connect(server.url, origin=server.http_url) as client,
    ):
        if kind == "passkey options":
            await client.request({"type": "register", "name": unique_name("pk")})
            reply = await client.request({"type": "passkey_options", "purpose": "add"})
        else:
            reply = await client.request({"type": "passkey_options", "purpose": "sign_in"})
        assert reply["code"] == "passkey-failed"  # 127.0.0.1: no relying party id


async def test_no_secret_reaches_the_log_at_debug(
    backend: Backend, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    quiet_libraries()  # as the server's logging does (server.logs.configure)
    async with (
        serving(server_settings(backend)) as server,
        Client.connect(server.url) as player,
        Client.connect(server.url) as terminal,
    ):
        registered = await player.request({"type": "register", "name": unique_name("lg")})
        codes = (await player.request({"type": "recovery_codes"}))["codes"]
        asked = await terminal.request({"type": "device_code"})
        await player.request({"type": "device_approve", "user_code": asked["user_code"]})
        signed = await terminal.request(
            {"type": "device_token", "device_code": asked["device_code"]}
        )
        recovered = await terminal.request({"type": "recover", "code": codes[1]})
        rotated = await player.request({"type": "rotate_token"})
        await asyncio.to_thread(_export, server.http_url, rotated["token"])
        await player.request({"type": "auth", "token": "not-a-token"})
    secrets = [
        registered["token"],
        *codes,
        asked["device_code"],
        signed["token"],
        recovered["token"],
        rotated["token"],
    ]
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert caplog.records  # the server did log (at DEBUG): what it said holds no secret
    assert [secret for secret in secrets if secret in logged] == []
