"""An embedded server acknowledges an action only once it would survive a power cut: every
connection to its SQLite file, the action log's included, runs in WAL mode with
``synchronous=FULL``, which syncs the write-ahead log at each commit (with ``NORMAL`` it is
synced only at checkpoints, and a power cut may take the seconds since the last one).
``SIMON_SQLITE_SYNCHRONOUS=normal`` is the operator's choice of speed over that.

A power cut cannot be made in a test; what is checked is the setting of the connections
the live server commits on.
"""

from __future__ import annotations

import random

import pytest
import sqlalchemy as sa

from server.settings import Settings
from server.store.action_log import SqliteLogWriter
from tests.conftest import Backend
from tests.support.players import act, registered, started
from tests.support.servers import Client, fresh_clock, server_settings, serving, store_of

#: ``PRAGMA synchronous`` answers a number.
SYNCHRONOUS = {"normal": 1, "full": 2}


@pytest.mark.parametrize("backend", ["embedded"], indirect=True)
@pytest.mark.parametrize("setting", [None, "normal", "full"], ids=["default", "normal", "full"])
async def test_the_action_log_commits_with_the_log_synced_at_each_commit(
    backend: Backend, setting: str | None
) -> None:
    overrides = {} if setting is None else {"sqlite_synchronous": setting}
    expected = SYNCHRONOUS[setting or "full"]
    async with (
        serving(server_settings(backend, **overrides), clock=fresh_clock()) as server,
        Client.connect(server.url) as client,
    ):
        await registered(client, f"sync-{random.randrange(10**9)}")
        ledger = await started(client, {"mode": "practice", "suits": 1})
        message, action = ledger.step(random.Random(7))
        await act(client, ledger, message, action)  # acknowledged: committed by the log

        store = store_of(server)
        writer = store.log._writer
        assert isinstance(writer, SqliteLogWriter), writer
        connection = writer._connect()  # the connection the move was committed on
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert connection.execute("PRAGMA synchronous").fetchone() == (expected,), (
            "the action log's connection does not sync its commits as configured"
        )
        # the other writes (accounts, games, results) go through the engine's connections
        async with store.engine.connect() as other:
            mode = (await other.execute(sa.text("PRAGMA synchronous"))).scalar_one()
            count = (
                await other.execute(
                    sa.text("SELECT count(*) FROM game_actions WHERE game_id = :game"),
                    {"game": ledger.game_id},
                )
            ).scalar_one()
        assert mode == expected, "the engine's connections do not sync as configured"
        assert count == len(ledger.actions) == 1, count


def test_the_setting_takes_either_case_and_nothing_else(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMON_SQLITE_SYNCHRONOUS", "NORMAL")
    assert Settings().sqlite_synchronous == "normal"
    monkeypatch.delenv("SIMON_SQLITE_SYNCHRONOUS")
    assert Settings().sqlite_synchronous == "full"
    monkeypatch.setenv("SIMON_SQLITE_SYNCHRONOUS", "off")
    with pytest.raises(ValueError, match="sqlite_synchronous"):
        Settings()
