"""A race room's timers on one node (server/play/rooms/timers.py), on a manual clock: which
instants a room's state sets timers for, a newer revision moving them and an older one
ignored, what comes due handed to the rooms' background work, and that work waited for
(or cut off) at the close. (Rooms acting on them are tested on real servers:
tests/net/test_rooms.py.)"""

from __future__ import annotations

import asyncio
import inspect
import logging
from datetime import UTC, datetime, timedelta

import pytest

from server.kinds import RoomState
from server.play.clock import ManualClock
from server.play.rooms import timers as room_timers
from server.play.rooms.rules import Follower
from server.play.rooms.timers import Due, FollowedRoom, RoomTasks, RoomTimers, Times
from server.protocol import RoomView
from server.store import RaceRecord
from server.store.races import EXPIRED, OPEN, OVER, STARTED, RaceState

T0 = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
CODE = "KXR4M-7M2PQ"


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def open_room(revision: int, auto_start: float | None = None) -> Times:
    return Times(revision, OPEN, None if auto_start is None else at(auto_start), None, None)


def started(revision: int, reveal: float, end: float) -> Times:
    return Times(revision, STARTED, None, at(reveal), at(end))


class Acts:
    """What came due, in order, as the rooms' work records it."""

    def __init__(self) -> None:
        self.done: list[tuple[str, Due]] = []

    async def __call__(self, code: str, due: Due) -> None:
        self.done.append((code, due))


async def settle() -> None:
    """Let the work a timer spawned run (it awaits nothing: one turn of the loop)."""
    await asyncio.sleep(0)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(T0)


@pytest.fixture
def acts() -> Acts:
    return Acts()


@pytest.fixture
def tasks() -> RoomTasks:
    return RoomTasks()


@pytest.fixture
def timers(clock: ManualClock, tasks: RoomTasks, acts: Acts) -> RoomTimers:
    return RoomTimers(clock=clock, tasks=tasks, act=acts)


def due_at(room: FollowedRoom) -> dict[Due, datetime]:
    return {name: moment for name, (moment, _) in room.timers.items()}


# -- which instants a room's state sets timers for ---------------------------------------------


async def test_an_open_public_room_starts_by_itself_at_its_instant(
    clock: ManualClock, timers: RoomTimers, acts: Acts
) -> None:
    room = FollowedRoom(CODE)
    assert timers.learn(room, open_room(1, auto_start=30))
    assert due_at(room) == {"start": at(30)}
    clock.advance(seconds=29.9)
    await settle()
    assert acts.done == [] and "start" in room.timers
    clock.advance(seconds=0.1)
    await settle()
    assert acts.done == [(CODE, "start")] and room.timers == {}


async def test_an_open_room_nobody_counts_down_has_no_timer(timers: RoomTimers) -> None:
    room = FollowedRoom(CODE)
    assert timers.learn(room, open_room(1))
    assert room.timers == {} and room.times == open_room(1)


async def test_a_started_race_is_revealed_then_ended(
    clock: ManualClock, timers: RoomTimers, acts: Acts
) -> None:
    room = FollowedRoom(CODE)
    timers.learn(room, started(2, reveal=10, end=910))
    assert due_at(room) == {"reveal": at(10), "end": at(910)}
    clock.advance(seconds=10)
    await settle()
    assert acts.done == [(CODE, "reveal")] and due_at(room) == {"end": at(910)}
    clock.advance(seconds=900)
    await settle()
    assert acts.done == [(CODE, "reveal"), (CODE, "end")] and room.timers == {}


async def test_a_revealed_race_waits_only_for_its_end(timers: RoomTimers) -> None:
    room = FollowedRoom(CODE, revealed=True)
    timers.learn(room, started(2, reveal=10, end=910))
    assert due_at(room) == {"end": at(910)}
    unrevealed = FollowedRoom(CODE)
    timers.learn(unrevealed, started(2, reveal=10, end=910))
    unrevealed.revealed = True  # the reveal was done by a node before its timer here
    timers.learn(unrevealed, started(3, reveal=10, end=910))
    assert due_at(unrevealed) == {"end": at(910)}


