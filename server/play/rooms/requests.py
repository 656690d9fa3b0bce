"""Race rooms' requests (:mod:`.rooms`): open a room, join one by its code or a quick
race, leave it, start it, open its rematch. Each is one transaction in the database
(server/store/races.py), then the room's new view goes to its followers."""

from __future__ import annotations

from server.play.clock import Clock, utc_day
from server.play.daily.deals import DailySchedule
from server.play.errors import Refused
from server.play.sending import Push
from server.protocol import ErrorCode, RaceNew
from server.store import CodeTaken, PlayerRecord, RaceRecord, RaceStore, RoomOptions
from server.store.races import EXPIRED, OPEN, STARTED

from .bus import RoomFanout
from .followers import RoomFollowers
from .rules import CODE_DRAWS, RoomSettings, no_free_code, normal_code, room_code
from .runs import RaceRuns
from .timers import RoomTasks
from .views import RoomViews


class RoomRequests:
    """What players ask of rooms (the ``race_*`` requests but ``race_watch``)."""

    def __init__(
        self,
        *,
        daily: DailySchedule,
        races: RaceStore,
        clock: Clock,
        settings: RoomSettings,
        tasks: RoomTasks,
        views: RoomViews,
        followers: RoomFollowers,
        fanout: RoomFanout,
        runs: RaceRuns,
    ) -> None:
        self._daily = daily
        self._races = races
        self._clock = clock
        self._settings = settings
        self._tasks = tasks
        self._views = views
        self._followers = followers
        self._fanout = fanout
        self._runs = runs

    async def create(self, player: PlayerRecord, request: RaceNew) -> RaceRecord:
        """A new room owned by ``player``, with the options ``request`` names; its ``code``:
        a practice code to race (else a fresh random deal of its ``suits`` suits)."""
        if player.bot and not request.allow_bots:
            raise Refused(
                ErrorCode.BOTS_NOT_ALLOWED,
                "a bot account's room must allow bots (allow_bots: true)",
            )
        suits: int = request.suits
        chosen = None
        if request.code is not None:
            parsed = await self._daily.practice_code(request.code, utc_day(self._clock.now()))
            chosen, suits = str(parsed), parsed.suits
        options = RoomOptions(
            suits=suits,
            chosen_deal=chosen,
            public=request.public,
            capacity=request.capacity,
            allow_bots=request.allow_bots,
            countdown=self._settings.countdown,
            time_limit=float(request.time_limit or self._settings.time_limit),
        )
        for _ in range(CODE_DRAWS):
            try:
                return await self._races.create(
                    code=room_code(),
                    owner=player,
                    options=options,
                    now=self._clock.now(),
                    most_open=self._settings.open_rooms,
                )
            except CodeTaken:
                continue
        raise no_free_code()

    async def join(self, player: PlayerRecord, code: str) -> RaceRecord:
        """``player`` in room ``code`` (again, if they are in it already)."""
        record, new = await self._races.join(
            normal_code(code),
            player=player,
            now=self._clock.now(),
            auto_wait=self._settings.quick_wait,
        )
        if new:
            await self._joined(record)
        return record

    async def _joined(self, record: RaceRecord) -> None:
        """A racer came: the room is told, and a public room counts down by itself once it
        has enough racers."""
        await self._fanout.changed(record, "joined")
        if (
            record.public
            and record.state == OPEN
            and len(record.entrants) >= self._settings.quick_racers
        ):
            self._tasks.spawn(self._runs.auto_start(record.code))

    async def quick(self, player: PlayerRecord, suits: int) -> RaceRecord:
        """``player`` in the open public room of ``suits`` suits (a new one if none): a
        declared bot in the bots' own (rooms of bots, which take bots), a person in
        people's."""
        options = RoomOptions(
            suits=suits,
            public=True,
            allow_bots=player.bot,
            countdown=self._settings.countdown,
            time_limit=self._settings.time_limit,
        )
        for _ in range(CODE_DRAWS):
            try:
                record, new = await self._races.quick(
                    player=player,
                    options=options,
                    now=self._clock.now(),
                    new_code=room_code,
                    auto_wait=self._settings.quick_wait,
                )
            except CodeTaken:
                continue
            if new:
                await self._joined(record)
            return record
        raise no_free_code()

    async def leave(self, player: PlayerRecord, code: str, push: Push) -> RaceRecord:
        """A racer out of a room before its countdown (too late once it began: resign);
        a spectator, or anyone once the race is over, stops following it."""
        code = normal_code(code)
        record = await self._views.record(code)
        racer = record.entrant(player.id) is not None
        if racer and record.state == STARTED:
            raise Refused(
                ErrorCode.RACE_STARTED, "the race has begun: you are in it (resign to give up)"
            )
        if racer and record.state == OPEN:
            record = await self._races.leave(code, player_id=player.id, now=self._clock.now())
            await self._fanout.changed(record, "expired" if record.state == EXPIRED else "left")
        await self._followers.unfollow(code, push)
        return record

    async def start(self, player: PlayerRecord, code: str) -> RaceRecord:
        """The owner begins the countdown."""
        return await self._runs.begin(normal_code(code), by=player.id)

    async def rematch(self, player: PlayerRecord, code: str) -> RaceRecord:
        """The rematch room of a race that is over, with ``player`` in it."""
        code = normal_code(code)
        for _ in range(CODE_DRAWS):
            try:
                record, opened = await self._races.rematch(
                    code,
                    player=player,
                    now=self._clock.now(),
                    new_code=room_code(),
                    auto_wait=self._settings.quick_wait,
                    most_open=self._settings.open_rooms,
                )
            except CodeTaken:
                continue
            if opened:  # tell the old room where its rematch is
                old = await self._views.record(code)
                await self._fanout.publish_view(old, "rematch")
            else:
                await self._fanout.changed(record, "joined")
            return record
        raise no_free_code()
