"""The database answers but takes no write (its disk is full): every action is refused
``unavailable`` and changes nothing, ``/healthz`` answers 503 with the commits' error until
a commit succeeds, and the log has a line for the outage, not one per refusal. Once there is
room again the same action is played, without a restart.

The disk fills for real on SQLite: a ``PRAGMA max_page_count`` no larger than the file, on
the action log's connection, makes its writes fail with ``SQLITE_FULL`` ("database or disk
is full"), the error a full disk gives. On PostgreSQL a trigger the test puts on its game's
log rows raises ``disk_full`` (SQLSTATE 53100), the error PostgreSQL's full disk gives,
while every read still answers.
"""

from __future__ import annotations

import logging
import random
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import sqlalchemy as sa

from server.play.hub import UNAVAILABLE_LOG_SECONDS
from server.store import Store
from server.store.action_log import SqliteLogWriter
from tests.conftest import Backend
from tests.support.players import registered, resume, started
from tests.support.servers import (
    Client,
    fresh_clock,
    get_json,
    server_settings,
    serving,
    store_of,
    unique_name,
)

#: Actions played before the SQLite file is full, at most (a page holds some dozens).
MOST_ACTIONS_TO_FILL = 400
#: The refused action, sent again this many times while the disk is full.
RESENDS = 6


class Disk:
    """Fills the database's disk for the action log, and makes room again."""

    def __init__(self, store: Store, backend: Backend, game_id: str) -> None:
        self.store = store
        self.backend = backend
        self.game_id = game_id
        self._limit: int | None = None
        self._trigger = f"simon_test_full_{uuid.uuid4().hex[:10]}"

    def _sqlite(self) -> sqlite3.Connection:
        writer = self.store.log._writer
        assert isinstance(writer, SqliteLogWriter), writer
        return writer._connect()  # the action log's own connection

    async def _postgres(self, statement: str) -> None:
        url = sa.make_url(self.backend.database_url).set(drivername="postgresql")
        connection = await asyncpg.connect(url.render_as_string(hide_password=False))
        try:
            await connection.execute(statement)
        finally:
            await connection.close()

    async def fill(self) -> None:
        if self.backend.name == "embedded":
            db = self._sqlite()
            self._limit = db.execute("PRAGMA max_page_count").fetchone()[0]
            # migrations that copy a table (SQLite's batch mode) leave its old pages free:
            # give them back, so that the file is full at its size
            db.execute("VACUUM")
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            assert db.execute("PRAGMA freelist_count").fetchone() == (0,)
            db.execute(f"PRAGMA max_page_count={pages}")
            return
        await self._postgres(
            f"""
            CREATE FUNCTION {self._trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.game_id = '{self.game_id}' THEN
                    RAISE EXCEPTION 'could not extend file: No space left on device'
                        USING ERRCODE = 'disk_full';
                END IF;
                RETURN NEW;
            END $$;
            CREATE TRIGGER {self._trigger} BEFORE INSERT ON game_actions
                FOR EACH ROW EXECUTE FUNCTION {self._trigger}();
            """
        )

    async def make_room(self) -> None:
        if self.backend.name == "embedded":
            if self._limit is not None:
                self._sqlite().execute(f"PRAGMA max_page_count={self._limit}")
            return
        await self._postgres(
            f"DROP TRIGGER IF EXISTS {self._trigger} ON game_actions; "
            f"DROP FUNCTION IF EXISTS {self._trigger}()"
        )


@asynccontextmanager
async def full_disk(store: Store, backend: Backend, game_id: str) -> AsyncIterator[Disk]:
    """The disk filled; room made again at the end, also when the test fails."""
    disk = Disk(store, backend, game_id)
    try:
        await disk.fill()
        yield disk
    finally:
        await disk.make_room()


async def log_rows(store: Store, game_id: str) -> list[tuple[int, str]]:
    async with store.engine.connect() as connection:
        rows = await connection.execute(
            sa.text("SELECT seq, action FROM game_actions WHERE game_id = :game ORDER BY seq"),
            {"game": game_id},
        )
        return [(row.seq, row.action) for row in rows]


def outage_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.levelno >= logging.WARNING
        and record.name in ("server.play.session.session", "server.store.action_log")
    ]


async def test_a_full_disk_refuses_actions_turns_health_to_503_and_recovers(
    backend: Backend, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    if backend.name == "embedded":  # a file of its own: no free pages left by other tests
        backend = replace(backend, database_url=f"sqlite+aiosqlite:///{tmp_path / 'full.db'}")
    rng = random.Random(41)
    async with (
        serving(server_settings(backend), clock=fresh_clock()) as server,
        Client.connect(server.url) as client,
    ):
        store = store_of(server)
        await registered(client, unique_name("full"))
        ledger = await started(client, {"mode": "practice", "suits": 1})
        status, health = await get_json(server.http_url + "/healthz")
        assert status == 200 and health["database"]["ok"], health

        caplog.clear()  # the outage's lines from here
        async with full_disk(store, backend, ledger.game_id) as disk:
            refused: dict[str, Any] | None = None
            refused_action = ""
            for _ in range(MOST_ACTIONS_TO_FILL):  # until the next action has no room
                message, action = ledger.step(rng)
                reply = await client.request(message, timeout=30)
                if reply["type"] == "error":
                    refused, refused_action = message, action
                    first_refusal = time.monotonic()
                    break
                ledger.acknowledge(reply, action)
            assert refused is not None, f"{MOST_ACTIONS_TO_FILL} actions fitted a full disk"
            assert reply["code"] == "unavailable", reply
            before = await log_rows(store, ledger.game_id)
            assert len(before) == len(ledger.actions), before

            for _ in range(RESENDS):
                again = await client.request(refused, timeout=30)
                assert again["type"] == "error" and again["code"] == "unavailable", (
                    f"{refused} with the disk full was answered {again}"
                )
            outage = time.monotonic() - first_refusal

            status, health = await get_json(server.http_url + "/healthz")
            assert status == 503 and not health["ok"], health
            assert not health["database"]["ok"], health
            error = health["database"]["error"]
            assert "full" in error or "No space" in error, health
            assert await log_rows(store, ledger.game_id) == before, "a refused action was kept"
            state = await resume(client, ledger.game_id, ledger.seq)
            assert state["seq"] == ledger.seq and ledger.check(state) == [], state

            lines = outage_lines(caplog)
            # one line per UNAVAILABLE_LOG_SECONDS at most (one unless the machine was so
            # slow that the refusals took longer than that)
            most = 1 + int(outage // UNAVAILABLE_LOG_SECONDS)
            assert 1 <= len(lines) <= most, lines
            assert "refused" in lines[0], lines

            await disk.make_room()
            played = await client.request(refused, timeout=30)
            assert played["type"] != "error", f"with room again {refused} was answered {played}"
            ledger.acknowledge(played, refused_action)

        status, health = await get_json(server.http_url + "/healthz")
        assert status == 200 and health["ok"] and health["database"]["ok"], health
        state = await resume(client, ledger.game_id)
        assert state["seq"] == ledger.seq and ledger.check(state) == [], state
        assert len(await log_rows(store, ledger.game_id)) == len(ledger.actions)
        assert any("commits again" in r.getMessage() for r in caplog.records), caplog.text