@pytest.mark.parametrize("state", [OVER, EXPIRED])
async def test_a_room_over_or_expired_has_no_timers_left(
    clock: ManualClock, timers: RoomTimers, acts: Acts, state: RaceState
) -> None:
    room = FollowedRoom(CODE)
    timers.learn(room, started(2, reveal=10, end=910))
    timers.learn(room, Times(3, state, None, at(10), at(910)))
    assert room.timers == {}
    clock.advance(seconds=1000)  # the cancelled timers never fire
    await settle()
    assert acts.done == []


async def test_an_instant_already_past_comes_due_at_once(
    clock: ManualClock, timers: RoomTimers, acts: Acts
) -> None:
    clock.advance(seconds=100)  # this node learns of the race late
    room = FollowedRoom(CODE)
    timers.learn(room, started(2, reveal=10, end=910))
    clock.advance(seconds=0)
    await settle()
    assert acts.done == [(CODE, "reveal")] and due_at(room) == {"end": at(910)}


# -- newer and older news ------------------------------------------------------------------------


async def test_a_newer_revision_moves_the_timers_and_an_older_one_is_ignored(
    clock: ManualClock, timers: RoomTimers, acts: Acts
) -> None:
    room = FollowedRoom(CODE)
    assert timers.learn(room, open_room(1, auto_start=30))
    # the owner started it early: the countdown replaces the wait
    assert timers.learn(room, started(3, reveal=15, end=915))
    assert due_at(room) == {"reveal": at(15), "end": at(915)}
    # a view of revision 2 arrives late (another node's, through the bus)
    assert not timers.learn(room, open_room(2, auto_start=30))
    assert room.times == started(3, reveal=15, end=915)
    assert due_at(room) == {"reveal": at(15), "end": at(915)}
    clock.advance(seconds=30)
    await settle()
    assert acts.done == [(CODE, "reveal")]  # no "start": its timer was cancelled


async def test_the_same_revision_again_is_no_news_and_keeps_its_timers(
    timers: RoomTimers,
) -> None:
    room = FollowedRoom(CODE)
    timers.learn(room, started(2, reveal=10, end=910))
    kept = dict(room.timers)
    assert not timers.learn(room, started(2, reveal=10, end=910))
    assert room.timers == kept  # the same timers, not new ones beside the old


async def test_an_instant_moved_sets_its_timer_anew(
    clock: ManualClock, timers: RoomTimers, acts: Acts
) -> None:
    room = FollowedRoom(CODE)
    timers.learn(room, open_room(1, auto_start=30))
    timers.learn(room, open_room(2, auto_start=60))  # a racer left and another came
    assert due_at(room) == {"start": at(60)}
    clock.advance(seconds=59)
    await settle()
    assert acts.done == []
    clock.advance(seconds=1)
    await settle()
    assert acts.done == [(CODE, "start")]


# -- cancelling, and the work they start ---------------------------------------------------------


async def test_cancel_stops_every_timer_of_the_room(
    clock: ManualClock, timers: RoomTimers, acts: Acts
) -> None:
    room = FollowedRoom(CODE)
    other = FollowedRoom("ABCDE-FGH1J")
    timers.learn(room, started(2, reveal=10, end=910))
    timers.learn(other, open_room(1, auto_start=20))
    RoomTimers.cancel(room)
    assert room.timers == {}
    clock.advance(seconds=1000)
    await settle()
    assert acts.done == [("ABCDE-FGH1J", "start")]


async def test_once_the_work_is_closed_no_timer_is_set(
    clock: ManualClock, tasks: RoomTasks, timers: RoomTimers, acts: Acts
) -> None:
    await tasks.close()
    room = FollowedRoom(CODE)
    assert timers.learn(room, open_room(1, auto_start=30))
    assert room.timers == {} and room.times == open_room(1, auto_start=30)


