"""The circuit breaker in front of a cache: open after a failure, one trial call after its
seconds, closed by the trial's success; a line in the log on opening and on closing only."""

from __future__ import annotations

import asyncio
import logging

import pytest

from server.breaker import Breaker, State


class Skipped(Exception):
    pass


class Down(OSError):
    pass


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def state(breaker: Breaker) -> State:
    return breaker.state  # read afresh (a check of the property narrows nothing)


def breaker(clock: Clock) -> Breaker:
    return Breaker("cache", failures=(OSError,), refused=Skipped, open_seconds=5, monotonic=clock)


async def call(breaker: Breaker, *, fail: BaseException | None = None) -> str:
    async with breaker.call():
        if fail is not None:
            raise fail
    return "made"


async def test_a_failure_opens_it_and_a_trial_after_its_seconds_closes_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = Clock()
    cache = breaker(clock)
    assert await call(cache) == "made" and state(cache) == "closed"
    with caplog.at_level(logging.WARNING, "server.breaker"):
        with pytest.raises(Down):
            await call(cache, fail=Down("timeout"))
        assert state(cache) == "open"
        for _ in range(3):
            with pytest.raises(Skipped, match="cache skipped"):
                await call(cache)
        clock.now = 4.9
        with pytest.raises(Skipped):
            await call(cache)
        clock.now = 5.0
        assert state(cache) == "half-open"
        with pytest.raises(Down):  # the trial fails: open again, for as long
            await call(cache, fail=Down("timeout"))
        clock.now = 9.9
        with pytest.raises(Skipped):
            await call(cache)
        clock.now = 10.0
        assert await call(cache) == "made"  # the trial answers: closed
        assert state(cache) == "closed"
        assert await call(cache) == "made"
    assert (cache.opened, cache.skipped) == (1, 5)
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 2, lines  # opened once, closed once: never a line per call
    assert "cache failed (timeout)" in lines[0] and "answers again" in lines[1]


async def test_one_trial_at_a_time_while_half_open() -> None:
    clock = Clock()
    cache = breaker(clock)
    with pytest.raises(Down):
        await call(cache, fail=Down())
    clock.now = 5.0
    release = asyncio.Event()

    async def trial() -> None:
        async with cache.call():
            await release.wait()

    task = asyncio.create_task(trial())
    await asyncio.sleep(0)  # the trial is on its way
    with pytest.raises(Skipped):
        await call(cache)
    release.set()
    await task
    assert state(cache) == "closed"


async def test_errors_that_are_not_the_services_open_nothing() -> None:
    clock = Clock()
    cache = breaker(clock)
    with pytest.raises(ValueError):
        await call(cache, fail=ValueError("a caller's bug"))
    assert state(cache) == "closed"
    with pytest.raises(Down):
        await call(cache, fail=Down())
    clock.now = 5.0
    with pytest.raises(asyncio.CancelledError):  # a trial cancelled: the next one may try
        await call(cache, fail=asyncio.CancelledError())
    assert await call(cache) == "made" and state(cache) == "closed"
