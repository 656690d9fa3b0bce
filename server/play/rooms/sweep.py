"""Race rooms' sweep (:mod:`.rooms`): every few seconds each node acts on the rooms whose
time came while no node followed them, brings its followed rooms up to date with the
database (events lost with Redis), and deletes rooms long expired."""

from __future__ import annotations

import logging
from datetime import timedelta

from server.bus import BusError
from server.play.clock import Clock, Timer
from server.protocol import encode
from server.store import RaceStore, StoreError

from .followers import RoomFollowers
from .rules import RoomSettings
from .timers import Act, RoomTasks, RoomTimers, Times
from .views import RoomViews

log = logging.getLogger(__name__)


class RoomSweep:
    """The periodic sweep over every room, whether or not a node follows it."""

    def __init__(
        self,
        *,
        races: RaceStore,
        clock: Clock,
        settings: RoomSettings,
        tasks: RoomTasks,
        act: Act,
        followers: RoomFollowers,
        timers: RoomTimers,
        views: RoomViews,
    ) -> None:
        self._races = races
        self._clock = clock
        self._settings = settings
        self._tasks = tasks
        self._act = act
        self._followers = followers
        self._timers = timers
        self._views = views
        self._next: Timer | None = None

    def run(self) -> None:
        """Sweep now and every ``settings.sweep`` seconds."""
        self._tasks.spawn(self._sweep_then_again())

    def stop(self) -> None:
        if self._next is not None:
            self._next.cancel()

    async def _sweep_then_again(self) -> None:
        try:
            await self.sweep()
        finally:
            if not self._tasks.closed:
                self._next = self._clock.call_later(
                    self._settings.sweep, lambda: self._tasks.spawn(self._sweep_then_again())
                )

    async def sweep(self) -> None:
        """Act on the rooms whose time came (whether or not a node follows them), and bring
        this node's rooms up to date with the database (events lost with Redis)."""
        try:
            due = await self._races.due(now=self._clock.now(), open_for=self._settings.open_for)
            for item in due:
                await self._act(item.code, item.what)
            await self._catch_up()
            now = self._clock.now()
            await self._races.delete_expired(
                before=now - timedelta(seconds=self._settings.expired_kept)
            )
        except (StoreError, BusError) as error:
            log.warning("race room sweep failed: %s", error)

    async def _catch_up(self) -> None:
        records = await self._races.get_many(list(self._followers.codes))
        for code, record in records.items():
            room = self._followers.get(code)
            if room is not None and self._timers.learn(room, Times.of(record)):
                # events were lost on the way (Redis down): the room as it stands now
                room.push(encode(await self._views.reply(None, record)))
