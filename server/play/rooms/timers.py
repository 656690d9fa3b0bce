"""Race rooms' timers (:mod:`.rooms`): each node following a room sets timers for the
room's next instants (its countdown, reveal and end) as it last learnt them, and acts on
them idempotently; the work they start runs as the rooms' background tasks."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Literal

from server.play.clock import Clock, Timer
from server.play.sending import Push
from server.protocol import RoomState, RoomView
from server.store import RaceRecord
from server.store.races import EXPIRED, OPEN, OVER, STARTED, RaceState

from .rules import Follower

log = logging.getLogger(__name__)

#: At shutdown, work under way gets this long to finish (seconds).
CLOSE_WAIT: Final = 5.0

#: What comes due for a room: a public room's countdown begins, the deal is revealed, the
#: race ends, an open room nobody started expires.
Due = Literal["start", "reveal", "end", "expire"]
#: Acts on what came due for a room (its code).
Act = Callable[[str, Due], Coroutine[Any, Any, None]]


class RoomTasks:
    """The rooms' background work: started while the node runs, waited for at its close."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()
        self.closed = False

    def spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        if self.closed:
            work.close()
            return
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("race room work failed", exc_info=task.exception())

    async def close(self) -> None:
        """Start nothing more, and let work under way finish (a query cut off halfway
        strands its connection)."""
        self.closed = True
        tasks = list(self._tasks)
        if tasks:
            _, late = await asyncio.wait(tasks, timeout=CLOSE_WAIT)
            for task in late:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


_DATABASE_STATES: Final[dict[RoomState, RaceState]] = {
    "open": OPEN,
    "countdown": STARTED,
    "racing": STARTED,
    "over": OVER,
    "expired": EXPIRED,
}


@dataclass(frozen=True)
class Times:
    """A room's state and next instants, as this node last learnt them (from the database,
    or from a view another node sent): what its timers follow."""

    revision: int
    state: RaceState  # as the database has it
    auto_start_at: datetime | None
    starts_at: datetime | None
    ends_at: datetime | None

    @classmethod
    def of(cls, record: RaceRecord) -> Times:
        return cls(
            record.revision, record.state, record.auto_start_at, record.starts_at, record.ends_at
        )

    @classmethod
    def of_view(cls, view: RoomView) -> Times:
        return cls(
            view.revision,
            _DATABASE_STATES[view.state],
            _moment(view.auto_start_at),
            _moment(view.starts_at),
            _moment(view.ends_at),
        )


def _moment(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


@dataclass(eq=False)
class FollowedRoom:
    """What this node knows of a room it has followers of."""

    code: str
    followers: dict[Push, Follower] = field(default_factory=dict)
    times: Times | None = None
    timers: dict[Due, tuple[datetime, Timer]] = field(default_factory=dict)
    revealed: bool = False

    def push(self, frame: str) -> None:
        """To this node's followers of the room."""
        for push in tuple(self.followers):
            push(frame)


class RoomTimers:
    """Sets each followed room's timers by its newest instants; ``act`` does what came due."""

    def __init__(self, *, clock: Clock, tasks: RoomTasks, act: Act) -> None:
        self._clock = clock
        self._tasks = tasks
        self._act = act

    def learn(self, room: FollowedRoom, times: Times) -> bool:
        """Take the room's newest state and instants, and set the timers by them; whether
        they were news."""
        known = room.times
        if known is not None and times.revision < known.revision:
            return False
        room.times = times
        self._schedule(room)
        return known is None or times.revision > known.revision

    def _schedule(self, room: FollowedRoom) -> None:
        """Set this node's timers for the room's next instants (as every follower node does)."""
        times = room.times
        if times is None or self._tasks.closed:
            return
        wanted: dict[Due, datetime] = {}
        if times.state == OPEN and times.auto_start_at is not None:
            wanted["start"] = times.auto_start_at
        elif times.state == STARTED and times.starts_at is not None and times.ends_at is not None:
            if not room.revealed:
                wanted["reveal"] = times.starts_at
            wanted["end"] = times.ends_at
        for name in list(room.timers):
            if wanted.get(name) != room.timers[name][0]:
                room.timers.pop(name)[1].cancel()
        now = self._clock.now()
        for name, at in wanted.items():
            if name in room.timers:
                continue
            delay = max(0.0, (at - now).total_seconds())
            room.timers[name] = (at, self._clock.call_later(delay, self._timer(room, name)))

    def _timer(self, room: FollowedRoom, name: Due) -> Callable[[], None]:
        def fire() -> None:
            room.timers.pop(name, None)
            self._tasks.spawn(self._act(room.code, name))

        return fire

    @staticmethod
    def cancel(room: FollowedRoom) -> None:
        for _, timer in room.timers.values():
            timer.cancel()
        room.timers.clear()
