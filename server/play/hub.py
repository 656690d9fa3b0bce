"""The hub: what every session of a node shares, put together once.

Each part does one job; sessions and the HTTP routes call the parts by name:

- ``accounts``, ``sign_ins``, ``passkeys``: registering and knowing players, where each is
  signed in, recovery and terminal codes, passkeys (:mod:`.accounts`);
- ``starts``: starting, resuming and letting go of player games (:mod:`.games.starts`), held in
  ``live`` (:mod:`.games.live`), whose actions go to the store's action log;
- ``endings``: screening a finished game and its ``finished`` answer (:mod:`.after.endings`);
- ``feed`` and ``standings``: a game's events out to the day's live standings (or its race
  room), throttled (:mod:`.games.feed`, :mod:`.daily.standings`);
- ``queries``: read-only replies from the store's records (:mod:`.after.queries`);
- ``days``: the day ticker (:mod:`.days`);
- ``rooms``: race rooms, where friends race one fresh deal (:mod:`.rooms.rooms`, itself put
  together from parts the same way), their games' events thinned out by ``feed`` too;
- ``after``: a day's statistics, replays and reports (:mod:`.after.day`); ``reviews``: games
  reviewed against the solver (:mod:`.after.review`).

Each part is handed what it uses when it is made, so the parts are made in the order they
depend on one another (``rooms`` before the ``feed`` and the ``endings`` that tell it).
"""

from __future__ import annotations

from datetime import date, datetime

from server.bus import Bus
from server.logs import Throttle
from server.play.accounts import Accounts, Passkeys, SignIns
from server.play.after.day import AfterDay
from server.play.after.endings import GameEndings
from server.play.after.queries import Queries
from server.play.after.review import REVIEW_NICE, REVIEW_PARTS, Reviews
from server.play.clock import Clock, utc_day
from server.play.daily.deals import DailySchedule, Prover, SolverProver
from server.play.daily.standings import DailyStandings
from server.play.days import DayTicker
from server.play.fairplay.evidence import Thresholds
from server.play.fairplay.screening import Screening
from server.play.games.feed import RACE_MOVE_INTERVAL, GameFeed
from server.play.games.live import LiveGames
from server.play.games.player_game import MAX_GAME_ACTIONS
from server.play.games.starts import GameStarts
from server.play.rooms.deals import DealPicker
from server.play.rooms.rooms import Rooms, RoomSettings
from server.play.social import Friends, FriendsFeed, Leagues
from server.store import PlayStore, RaceStore
from server.store.social import SocialStore

#: At most one log line this often for requests refused ``unavailable`` (see Hub).
UNAVAILABLE_LOG_SECONDS = 10.0


