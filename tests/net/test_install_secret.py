"""A secret of its own per install: with no ``SIMON_SECRET``, the first start makes one at
random and keeps it in the database, so no two installs deal the same dailies, a restarted
install deals as before, and the nodes of one database deal alike. The embedded install's
data folder and files are readable by its user alone."""

from __future__ import annotations

import asyncio
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from server.engine import SUIT_COUNTS, Game
from server.play.clock import ManualClock
from server.play.daily.deals import candidate_codes
from server.settings import Settings
from server.store import Store
from tests.conftest import Backend
from tests.store.conftest import fresh_database
from tests.support.servers import fresh_clock, server_settings, serving


def no_secret(backend: Backend, database_url: str | None, **more: object) -> Settings:
    return server_settings(backend, database_url=database_url, secret=None, **more)


async def dealt(settings: Settings, clock: ManualClock) -> dict[int, str]:
    """The day's deal codes of a server started with ``settings``, by suit count."""
    async with serving(settings, clock=clock) as server:
        deals = await server.hub.daily.deals(server.hub.today())
    return {deal.suits: deal.code for deal in deals}


async def stored_secret(url: str) -> str:
    store = await Store.open(url, migrate=False)
    try:
        return await store.install_secret(name="daily", candidate="not this one", now=_NOW)
    finally:
        await store.close()


_NOW = datetime.now(UTC)


def first_playable(secret: str, clock: ManualClock) -> dict[int, str]:
    """The deals ``secret`` makes on the clock's day (the test prover takes the first
    candidate with a legal move)."""
    day = clock.now().date()
    return {
        suits: next(
            code
            for code in candidate_codes(secret, day, suits)
            if next(Game.from_code(code).legal_moves(), None) is not None
        )
        for suits in SUIT_COUNTS
    }


async def test_two_installs_with_no_secret_deal_different_dailies(
    backend: Backend, tmp_path: Path
) -> None:
    clock = fresh_clock()
    async with (
        fresh_database(backend, tmp_path / "one") as first,
        fresh_database(backend, tmp_path / "two") as second,
    ):
        one = await dealt(no_secret(backend, first), clock)
        two = await dealt(no_secret(backend, second), clock)
        assert all(one[suits] != two[suits] for suits in SUIT_COUNTS)
        secrets = {await stored_secret(first), await stored_secret(second)}
        assert len(secrets) == 2 and all(len(secret) >= 40 for secret in secrets)
        # each install deals from its own secret, the one its database keeps
        assert one == first_playable(await stored_secret(first), clock)


async def test_an_install_restarted_keeps_its_secret(backend: Backend, tmp_path: Path) -> None:
    clock = fresh_clock()
    async with fresh_database(backend, tmp_path) as url:
        await dealt(no_secret(backend, url), clock)
        secret = await stored_secret(url)
        clock.advance(days=1)  # a day nobody dealt yet: made from the secret again
        assert await dealt(no_secret(backend, url), clock) == first_playable(secret, clock)
        assert await stored_secret(url) == secret


async def test_nodes_starting_together_on_one_database_share_one_secret(
    backend: Backend, tmp_path: Path
) -> None:
    async with fresh_database(backend, tmp_path) as url:
        opened = [await Store.open(url), await Store.open(url, migrate=False)]
        try:
            made = await asyncio.gather(
                *(
                    store.install_secret(name="daily", candidate=f"node-{n}", now=_NOW)
                    for n, store in enumerate(opened)
                )
            )
        finally:
            await asyncio.gather(*(store.close() for store in opened))
        assert made[0] == made[1] and made[0] in ("node-0", "node-1")


async def test_two_nodes_with_no_secret_deal_alike(backend: Backend, tmp_path: Path) -> None:
    clock = fresh_clock()
    async with fresh_database(backend, tmp_path) as url:
        settings = no_secret(backend, url)
        async with (
            serving(settings, clock=clock, ready=False) as node_a,
            serving(settings, clock=clock, ready=False) as node_b,
        ):
            clock.advance(days=1)  # a day neither has dealt: each makes it from its secret
            day = node_a.hub.today()
            a, b = node_a.hub.daily, node_b.hub.daily
            deals = await asyncio.gather(a.deals(day), b.deals(day))
        assert [d.code for d in deals[0]] == [d.code for d in deals[1]]
        assert {d.suits: d.code for d in deals[0]} == first_playable(
            await stored_secret(url), clock
        )


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("existing", [False, True])
async def test_the_data_folder_and_its_files_are_private(tmp_path: Path, existing: bool) -> None:
    # the embedded database's own files: nothing of the kind with PostgreSQL
    folder = tmp_path / "data"
    if existing:  # as earlier versions left them
        folder.mkdir()
        folder.chmod(0o755)
        (folder / "simon.sqlite3").touch()
        (folder / "simon.sqlite3").chmod(0o644)
    settings = Settings(data_dir=folder, secret=None, port=0, log_level="WARNING")
    async with serving(settings, clock=fresh_clock()) as server:
        await server.hub.daily.deals(server.hub.today() + timedelta(days=1))  # writes
        files = sorted(folder.iterdir())
        names = {"simon.sqlite3", "simon.sqlite3-shm", "simon.sqlite3-wal"}
        assert names <= {path.name for path in files}  # and the proving lease's file
        assert mode(folder) == 0o700
        assert {path.name: mode(path) for path in files} == {path.name: 0o600 for path in files}


def test_an_empty_secret_means_the_installs_own_and_production_refuses_a_short_one() -> None:
    assert Settings(secret="").secret is None and Settings(secret="  ").secret is None
    assert Settings().secret is None  # no default string: nothing anybody could compute with
    with pytest.raises(ValueError, match="SIMON_SECRET"):
        Settings(secret="short", production=True)
    assert Settings(production=True).secret is None  # the install's own
