"""examples/bot.py (docs/bots.md) plays a whole daily against a real server, and the
server's HTTP answers hold to the contract it serves (docs/schema/)."""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.request
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from server.schema import openapi_document, render
from tests.conftest import Backend
from tests.support.servers import get_json, running_server, server_settings, unique_name

BOT = Path(__file__).resolve().parents[2] / "examples" / "bot.py"


def _body_schema(path: str) -> Draft202012Validator:
    document = openapi_document()
    reference = document["paths"][path]["get"]["responses"]["200"]["content"]["application/json"][
        "schema"
    ]
    return Draft202012Validator({"components": document["components"], **reference})


async def test_the_example_bot_finishes_todays_daily(backend: Backend) -> None:
    async with running_server(server_settings(backend)) as url:
        name = unique_name("bot")
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            str(BOT),
            url,
            name,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 120)
        assert process.returncode == 0, err.decode()
        result = json.loads(out.decode().splitlines()[-1])
        assert result["type"] == "finished" and result["mode"] == "daily"
        assert result["won"] or result["resigned"]
        assert f"{name} " in out.decode()
        http = url.replace("ws://", "http://")
        status, board = await get_json(f"{http}/leaderboard?board=bots&suits=1")
        assert status == 200 and name in [row["player"] for row in board["rows"]]
        assert not list(_body_schema("/leaderboard").iter_errors(board))


async def test_the_contract_is_served_and_the_bodies_hold_to_it(backend: Backend) -> None:
    async with running_server(server_settings(backend)) as url:
        http = url.replace("ws://", "http://")
        for name, make in (("protocol.json", "protocol_schema"), ("openapi.json", None)):
            request = urllib.request.Request(f"{http}/schema/{name}")
            with await asyncio.to_thread(urllib.request.urlopen, request, timeout=10) as answer:
                assert answer.headers["Content-Type"] == "application/json"
                assert answer.headers["Cache-Control"] == "no-cache"
                assert answer.headers["ETag"]
                body: Any = json.loads(answer.read())
            if make is None:
                assert render(body) == render(openapi_document())
            else:
                assert body["$defs"]["ClientMessage"]["oneOf"]
        for path, route in (("/healthz", "/healthz"), ("/daily", "/daily")):
            status, body = await get_json(f"{http}{path}")
            assert status == 200
            assert not list(_body_schema(route).iter_errors(body)), body
        status, body = await get_json(f"{http}/leaderboard?limit=0")
        assert status == 400
        error = openapi_document()["paths"]["/leaderboard"]["get"]["responses"]["400"]
        schema = {"components": openapi_document()["components"]}
        schema.update(error["content"]["application/json"]["schema"])
        assert not list(Draft202012Validator(schema).iter_errors(body)), body
