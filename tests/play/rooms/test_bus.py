"""A room's frames from the bus (server/play/rooms/bus.py): read whole as node messages,
pushed on to this node's followers as they came, a view of the room setting its timers,
and a frame that is no room's event dropped."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any, cast

import pytest

from server.bus import InProcessBus
from server.play.clock import ManualClock
from server.play.rooms.bus import RoomFanout
from server.play.rooms.timers import FollowedRoom, Times
from server.protocol import RaceEntry, RaceEvent, RaceRoom, RaceUpdate, RoomEntry, RoomView, encode

CODE = "KXR4M-7M2PQ"
VIEW = RoomView(
    code=CODE,
    state="racing",
    owner="ann",
    suits=1,
    public=False,
    capacity=10,
    allow_bots=False,
    countdown=10.0,
    time_limit=900.0,
    racers=[RoomEntry(player="ann")],
    starts_at="2026-03-01T10:00:10+00:00",
    ends_at="2026-03-01T10:15:10+00:00",
    revision=3,
)


class Followers:
    def __init__(self, room: FollowedRoom) -> None:
        self.room = room

    def get(self, code: str) -> FollowedRoom | None:
        return self.room if code == self.room.code else None


class Timers:
    def __init__(self) -> None:
        self.learnt: list[tuple[str, Times]] = []

    def learn(self, room: FollowedRoom, times: Times) -> bool:
        self.learnt.append((room.code, times))
        return True


class Parts:
    def __init__(self) -> None:
        self.pushed: list[str] = []
        self.room = FollowedRoom(CODE)
        self.room.followers[self.pushed.append] = cast(Any, None)
        self.timers = Timers()
        bus = InProcessBus()
        self.fanout = RoomFanout(
            bus=bus,
            clock=ManualClock(datetime(2026, 3, 1, 10, tzinfo=UTC)),
            views=cast(Any, None),
            followers=cast(Any, Followers(self.room)),
            timers=cast(Any, self.timers),
        )

    def deliver(self, frame: str, code: str = CODE) -> None:
        self.fanout._deliver(code, frame)


@pytest.fixture
def parts() -> Parts:
    return Parts()


def test_a_rooms_view_sets_its_timers_then_goes_to_its_followers_as_it_came(
    parts: Parts,
) -> None:
    frame = encode(RaceRoom(event="started", room=VIEW))
    parts.deliver(frame)
    assert parts.timers.learnt == [(CODE, Times.of_view(VIEW))]
    assert parts.pushed == [frame]


def test_a_racers_update_goes_to_the_followers_and_sets_no_timer(parts: Parts) -> None:
    frame = encode(RaceUpdate(code=CODE, event="moved", entry=RoomEntry(player="ann", moves=1)))
    parts.deliver(frame)
    assert parts.pushed == [frame] and parts.timers.learnt == []


def test_a_room_not_followed_here_is_not_read(parts: Parts) -> None:
    parts.deliver("{", code="WXYZ0-12345")
    assert parts.pushed == []


@pytest.mark.parametrize(
    "frame",
    [
        "{",
        '{"type": "race_room"}',  # no room
        '{"type": "pong", "server_time": "now"}',  # no node's message
        encode(
            RaceEvent(
                day=date(2026, 3, 1),
                suits=1,
                event="moved",
                entry=RaceEntry(
                    player="x", moves=0, score=500, removed=0, finished=False, won=False
                ),
            )
        ),  # a daily race's
    ],
    ids=["not-json", "malformed-view", "a-clients-message", "a-daily-race-event"],
)
def test_a_frame_that_is_no_rooms_event_is_dropped(
    parts: Parts, frame: str, caplog: pytest.LogCaptureFixture
) -> None:
    parts.deliver(frame)
    assert parts.pushed == [] and parts.timers.learnt == []
    assert "dropped" in caplog.text
