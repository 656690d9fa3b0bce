"""One error root: everything the store raises is a StoreError, and a driver's failure leaves
its public boundary as StoreUnavailable, raised from the driver's exception."""

from __future__ import annotations

import inspect
import sqlite3
from collections.abc import AsyncIterator

import pytest
import redis
from sqlalchemy.exc import OperationalError

from server.kinds import DayBoard
from server.store import (
    ActionLog,
    BadCursor,
    InvalidRequest,
    Store,
    StoreError,
    StoreUnavailable,
    errors,
)
from server.store.action_log import open_writer
from server.store.boundary import store_boundary, unavailable_on_driver_failure
from server.store.database import create_engine
from server.store.ranks import LocalRankCache
from tests.support.store import unique_day

UNREACHABLE = "postgresql+asyncpg://postgres@127.0.0.1:1/nowhere"


def test_every_store_error_has_one_root() -> None:
    raised = [
        value
        for value in vars(errors).values()
        if inspect.isclass(value) and issubclass(value, BaseException)
    ]
    assert len(raised) >= 7 and all(issubclass(error, StoreError) for error in raised)
    # Callers that catch ValueError for a bad argument or a bad cursor keep working.
    assert issubclass(BadCursor, InvalidRequest) and issubclass(InvalidRequest, ValueError)


@pytest.mark.parametrize(
    "failure",
    [
        OperationalError("SELECT 1", {}, Exception("server closed the connection")),
        sqlite3.OperationalError("disk I/O error"),
        redis.ConnectionError("Connection refused"),
        ConnectionRefusedError(111, "Connection refused"),
        TimeoutError(),
    ],
)
def test_a_driver_failure_becomes_unavailable_raised_from_it(failure: Exception) -> None:
    with pytest.raises(StoreUnavailable) as raised, unavailable_on_driver_failure():
        raise failure
    assert raised.value.__cause__ is failure
    assert str(raised.value) and "\n" not in str(raised.value)


def test_the_stores_own_errors_and_bugs_pass_unchanged() -> None:
    for error in (StoreUnavailable("down"), InvalidRequest("bad"), KeyError("bug")):
        with pytest.raises(type(error)) as raised, unavailable_on_driver_failure():
            raise error
        assert raised.value is error


@store_boundary
class Guarded:
    """A stand-in with each kind of method the boundary guards, and one it leaves alone."""

    @classmethod
    async def open(cls, fail: bool) -> Guarded:
        if fail:
            raise OSError("no route to host")
        return cls()

    async def read(self, key: str, *, default: int = 0) -> int:
        raise sqlite3.OperationalError("database is locked")

    async def rows(self, count: int) -> AsyncIterator[int]:
        yield 1
        raise redis.TimeoutError("Timeout reading from socket")

    async def _private(self) -> None:
        raise OSError("inside the store: its own business")


async def test_the_boundary_guards_every_public_coroutine_and_generator() -> None:
    with pytest.raises(StoreUnavailable):
        await Guarded.open(True)
    guarded = await Guarded.open(False)
    with pytest.raises(StoreUnavailable):
        await guarded.read("k")
    seen = []
    with pytest.raises(StoreUnavailable):
        async for row in guarded.rows(2):
            seen.append(row)  # noqa: PERF401  (the rows seen before the failure)
    assert seen == [1]
    with pytest.raises(OSError) as raised:
        await guarded._private()
    assert not isinstance(raised.value, StoreError)
    # Signatures are kept: the protocol test and type checkers see the originals.
    assert list(inspect.signature(Guarded.read).parameters) == ["self", "key", "default"]
    assert inspect.isasyncgenfunction(Guarded.rows)


async def test_a_store_whose_database_is_down_raises_unavailable() -> None:
    with pytest.raises(StoreUnavailable) as raised:
        await Store.open(UNREACHABLE)
    assert raised.value.__cause__ is not None  # the driver's own exception, for the log
    engine = create_engine(UNREACHABLE)
    store = Store(engine, LocalRankCache(), ActionLog(open_writer(UNREACHABLE)))
    try:
        with pytest.raises(StoreUnavailable):
            await store.player_by_id(1)
        with pytest.raises(StoreUnavailable):
            await store.leaderboard_page(DayBoard(unique_day(), 1), limit=5)
        with pytest.raises(StoreUnavailable):
            async for _ in store.finished_games():
                pass
    finally:
        await store.close()