async def test_work_spawned_after_the_close_never_runs() -> None:
    tasks = RoomTasks()
    await tasks.close()
    ran: list[str] = []

    async def work() -> None:
        ran.append("ran")

    coroutine = work()
    tasks.spawn(coroutine)
    await settle()
    # closed, not left for the collector to warn of as never awaited
    assert ran == [] and inspect.getcoroutinestate(coroutine) == inspect.CORO_CLOSED


async def test_the_close_waits_for_work_under_way() -> None:
    tasks = RoomTasks()
    finished: list[str] = []
    go_on = asyncio.Event()

    async def work() -> None:
        await go_on.wait()
        finished.append("done")

    tasks.spawn(work())
    await settle()
    closing = asyncio.create_task(tasks.close())
    await settle()
    assert not closing.done() and tasks.closed
    go_on.set()
    await closing
    assert finished == ["done"]


async def test_the_close_cuts_off_work_still_running_after_its_wait(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(room_timers, "CLOSE_WAIT", 0.0)  # the wait is over at once
    tasks = RoomTasks()
    cancelled: list[str] = []

    async def work() -> None:
        try:
            await asyncio.Event().wait()  # never set
        except asyncio.CancelledError:
            cancelled.append("cancelled")
            raise

    tasks.spawn(work())
    await settle()
    with caplog.at_level(logging.ERROR, logger=room_timers.__name__):
        await tasks.close()
    assert cancelled == ["cancelled"]
    assert caplog.records == []  # cut off at the close is no failure


async def test_work_that_fails_is_logged_and_the_rest_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    tasks = RoomTasks()
    done: list[str] = []

    async def fails() -> None:
        raise RuntimeError("the database went away")

    async def succeeds() -> None:
        done.append("done")

    with caplog.at_level(logging.ERROR, logger=room_timers.__name__):
        tasks.spawn(fails())
        tasks.spawn(succeeds())
        await tasks.close()
    assert done == ["done"]
    [record] = caplog.records
    assert record.getMessage() == "race room work failed"
    assert record.exc_info is not None and str(record.exc_info[1]) == "the database went away"


# -- what a room's times are learnt from --------------------------------------------------------


def test_times_from_the_database_and_from_another_nodes_view_agree() -> None:
    record = RaceRecord(
        code=CODE, owner_id=1, owner_name="ann", suits=1, chosen_deal=None,
        deal="SS1-S1-AAAAAAB", public=True, capacity=10, allow_bots=False, countdown=10.0,
        time_limit=900.0, state=STARTED, revision=3, created_at=T0, auto_start_at=None,
        starts_at=at(10), ends_at=at(910), finished_at=None, previous=None, next=None,
        entrants=(),
    )  # fmt: skip
    view = RoomView(
        code=CODE, state="racing", owner="ann", suits=1, public=True, capacity=10,
        allow_bots=False, countdown=10.0, time_limit=900.0, racers=[],
        starts_at=at(10).isoformat(), ends_at=at(910).isoformat(), revision=3,
    )  # fmt: skip
    assert Times.of(record) == Times.of_view(view) == started(3, reveal=10, end=910)


@pytest.mark.parametrize(
    ("shown", "state"),
    [("open", OPEN), ("countdown", STARTED), ("racing", STARTED), ("over", OVER),
     ("expired", EXPIRED)],
)  # fmt: skip
def test_a_views_state_is_read_as_the_databases(shown: RoomState, state: RaceState) -> None:
    view = RoomView(
        code=CODE, state=shown, owner="ann", suits=1, public=True, capacity=10,
        allow_bots=False, countdown=10.0, time_limit=900.0, racers=[], revision=1,
        auto_start_at=at(30).isoformat(),
    )  # fmt: skip
    assert Times.of_view(view) == Times(1, state, at(30), None, None)


def test_a_room_pushes_to_each_of_its_followers() -> None:
    got: dict[str, list[str]] = {"racer": [], "spectator": []}
    racer = got["racer"].append
    spectator = got["spectator"].append
    room = FollowedRoom(CODE)
    room.followers = {racer: Follower(racer, player_id=1), spectator: Follower(spectator)}
    room.push("frame")
    assert got == {"racer": ["frame"], "spectator": ["frame"]}
