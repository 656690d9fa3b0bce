"""A finished daily's text to share, afterwards: the protocol's ``daily_result`` over a real
websocket, and ``simon share`` (issue #44: the text showed only at the end of ``simon play``)."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from client_cli.config import Account, Config
from client_cli.main import main
from tests.conftest import Backend
from tests.support.players import registered
from tests.support.servers import Client, fresh_clock, server_settings, serving, unique_name


async def test_a_finished_daily_tells_its_share_text_again_and_simon_share_prints_it(
    backend: Backend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    clock = fresh_clock()
    day = clock.now().date()
    monkeypatch.setenv("SIMON_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("SIMON_SERVER", raising=False)
    async with serving(server_settings(backend), clock=clock) as server:

        async def simon(*argv: str) -> tuple[int, str, str]:
            status = await asyncio.to_thread(main, [*argv, "--server", server.url])
            out, err = capsys.readouterr()
            return status, out, err

        async with Client.connect(server.url) as ann:
            name = unique_name("ann")
            token = await registered(ann, name)
            asked = {"type": "daily_result", "suits": 1}
            refused = await ann.request(asked)
            assert (refused["type"], refused["code"]) == ("error", "not-found")
            assert "played no 1-suit daily" in refused["message"]
            assert (await ann.request({"type": "start", "suits": 1}))["type"] == "state"
            unfinished = await ann.request(asked)
            assert unfinished["code"] == "not-found" and "not finished" in unfinished["message"]
            await ann.send({"type": "resign", "id": "r"})
            ended = await ann.pushed_event(lambda frame: frame["type"] == "finished")
            again = await ann.request({**asked, "id": "again", "day": day.isoformat()})
            assert (again["type"], again["id"], again["game"]) == (
                "finished",
                "again",
                ended["game"],
            )
            assert again["share"] == ended["share"] and again["rank"] == ended["rank"] == 1
            assert again["share"].startswith(f"Simple Simon {day} · 1 suit · 0 of 4 runs")

        # in the player's language, made by the server
        async with Client.connect(server.url) as polish:
            await polish.request({"type": "hello", "version": 1, "lang": "pl"})
            await polish.request({"type": "auth", "token": token})
            said = await polish.request(asked)
            assert said["share"].startswith(f"Simple Simon {day} · 1 kolor · sekwencje: 0 z 4 ·")

        config = Config()
        config.add_account(server.url, Account(name, token))
        config.save()
        status, out, err = await simon("share", "--suits", "1")
        assert (status, err) == (0, "") and out == ended["share"] + "\n"
        status, out, _ = await simon("share", "--json")
        shown = json.loads(out)
        assert (shown["share"], shown["game"], shown["rank"]) == (ended["share"], ended["game"], 1)
        status, out, err = await simon("share", "--suits", "2")
        assert status == 1 and "you played no 2-suit daily on" in err
        status, out, _ = await simon("share", "--suits", "4", "--json")
        assert status == 1 and json.loads(out)["error"]["code"] == "not-found"

        # the day over: its text is still there
        clock.advance(seconds=24 * 3600)
        status, out, _ = await simon("share", "--day", day.isoformat())
        assert status == 0 and out.startswith(f"Simple Simon {day} · 1 suit · 0 of 4 runs")
        later = (day + timedelta(days=1)).isoformat()
        status, _, err = await simon("share", "--day", later)
        assert status == 1 and f"no 1-suit daily on {later}" in err
