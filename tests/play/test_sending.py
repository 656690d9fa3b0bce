"""The one sender of what a node tells its other nodes: in order, never blocking, a full
queue dropping its oldest, a refused batch counted, a failing bus logged once a while."""

from __future__ import annotations

import asyncio
import logging

import pytest

from server.bus import BusUnavailable
from server.play import sending as bus_sender
from server.play.clock import ManualClock
from server.play.sending import BusSender


class Sink:
    """A bus call that keeps each batch it was given (or refuses them all)."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.failing = False

    async def __call__(self, items: list[int]) -> None:
        self.batches.append(items)
        if self.failing:
            raise BusUnavailable("Redis is down")


async def test_items_go_in_order_a_batch_at_a_time(clock: ManualClock) -> None:
    sink = Sink()
    sender = BusSender(sink, clock, what="events", batch=3)
    for n in range(7):
        sender.put(n)
    assert sink.batches == []  # put never waits for the bus
    await sender.flush()
    assert sink.batches == [[0, 1, 2], [3, 4, 5], [6]]
    assert sender.dropped == 0


async def test_a_full_queue_drops_its_oldest(
    clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bus_sender, "MOST_WAITING", 4)
    sink = Sink()
    sender = BusSender(sink, clock, what="events", batch=10)
    for n in range(6):
        sender.put(n)
    await sender.flush()
    assert sink.batches == [[2, 3, 4, 5]]
    assert sender.dropped == 2


async def test_a_refused_batch_is_counted_and_a_failing_bus_logged_once_a_while(
    clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    sink = Sink()
    sink.failing = True
    sender = BusSender(sink, clock, what="room events")
    with caplog.at_level(logging.WARNING, logger=bus_sender.__name__):
        for n in range(5):
            sender.put(n)
        await sender.flush()
        assert sender.dropped == 5
        assert [r.getMessage() for r in caplog.records] == [
            "room events dropped (1 so far): Redis is down"
        ]
        clock.advance(seconds=bus_sender.FAILURE_LOG_INTERVAL)
        sender.put(5)
        await sender.flush()
    assert len(caplog.records) == 2 and "(6 so far)" in caplog.records[1].getMessage()


async def test_items_that_may_gather_wait_for_a_hurried_one(clock: ManualClock) -> None:
    sink = Sink()
    sender = BusSender(sink, clock, what="events", batch=10, gather=5.0)
    sender.put(1, hurry=False)
    sender.put(2, hurry=False)
    for _ in range(5):
        await asyncio.sleep(0)
    assert sink.batches == []  # gathering, no time has passed
    sender.put(3)
    await sender.flush()
    assert sink.batches == [[1, 2, 3]]
