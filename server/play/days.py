"""The day ticker: prepares tomorrow's deals ahead, and when a UTC day ends closes the
day's unfinished attempts, finishes fair-play screenings and tells every connection; tells
them too when one of today's deals still being proven becomes ready.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import date, timedelta
from typing import Final

from server.bus import Bus
from server.play.after.endings import GameEndings
from server.play.after.queries import DAILY_WAIT, Queries
from server.play.clock import Clock, seconds_to_next_day, utc_day
from server.play.daily.deals import DailySchedule
from server.play.errors import SolverStopped
from server.play.fairplay.screening import Screening
from server.play.games.live import LiveGames
from server.play.games.player_game import PlayerGame
from server.play.sending import Push
from server.protocol import DailyChanged, encode
from server.store import GameStore, StaleGame, StoreUnavailable

log = logging.getLogger(__name__)

#: Tomorrow's deals are proven this long before midnight (by one node: see daily.py), so
#: they are stored well before anyone asks.
PREPARE_AHEAD: Final = timedelta(hours=3)
#: The day ticker looks at the clock at least this often.
TICK_SECONDS: Final = 30.0


class DayTicker:
    def __init__(
        self,
        *,
        store: GameStore,
        bus: Bus,
        clock: Clock,
        daily: DailySchedule,
        screening: Screening,
        queries: Queries,
        live: LiveGames,
        endings: GameEndings,
    ) -> None:
        self._store = store
        self._bus = bus
        self._clock = clock
        self._daily = daily
        self._screening = screening
        self._queries = queries
        self._live = live
        self._endings = endings
        #: Every connection, for the new day's announcement.
        self._listeners: set[Push] = set()
        self.current_day = utc_day(clock.now())
        self._ticker: asyncio.Task[None] | None = None
        self._catching_up: asyncio.Task[None] | None = None
        #: Announcements of today's deals becoming ready, under way.
        self._announcing: set[asyncio.Task[None]] = set()
        #: The day whose ``daily_changed`` went out (a deal of a day not announced yet is
        #: told by that day's announcement, not on its own).
        self._told_day = self.current_day
        daily.on_ready = self._deal_ready

    def listen(self, push: Push) -> None:
        self._listeners.add(push)

    def stop_listening(self, push: Push) -> None:
        self._listeners.discard(push)

    @property
    def listener_count(self) -> int:
        return len(self._listeners)

    def start(self) -> None:
        self._daily.prepare(self.current_day)
        self._catching_up = asyncio.create_task(self._catch_up(), name="catch-up")
        self._ticker = asyncio.create_task(self._tick(), name="day-ticker")

    async def close(self) -> None:
        if self._catching_up is not None:
            await asyncio.gather(self._catching_up, return_exceptions=True)
        if self._ticker is not None:
            self._ticker.cancel()
            await asyncio.gather(self._ticker, return_exceptions=True)
        for task in tuple(self._announcing):
            task.cancel()
        await asyncio.gather(*self._announcing, return_exceptions=True)

    def _deal_ready(self, day: date, suits: int) -> None:
        """One of today's deals is known now: every connection is told (tomorrow's, proven
        ahead, are told at midnight)."""
        if day != self._told_day or not self._listeners:
            return
        task = asyncio.create_task(self._announce(day), name=f"daily-ready-{day}-S{suits}")
        self._announcing.add(task)
        task.add_done_callback(self._announcing.discard)

    async def _announce(self, day: date) -> None:
        """``daily_changed`` of the same day: each deal's ``ready`` says which are."""
        try:
            frame = encode(
                DailyChanged(
                    day=day,
                    deals=await self._queries.today_deals(day, None, wait=0),
                    yesterday=await self._queries.past_deals(day - timedelta(days=1)),
                )
            )
        except Exception:
            log.exception("telling that a daily deal of %s is ready failed", day)
            return
        if day == self._told_day:
            for push in tuple(self._listeners):
                push(frame)

    async def check_day(self) -> bool:
        """Announce a new UTC day if one started (the ticker calls this; tests may too)."""
        today = utc_day(self._clock.now())
        if today <= self.current_day:
            return False
        self.current_day = today
        self._daily.prepare(today)  # proven ahead, as a rule: if not, from now
        await self.close_unfinished_dailies(today)
        await self._screening.catch_up()
        await self._screening.queue_leaders_of(today - timedelta(days=1))
        yesterday = await self._queries.past_deals(today - timedelta(days=1))
        # the deals last: from the moment they are read, any that becomes ready is told
        deals = await self._queries.today_deals(today, None, wait=DAILY_WAIT)
        self._told_day = today
        frame = encode(DailyChanged(day=today, deals=deals, yesterday=yesterday))
        for push in tuple(self._listeners):
            push(frame)
        self._daily.forget_before(today - timedelta(days=1))
        self._bus.forget_standings_before(today - timedelta(days=1))
        log.info("a new day: %s", today)
        return True

    async def close_unfinished_dailies(self, today: date) -> None:
        """Close the daily attempts of days before ``today`` still unfinished, as they stand
        at their day's end (a non-win: its runs removed and score rank it). Those held on
        this node are closed in place, so their sessions and race see it. (An action on one
        after its day's end closes it first: see :meth:`close_daily`.)"""
        for game_id in await self._store.unfinished_dailies(before=today):
            game = self._live.get(game_id)
            if game is None:
                logged = await self._store.load_game(game_id)
                if logged is None:
                    continue
                game = PlayerGame.from_log(logged, self._store)
            async with game.lock:
                try:
                    closed = await self.close_daily(game)
                except StoreUnavailable as error:  # tried again at the next new day
                    log.warning("could not close daily %s: %s", game_id, error)
                    continue
            if closed:
                await self._endings.screen(game)

    async def close_daily(self, game: PlayerGame) -> bool:
        """Close a daily whose day is over as it stood at the day's end, unless it is over
        already (here, or by the log: another node may have closed it); whether this call
        closed it. Call with the game's lock held; :class:`StoreUnavailable` changes nothing."""
        for _ in range(2):
            if game.finished or game.ends_at is None:
                return False
            try:
                await game.play("close", game.ends_at)
            except StaleGame:  # played on, or closed, elsewhere: the log has it
                await self._live.refresh(game)
                continue
            return True
        return False

    async def _catch_up(self) -> None:
        """Close the days that ended while no node ran, and do the screenings a stopped node
        left undone (at start; never cancelled halfway, which would strand a connection)."""
        try:
            await self.close_unfinished_dailies(utc_day(self._clock.now()))
            await self._screening.catch_up()
        except Exception:
            log.exception("catching up on closing days and fair-play screenings failed")

    async def tick(self) -> None:
        """One look at the clock: start proving tomorrow's deals once midnight is near, and
        announce a new day once it has begun (the ticker calls this; tests may too)."""
        now = self._clock.now()
        if seconds_to_next_day(now) <= PREPARE_AHEAD.total_seconds():
            self._daily.prepare(utc_day(now) + timedelta(days=1))
        await self.check_day()

    async def _tick(self) -> None:
        while True:
            try:
                await self.tick()
            except SolverStopped:
                return  # the node is stopping: its solvers go first, then this ticker
            except Exception:
                log.exception("the day ticker failed")
            wait = min(seconds_to_next_day(self._clock.now()) + 0.05, TICK_SECONDS)
            await self._clock.sleep(wait)
