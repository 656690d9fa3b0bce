"""The migrations: up, down and up again on both backends, and in step with the models."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.script import ScriptDirectory

from server.kinds import DayBoard
from server.names import look_key
from server.store import NameTaken, Store, migrate
from server.store.database import create_engine
from server.store.order import ResultKey
from tests.conftest import Backend
from tests.store.conftest import fresh_database

TABLES = {
    "players",
    "daily_deals",
    "games",
    "game_actions",
    "fair_play",
    "review_audit",
    "races",
    "race_entries",
    "race_lobbies",
    "reports",
    "install_secrets",
    "account_trust",
    "solver_reviews",
    "credentials",
    "passkeys",
    "recovery_codes",
    "device_codes",
    "follows",
    "blocks",
    "leagues",
    "league_members",
}
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
        engine = create_engine(url)
        try:
            async with engine.connect() as connection:
                logged = (
                    await connection.execute(
                        sa.text(
                            "SELECT game_id, seq, action, at_ms FROM game_actions "
                            "ORDER BY game_id, seq"
                        )
                    )
                ).all()
        finally:
            await engine.dispose()
        started_ms, finished_ms = (int(t.timestamp() * 1000) for t in (started, finished))
        assert [tuple(row) for row in logged] == [
            ("playing", 1, "1-2", started_ms),
            ("playing", 2, "undo", started_ms),
            ("resigned", 1, "1-2", started_ms),
            ("resigned", 2, "resign", finished_ms),
        ]

        await migrate.downgrade(url, "0001")
        engine = create_engine(url)
        try:
            async with engine.connect() as connection:
                rows: dict[str, object] = dict(
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


def _before(revision: str) -> str:
    """The revision a migration applies to."""
    found = ScriptDirectory.from_config(migrate.alembic_config()).get_revision(revision)
    assert found is not None and isinstance(found.down_revision, str)
    return found.down_revision


async def _sql(url: str, *statements: str) -> list[sa.Row[object]]:
    """Run statements in one transaction; the rows of the last."""
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            for statement in statements:
                result = await connection.execute(sa.text(statement))
            return list(result) if result.returns_rows else []
    finally:
        await engine.dispose()


async def _leaderboard_index(url: str) -> str:
    """How the database defines ix_games_leaderboard."""
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            if connection.dialect.name == "sqlite":
                query = "SELECT sql FROM sqlite_master WHERE name = 'ix_games_leaderboard'"
            else:
                query = "SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_games_leaderboard'"
            return str((await connection.execute(sa.text(query))).scalar_one())
    finally:
        await engine.dispose()


_GAME = (
    "INSERT INTO games (id, player_id, mode, code, suits, day, started_at, finished_at,"
    " won, resigned, moves, score, removed, elapsed) VALUES ('{id}',"
    " (SELECT id FROM players WHERE name = '{player}'), 'daily',"
    " 'SS1-S1-AAAAABD', 1, '2030-05-01', '2030-05-01 10:00:00', '2030-05-01 10:05:00',"
    " {won}, false, 80, {score}, {removed}, 300.0)"
)


async def test_fair_play_migration_up_and_down_with_data(
    backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """0003 adds the bot flags (false for every existing row) and rebuilds the leaderboard
    index in the new order; down again, the rows stay and the old index is back."""
    before = _before("0003")
    async with fresh_database(backend, tmp_path_factory.mktemp("migrations")) as url:
        await migrate.upgrade(url, before)
        old_index = await _leaderboard_index(url)
        await _sql(
            url,
            "INSERT INTO players (name, name_key, token_hash, created_at)"
            " VALUES ('Ann', 'ann', 'h1', '2030-05-01 09:00:00')",
            _GAME.format(id="g-lost", player="Ann", won="false", score=880, removed=3),
        )
        await migrate.upgrade(url, "0003")
        assert "won" in await _leaderboard_index(url) != old_index
        assert await _sql(url, "SELECT bot FROM players") == [(False,)]
        store = await Store.open(url)
        try:
            bot = await store.create_player(
                name="Robo", token_hash="h2", now=datetime(2030, 5, 1, tzinfo=UTC), bot=True
            )
            await store.create_player(
                name="Bea", token_hash="h3", now=datetime(2030, 5, 1, tzinfo=UTC)
            )
            await _sql(
                url,
                _GAME.format(id="g-won", player="Bea", won="true", score=820, removed=4),
                _GAME.format(id="g-bot", player="Robo", won="true", score=850, removed=4),
                f"UPDATE games SET bot = true WHERE player_id = {bot.id}",
            )
            day = datetime(2030, 5, 1).date()
            page = await store.leaderboard_page(DayBoard(day, 1), limit=10)
            assert [(row.player, row.won, row.removed) for row in page.rows] == [
                ("Bea", True, 4),
                ("Ann", False, 3),  # the higher score, but no win
            ]
            bots = await store.leaderboard_page(DayBoard(day, 1, "bots"), limit=10)
            assert [row.player for row in bots.rows] == ["Robo"]
            next_key = ResultKey.of(await store.get_game("g-won"))
            assert next_key.won and next_key.removed == 4
        finally:
            await store.close()
        await migrate.downgrade(url, before)
        assert await migrate.current(url) == before
        assert await _leaderboard_index(url) == old_index
        rows = await _sql(url, "SELECT id, score FROM games ORDER BY id")
        assert rows == [("g-bot", 850), ("g-lost", 880), ("g-won", 820)]
        await migrate.upgrade(url, "head")
        assert await migrate.check(url) == []
        assert await _sql(url, "SELECT name, bot FROM players ORDER BY name") == [
            ("Ann", False),
            ("Bea", False),
            ("Robo", False),  # what a downgrade drops, an upgrade cannot know again
        ]


async def test_the_look_key_migration_fills_every_account_and_keeps_look_alikes_apart(
    backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """0010 gives each account its look key, oldest first: of the accounts that already
    looked alike the oldest keeps it and the others have none, and every name still signs
    in; a new look-alike of any of them is taken; down again, the column goes."""
    before = _before("0010")
    async with fresh_database(backend, tmp_path_factory.mktemp("migrations")) as url:
        await migrate.upgrade(url, before)
        await _sql(
            url,
            *(
                "INSERT INTO players (name, name_key, token_hash, created_at)"
                f" VALUES ('{name}', '{name.lower()}', 'h-{name}', '2030-05-01 09:00:00')"
                for name in ("ann_1", "Bill", "ann_l", "ANN_I")  # the oldest first
            ),
        )
        await migrate.upgrade(url, "0010")
        rows = await _sql(url, "SELECT name, name_key, look_key FROM players ORDER BY id")
        assert rows == [
            ("ann_1", "ann_1", look_key("ann_1")),
            ("Bill", "bill", look_key("Bill")),
            ("ann_l", "ann_l", None),  # looks like ann_1, which is older
            ("ANN_I", "ann_i", None),  # and so does ANN_I
        ]
        store = await Store.open(url)
        try:
            for name in ("ann_1", "ann_l", "ANN_I", "bill"):
                assert await store.player_by_name(name) is not None
            with pytest.raises(NameTaken) as taken:
                await store.create_player(name="ann_I", token_hash="h5", now=datetime.now(UTC))
            assert taken.value.holder in ("ann_1", "ANN_I")
            with pytest.raises(NameTaken):
                await store.create_player(name="BiII", token_hash="h6", now=datetime.now(UTC))
            made = await store.create_player(name="Zoë", token_hash="h7", now=datetime.now(UTC))
            assert await store.player_by_name("ZOË") == made
        finally:
            await store.close()
        await migrate.downgrade(url, before)
        assert await _sql(url, "SELECT count(*) FROM players") == [(5,)]
        await migrate.upgrade(url, "head")
        assert await migrate.check(url) == []


async def test_the_credentials_migration_keeps_every_token_signing_in(
    backend: Backend, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """0013 moves each account's token hash to a credential of its own: the same token signs
    in after it; down again, the account has its oldest credential's hash back."""
    before = _before("0013")
    async with fresh_database(backend, tmp_path_factory.mktemp("migrations")) as url:
        await migrate.upgrade(url, before)
        await _sql(
            url,
            "INSERT INTO players (name, name_key, token_hash, created_at)"
            " VALUES ('Ann', 'ann', 'hash-of-ann', '2030-05-01 09:00:00')",
        )
        await migrate.upgrade(url, "0013")
        store = await Store.open(url)
        try:
            now = datetime(2030, 5, 2, tzinfo=UTC)
            signed = await store.signed_in_by(secret_hash="hash-of-ann", now=now, address="::1")
            assert signed is not None
            player, credential = signed
            assert player.name == "Ann" and credential.kind == "registration"
            assert credential.created_at == datetime(2030, 5, 1, 9, tzinfo=UTC)
            assert credential.last_used_at == now and credential.last_used_from == "::1"
            await store.add_credential(
                player_id=player.id,
                kind="terminal",
                label="simon",
                secret_hash="hash-of-terminal",
                now=now,
                address="::1",
            )
        finally:
            await store.close()
        await migrate.downgrade(url, before)
        assert await _sql(url, "SELECT name, token_hash FROM players") == [("Ann", "hash-of-ann")]
        await migrate.upgrade(url, "head")
        assert await migrate.check(url) == []
