"""Race rooms: a few players race one fresh deal head to head, across server nodes.

A room is opened by its owner (``race_new``: a few open at once per account) or by a
quick race (``race_quick``), joined by its code (``KXR4M-7M2PQ``: 50 random bits, see
:func:`room_code`) before its countdown, and started by its owner (a public room counts
down by itself: at 3 racers, or 30 s after the second came). When the countdown begins
the deal is fixed (a fresh code proven winnable) and every racer's game is created, all
starting at the reveal; at the reveal each node hands its racers their game. The race
ends when every racer has won or resigned, or at its time limit, and its results are
stored. A rematch opens a new room with the same options for whoever joins it. A room
nobody started expires, and is deleted a while later by the sweep (finished rooms stay:
their results are in players' histories).

The database is the record of every room (server/store/races/): any node rebuilds a
room from it, and every decision is a transaction that only one node can win (the
countdown begins once, the race ends once). A node keeps only who follows each room on
it, and timers for the room's next instants (its countdown, reveal and end), which every
following node sets alike and acts on idempotently; a periodic sweep on every node
catches the rooms whose instant came while no node followed them. Events cross nodes on
the bus's room channels (Redis pub/sub); a node that missed some (Redis down) catches up
from the database at its next sweep, so losing Redis ends no race.
"""

from __future__ import annotations

from server.bus import Bus
from server.play.clock import Clock
from server.play.daily.deals import DailySchedule
from server.play.games.live import LiveGames
from server.play.games.standing import room_entry
from server.store import DealtGameStore, RaceStore

from .bus import RoomFanout
from .deals import DealPicker
from .followers import RoomFollowers
from .games import RacerGames
from .requests import RoomRequests
from .rules import Follower, Reveal, RoomSettings, normal_code, room_code, room_state
from .runs import RaceRuns
from .sweep import RoomSweep
from .timers import Due, RoomTasks, RoomTimers
from .views import RoomViews


class Rooms:
    """The race rooms of this node, put together from their parts, one job each:

    - ``requests``: the ``race_*`` requests (:mod:`.requests`);
    - ``views``: a room as it stands (:mod:`.views`);
    - ``followers``: who follows which room here (:mod:`.followers`);
    - ``games``: the racers' games (:mod:`.games`);
    - ``runs``: each room's countdown, reveal and end (:mod:`.runs`);
    - ``timers`` and ``sweeper``: acting when a room's time comes (:mod:`.timers`,
      :mod:`.sweep`);
    - ``fanout``: the rooms' events across nodes on the bus (:mod:`.bus`).

    Sessions and the HTTP routes call the methods named here, which are the parts'.
    """

    def __init__(
        self,
        *,
        store: DealtGameStore,
        races: RaceStore,
        bus: Bus,
        clock: Clock,
        live: LiveGames,
        daily: DailySchedule,
        deals: DealPicker,
        settings: RoomSettings | None = None,
    ) -> None:
        self.races = races
        self.settings = settings = settings or RoomSettings()
        self.tasks = RoomTasks()
        # a timer's work is the runs', which set the timers in turn: the one loop between
        # parts, closed through this front
        self.timers = RoomTimers(clock=clock, tasks=self.tasks, act=self._act)
        self.followers = RoomFollowers(
            bus=bus, races=races, clock=clock, settings=settings, timers=self.timers
        )
        self.games = RacerGames(store=store, races=races, clock=clock, live=live)
        self.views = RoomViews(races=races, clock=clock, games=self.games)
        self.fanout = RoomFanout(
            bus=bus, clock=clock, views=self.views, followers=self.followers, timers=self.timers
        )
        self.runs = RaceRuns(
            races=races,
            clock=clock,
            deals=deals,
            games=self.games,
            views=self.views,
            followers=self.followers,
            timers=self.timers,
            fanout=self.fanout,
        )
        self.sweeper = RoomSweep(
            races=races,
            clock=clock,
            settings=settings,
            tasks=self.tasks,
            act=self.runs.act,
            followers=self.followers,
            timers=self.timers,
            views=self.views,
        )
        self.requests = RoomRequests(
            daily=daily,
            races=races,
            clock=clock,
            settings=settings,
            tasks=self.tasks,
            views=self.views,
            followers=self.followers,
            fanout=self.fanout,
            runs=self.runs,
        )
        # what sessions, routes and the hub call
        self.create = self.requests.create
        self.join = self.requests.join
        self.quick = self.requests.quick
        self.leave = self.requests.leave
        self.start = self.requests.start
        self.rematch = self.requests.rematch
        self.record = self.views.record
        self.reply = self.views.reply
        self.racing = self.views.racing
        self.may_follow = self.followers.may_follow
        self.follow = self.followers.follow
        self.follow_game = self.followers.follow_game
        self.unfollow = self.followers.unfollow
        self.forget = self.followers.forget
        self.attach = self.games.attach
        self.announce = self.fanout.announce
        self.game_ended = self.runs.game_ended
        self.sweep = self.sweeper.sweep

    async def _act(self, code: str, due: Due) -> None:
        await self.runs.act(code, due)

    @property
    def follower_count(self) -> int:
        return self.followers.count

    def run(self) -> None:
        """Sweep for rooms whose time came, now and every ``settings.sweep`` seconds."""
        self.sweeper.run()

    async def close(self) -> None:
        self.tasks.closed = True
        self.sweeper.stop()
        for room in self.followers:
            self.timers.cancel(room)
        await self.tasks.close()
        await self.fanout.flush()


__all__ = [
    "Follower",
    "Reveal",
    "RoomSettings",
    "Rooms",
    "normal_code",
    "room_code",
    "room_entry",
    "room_state",
]
