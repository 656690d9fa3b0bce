"""A hub on a fake store, the in-process bus and a manual clock, for the play layer's
unit tests (the same parts run against the real store in tests/net and tests/store)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from server.bus import InProcessBus
from server.play.clock import ManualClock
from server.play.hub import Hub
from tests.support.fakes import FakeStore, NoRaceRooms, NoSocial, fixed_prover
from tests.support.servers import NO_NEW_PLAYERS_BOARD

SECRET = "unit-test-secret"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(datetime(2026, 3, 1, 10, 0, tzinfo=UTC))


@pytest.fixture
async def hub(clock: ManualClock) -> AsyncIterator[Hub]:
    store = FakeStore()
    hub = Hub(
        store=store,
        bus=InProcessBus(),
        clock=clock,
        secret=SECRET,
        prover=fixed_prover(par=42),
        race_interval=0.5,
        race_store=NoRaceRooms(),  # type: ignore[arg-type]
        social_store=NoSocial(),  # type: ignore[arg-type]
        thresholds=NO_NEW_PLAYERS_BOARD,
    )
    yield hub
    await hub.close()
    await store.close()