class Hub:
    def __init__(
        self,
        *,
        store: PlayStore,
        bus: Bus,
        clock: Clock,
        secret: str,
        prover: Prover,
        race_interval: float = RACE_MOVE_INTERVAL,
        thresholds: Thresholds | None = None,
        room_settings: RoomSettings | None = None,
        deal_prover: Prover | None = None,
        race_store: RaceStore | None = None,
        social_store: SocialStore | None = None,
        reviewers: frozenset[str] = frozenset(),
        public_url: str = "",
        review_seconds: float = 20.0,
        review_ahead_seconds: float = 0.0,
        held_review_hours: int = 24,
        review_worker: SolverProver | None = None,
        max_game_actions: int = MAX_GAME_ACTIONS,
        fairplay_worker: SolverProver | None = None,
    ) -> None:
        """``deal_prover`` proves race rooms' fresh deals (by default ``prover``);
        ``race_store`` defaults to the rooms' queries on ``store``'s database, and
        ``social_store`` (follows and leagues) to theirs;
        ``reviewers``: the accounts (``name_key`` form) that may see held results' replays;
        ``public_url``: the server's address as players reach it (share texts);
        ``review_seconds``: the solver's CPU budget per game review, in ``review_worker``
        (by default a worker process of its own); ``review_ahead_seconds``: the CPU seconds
        a UTC day for finished dailies reviewed ahead of their asking; ``held_review_hours``:
        how long a fair-play review of a held result usually takes (what its player is told);
        ``max_game_actions``: a game's actions
        at most (a resignation is still taken then); ``fairplay_worker``: where a finished
        daily's fair-play evidence is worked out, off the event loop (None: a thread; the
        server brings a worker process)."""
        self.store = store
        self.held_review_hours = held_review_hours
        self.max_game_actions = max_game_actions
        self.clock = clock
        #: The log's lines for requests refused ``unavailable`` (a database or bus outage
        #: refuses every one of them): one per ``UNAVAILABLE_LOG_SECONDS``, with a count.
        self.unavailable_lines = Throttle(UNAVAILABLE_LOG_SECONDS, clock.monotonic)
        self.daily = DailySchedule(store, secret=secret, prover=prover)
        self.screening = Screening(
            store=store,
            daily=self.daily,
            clock=clock,
            thresholds=thresholds or Thresholds(),
            worker=fairplay_worker,
        )
        self._fairplay_worker = fairplay_worker
        self.accounts = Accounts(store, clock, bus)
        self.sign_ins = SignIns(store, self.accounts, clock)
        self.passkeys = Passkeys(store, self.accounts, clock, public_url, clock.monotonic)
        #: The server's address as players reach it (``SIMON_PUBLIC_URL``), or "".
        self.public_url = public_url
        self.standings = DailyStandings(bus, clock)
        social = social_store or SocialStore.of(store)
        self.friends = Friends(social, store, self.accounts, clock)
        self.leagues = Leagues(social, store, self.accounts, clock)
        self.friends_feed = FriendsFeed(social, bus)
        self.live = LiveGames(store)
        self.rooms = Rooms(
            store=store,
            races=race_store or RaceStore.of(store),
            bus=bus,
            clock=clock,
            live=self.live,
            daily=self.daily,
            deals=DealPicker(deal_prover or prover),
            settings=room_settings,
        )
        self.feed = GameFeed(
            self.standings, self.live, clock, race_interval, room_sink=self.rooms.announce
        )
        self.starts = GameStarts(
            store=store, clock=clock, daily=self.daily, live=self.live, feed=self.feed
        )
        self.after = AfterDay(
            store=store, clock=clock, daily=self.daily, rooms=self.rooms.races, reviewers=reviewers
        )
        self.reviews = Reviews(
            store,
            review_worker
            or SolverProver(
                review_seconds, name="game reviews", nice=REVIEW_NICE, workers=REVIEW_PARTS
            ),
            seconds=review_seconds,
            clock=clock,
            bus=bus,
            ahead_seconds=review_ahead_seconds,
            parts=REVIEW_PARTS,
            deal_of=self.daily.deal,
        )
        self.endings = GameEndings(
            store=store,
            clock=clock,
            daily=self.daily,
            screening=self.screening,
            after=self.after,
            feed=self.feed,
            race_game_ended=self.rooms.game_ended,
            daily_finished=self.friends_feed.finished,
            review_ahead=self.reviews.ahead.add,
            public_url=public_url,
        )
        self.queries = Queries(
            store=store,
            clock=clock,
            daily=self.daily,
            after=self.after,
            standings=self.standings,
            rooms=self.rooms.races,
            screening=self.screening,
        )
        self.days = DayTicker(
            store=store,
            bus=bus,
            clock=clock,
            daily=self.daily,
            screening=self.screening,
            queries=self.queries,
            live=self.live,
            endings=self.endings,
        )

    def start(self) -> None:
        self.days.start()
        self.rooms.run()

    async def close(self) -> None:
        await self.rooms.close()
        await self.days.close()
        self.feed.close()
        self.standings.close()
        await self.standings.flush()
        await self.daily.close()
        self.reviews.close()
        if self._fairplay_worker is not None:
            self._fairplay_worker.close()

    def now(self) -> datetime:
        return self.clock.now()

    def today(self) -> date:
        return utc_day(self.clock.now())
