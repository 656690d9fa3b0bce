"""The bus of a single node: race standings kept, frames delivered to what this node joined."""

from __future__ import annotations

from datetime import date

from server.bus import InProcessBus, StandingUpdate

DAY = date(2031, 5, 17)


async def test_in_process_bus_delivers_to_joined_rooms_only() -> None:
    bus = InProcessBus()
    got: list[tuple[date, int, str]] = []
    bus.set_standings_handler(lambda day, suits, frame: got.append((day, suits, frame)))
    await bus.join_standings(DAY, 1)
    await bus.publish_standings([StandingUpdate(DAY, 1, "ann", '{"player":"ann"}', "event-1")])
    await bus.publish_standings([StandingUpdate(DAY, 2, "ann", '{"player":"ann"}', "event-2")])
    assert got == [(DAY, 1, "event-1")]
    assert await bus.standings_entries(DAY, 2) == ['{"player":"ann"}']
    bus.forget_standings_before(DAY)
    assert await bus.standings_entries(DAY, 2) == ['{"player":"ann"}']  # that day is kept
    bus.forget_standings_before(date(2031, 5, 18))
    assert await bus.standings_entries(DAY, 2) == []


async def test_a_players_latest_standing_replaces_the_last_and_none_takes_it_out() -> None:
    bus = InProcessBus()
    await bus.publish_standings(
        [
            StandingUpdate(DAY, 1, "ann", "ann-1", "e1"),
            StandingUpdate(DAY, 1, "bob", "bob-1", "e2"),
            StandingUpdate(DAY, 1, "ann", "ann-2", "e3"),
        ]
    )
    assert sorted(await bus.standings_entries(DAY, 1)) == ["ann-2", "bob-1"]
    await bus.publish_standings([StandingUpdate(DAY, 1, "bob", None, "e4")])
    assert await bus.standings_entries(DAY, 1) == ["ann-2"]
    await bus.publish_standings([StandingUpdate(DAY, 4, "cy", None, "e5")])  # nobody to take out
    assert await bus.standings_entries(DAY, 4) == []


async def test_a_race_left_delivers_nothing_more_but_keeps_its_standings() -> None:
    bus = InProcessBus()
    got: list[str] = []
    bus.set_standings_handler(lambda day, suits, frame: got.append(frame))
    await bus.join_standings(DAY, 1)
    await bus.publish_standings(
        [StandingUpdate(DAY, 1, "ann", "a", "in"), StandingUpdate(DAY, 1, "bob", "b", "in too")]
    )
    await bus.leave_standings(DAY, 1)
    await bus.publish_standings([StandingUpdate(DAY, 1, "cy", "c", "out")])
    assert got == ["in", "in too"]
    assert sorted(await bus.standings_entries(DAY, 1)) == ["a", "b", "c"]


async def test_room_frames_reach_this_node_only_while_it_is_in_the_room() -> None:
    bus = InProcessBus()
    await bus.publish_room("ABCD", "before any handler")  # no receiver yet: dropped quietly
    got: list[tuple[str, str]] = []
    bus.set_room_handler(lambda code, frame: got.append((code, frame)))
    await bus.publish_room("ABCD", "not joined")
    await bus.join_room("ABCD")
    await bus.publish_room("ABCD", "joined")
    await bus.publish_room("WXYZ", "another room")
    await bus.leave_room("ABCD")
    await bus.publish_room("ABCD", "left")
    assert got == [("ABCD", "joined")]


async def test_a_days_counts_add_up_and_start_again_the_next_day() -> None:
    bus = InProcessBus()
    assert [await bus.count_for_day(DAY, "reviews:1") for _ in range(3)] == [1, 2, 3]
    assert await bus.count_for_day(DAY, "reviews:2") == 1  # a name of its own
    after = date(2031, 5, 18)
    assert await bus.count_for_day(after, "reviews:1") == 1
    assert await bus.count_for_day(after, "reviews:1") == 2
    # a day gone by (a clock set back) counts nothing against the day now
    assert await bus.count_for_day(DAY, "reviews:1") == 1
    assert await bus.count_for_day(after, "reviews:1") == 3
