"""``simon`` against a real server still proving today's 4-suit deal (its proof held): ``simon
daily`` says each suit count's own state, the 1-suit daily starts, and the 4-suit one's start
waits, telling why, and starts by itself once its deal is proven."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from client_cli.config import Account, Config
from client_cli.connection import Connection
from client_cli.main import main
from client_cli.play import start_online
from tests.conftest import Backend
from tests.support.fakes import FourSuitsHeld
from tests.support.players import registered
from tests.support.servers import (
    Client,
    fresh_clock,
    quick_prover,
    server_settings,
    serving,
    unique_name,
)


async def test_simon_says_each_dailys_state_and_starts_one_once_it_is_proven(
    backend: Backend,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("SIMON_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv("SIMON_SERVER", raising=False)
    prover = FourSuitsHeld(quick_prover)  # the longest proof, held

    settings = server_settings(backend)
    async with serving(settings, clock=fresh_clock(), prover=prover, ready=False) as server:
        today = server.hub.today()
        await asyncio.gather(server.hub.daily.deal(today, 1), server.hub.daily.deal(today, 2))

        async def simon(*argv: str) -> str:
            status = await asyncio.to_thread(main, [*argv, "--server", server.url])
            out, err = capsys.readouterr()
            assert status == 0, err
            return out

        name = unique_name("ann")
        async with Client.connect(server.url) as client:
            token = await registered(client, name)
        config = Config()
        config.add_account(server.url, Account(name, token))
        config.save()

        deals = json.loads(await simon("daily", "--json"))["deals"]
        assert [(deal["suits"], deal.get("ready")) for deal in deals] == [
            (1, None),
            (2, None),
            (4, False),
        ]
        out = " ".join((await simon("daily")).split())
        assert out.count("being proven: ready in a few seconds") == 1
        assert "4 suits being proven" in out and "1 suit not started" in out

        said: list[str] = []
        async with Connection(server.url, token=token) as connection:
            one = await start_online(connection, "daily", 1, None, told=said.append)
            assert one.view is not None and one.view.suits == 1 and said == []
        async with Connection(server.url, token=token) as connection:
            four = asyncio.create_task(start_online(connection, "daily", 4, None, told=said.append))
            for _ in range(100):
                if said:
                    break
                await asyncio.sleep(0.05)
            assert said == [
                "today's 4-suit deal is still being proven: it opens by itself in a few seconds"
            ]
            assert not four.done()  # waiting for it
            prover.release.set()
            table = await asyncio.wait_for(four, 10)  # asked again after the retry_after
            assert table.view is not None and table.view.suits == 4
        out = " ".join((await simon("daily")).split())
        assert "being proven" not in out
