"""The bus: the in-process one, and Redis shared by two nodes (with a reader that reconnects)."""

from __future__ import annotations

import asyncio
import uuid
from datetime import date

import redis.asyncio as redis

from server.bus import InProcessBus, RedisBus

DAY = date(2031, 5, 17)


async def test_in_process_bus_delivers_to_joined_rooms_only() -> None:
    bus = InProcessBus()
    got: list[tuple[date, int, str]] = []
    bus.set_race_handler(lambda day, suits, frame: got.append((day, suits, frame)))
    await bus.join_race(DAY, 1)
    await bus.publish_race(DAY, 1, "ann", '{"player":"ann"}', "event-1")
    await bus.publish_race(DAY, 2, "ann", '{"player":"ann"}', "event-2")
    assert got == [(DAY, 1, "event-1")]
    assert await bus.race_entries(DAY, 2) == ['{"player":"ann"}']
    bus.forget_races_before(DAY)
    assert await bus.race_entries(DAY, 2) == ['{"player":"ann"}']  # that day is kept
    bus.forget_races_before(date(2031, 5, 18))
    assert await bus.race_entries(DAY, 2) == []


async def test_redis_bus_between_nodes_survives_a_dropped_connection(
    redis_url: str, run_id: str
) -> None:
    prefix = f"simon-test-{run_id}-bus-{uuid.uuid4().hex[:6]}"
    node_a, node_b = RedisBus(redis_url, prefix=prefix), RedisBus(redis_url, prefix=prefix)
    got: asyncio.Queue[str] = asyncio.Queue()
    node_a.set_race_handler(lambda day, suits, frame: got.put_nowait(frame))
    await node_a.start()
    await node_b.start()
    admin = redis.Redis.from_url(redis_url)
    try:
        await node_a.join_race(DAY, 4)
        await node_b.publish_race(DAY, 4, "bo", '{"player":"bo"}', "first")
        assert await asyncio.wait_for(got.get(), 5) == "first"
        assert await node_a.race_entries(DAY, 4) == ['{"player":"bo"}']

        readers = [
            c for c in await admin.client_list(_type="pubsub") if c["name"] == f"{prefix}:races"
        ]
        assert len(readers) == 1  # node B joined no race: only node A reads
        assert await admin.client_kill_filter(_id=readers[0]["id"]) == 1
        # messages published while the reader is away are lost: publish until one arrives
        async with asyncio.timeout(15):
            while True:
                await node_b.publish_race(DAY, 4, "bo", '{"player":"bo"}', "after")
                try:
                    if await asyncio.wait_for(got.get(), 0.5) == "after":
                        break
                except TimeoutError:
                    continue
    finally:
        await admin.aclose()
        await node_a.close()
        await node_b.close()


async def test_redis_bus_takes_more_callers_at_once_than_it_has_connections(
    redis_url: str, run_id: str
) -> None:
    bus = RedisBus(redis_url, prefix=f"simon-test-{run_id}-many")
    await bus.start()
    try:
        players = [f"player-{n}" for n in range(300)]  # a connection pool of 100 would refuse
        await asyncio.gather(*(bus.publish_race(DAY, 2, p, f'"{p}"', "moved") for p in players))
        assert sorted(await bus.race_entries(DAY, 2)) == sorted(f'"{p}"' for p in players)
    finally:
        await bus.close()
