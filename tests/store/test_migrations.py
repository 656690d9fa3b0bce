"""The migrations: up, down and up again on both backends, and in step with the models."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa

from server.store import Store, migrate
from server.store.store import create_engine
from tests.conftest import Backend
from tests.store.conftest import fresh_database

TABLES = {"players", "daily_deals", "games", "game_actions"}
HEAD = migrate.head_revision()


async def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            names = await connection.run_sync(lambda sync: sa.inspect(sync).get_table_names())
    finally:
        await engine.dispose()
    return set(names) - {"alembic_version"}


async def test_up_down_and_up_again(
    backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> None:
    async with fresh_database(backend, tmp_path_factory.mktemp("migrations")) as url:
        assert await migrate.current(url) is None
        await migrate.upgrade(url)
        assert await migrate.current(url) == HEAD
        assert await _tables(url) == TABLES
        await migrate.downgrade(url, "base")
        assert await migrate.current(url) is None
        assert await _tables(url) == set()
        await migrate.upgrade(url, "head")
        assert await _tables(url) == TABLES
        assert await migrate.check(url) == []


async def test_the_action_log_migration_carries_games_over_and_back(
    backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> None:
    started = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)
    finished = datetime(2026, 11, 29, 9, 5, tzinfo=UTC)
    async with fresh_database(backend, tmp_path_factory.mktemp("migrations")) as url:
        await migrate.upgrade(url, "0001")
        engine = create_engine(url)
        try:
            async with engine.begin() as connection:
                await connection.execute(
                    sa.text(
                        "INSERT INTO players (id, name, name_key, token_hash, created_at) "
                        "VALUES (1, 'Ann', 'ann', 't', :at)"
                    ),
                    {"at": started},
                )
                games = sa.table(
                    "games",
                    *(sa.column(name) for name in ("id", "player_id", "mode", "code", "suits")),
                    sa.column("day", sa.Date()),
                    sa.column("started_at", sa.DateTime(timezone=True)),
                    sa.column("actions", sa.JSON()),
                    sa.column("finished_at", sa.DateTime(timezone=True)),
                    *(sa.column(name) for name in ("won", "resigned", "moves", "score")),
                    *(sa.column(name) for name in ("removed", "elapsed")),
                )
                common = {"player_id": 1, "code": "SS1-S1-AAAAAAB", "suits": 1}
                playing = common | {"id": "playing", "mode": "practice", "day": None}
                await connection.execute(
                    games.insert(), playing | {"started_at": started, "actions": ["1-2", "undo"]}
                )
                resigned = common | {"id": "resigned", "mode": "daily", "day": started.date()}
                await connection.execute(
                    games.insert(),
                    resigned
                    | {"started_at": started, "actions": ["1-2"], "finished_at": finished}
                    | {"won": False, "resigned": True, "moves": 1, "score": 499}
                    | {"removed": 0, "elapsed": 300.0},
                )
        finally:
            await engine.dispose()

        await migrate.upgrade(url, "0002")
        store = await Store.open(url, migrate=False)
        try:
            playing = await store.load_game("playing")
            resigned = await store.load_game("resigned")
        finally:
            await store.close()
        assert playing is not None and resigned is not None
        assert [(e.seq, e.action) for e in playing.entries] == [(1, "1-2"), (2, "undo")]
        assert playing.entries[0].at_ms == int(started.timestamp() * 1000)
        assert [(e.seq, e.action) for e in resigned.entries] == [(1, "1-2"), (2, "resign")]
        assert resigned.entries[-1].at_ms == int(finished.timestamp() * 1000)
        assert resigned.game.result is not None and resigned.game.result.score == 499

        await migrate.downgrade(url, "0001")
        engine = create_engine(url)
        try:
            async with engine.connect() as connection:
                rows = dict(
                    (await connection.execute(sa.text("SELECT id, actions FROM games"))).all()
                )
        finally:
            await engine.dispose()
        restored = {
            key: json.loads(value) if isinstance(value, str) else value
            for key, value in rows.items()
        }
        assert restored == {"playing": ["1-2", "undo"], "resigned": ["1-2"]}
        assert "game_actions" not in await _tables(url)


async def test_check_reports_what_the_migrations_lack(
    backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> None:
    async with fresh_database(backend, tmp_path_factory.mktemp("migrations")) as url:
        store = await Store.open(url)  # migrates
        try:
            assert await migrate.check(store.engine) == []
            async with store.engine.begin() as connection:
                await connection.execute(sa.text("DROP INDEX ix_games_player_finished"))
            diffs = await migrate.check(store.engine)
        finally:
            await store.close()
        assert len(diffs) == 1 and "ix_games_player_finished" in diffs[0]


async def test_opening_twice_migrates_once(
    backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> None:
    async with fresh_database(backend, tmp_path_factory.mktemp("migrations")) as url:
        for _ in range(2):
            store = await Store.open(url)
            await store.close()
        assert await migrate.current(url) == HEAD
        unmigrated = await Store.open(url, migrate=False)
        await unmigrated.close()


async def test_foreign_keys_hold_after_migrating_sqlite(tmp_path: Path) -> None:
    """Migrations run with SQLite's foreign keys off; the pooled connection gets them back."""
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'fk.sqlite3'}")
    try:
        async with store.engine.connect() as connection:
            assert (await connection.exec_driver_sql("PRAGMA foreign_keys")).scalar() == 1
    finally:
        await store.close()


async def test_the_sqlite_file_folder_is_made(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'new' / 'folder' / 'simon.sqlite3'}"
    store = await Store.open(url)
    try:
        player = await store.create_player(name="Ann", token_hash="t", now=datetime.now(UTC))
        assert await store.player_by_name("ANN") == player
    finally:
        await store.close()
    assert (tmp_path / "new" / "folder" / "simon.sqlite3").is_file()
