"""The hub: what every session of a node shares.

It holds the store, the bus, the clock, the daily schedule, the race rooms and the
games in play on this node, and does the work that outlives one message: starting and
resuming games, saving snapshots and checkpoints, finishing games, answering queries,
and announcing a new day.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
import uuid
from datetime import date, datetime, timedelta
from math import inf
from typing import Final

from server.bus import Bus
from server.engine import GameCode, InvalidCodeError
from server.engine.codes import DEALS_PER_SUIT_COUNT
from server.protocol import (
    Board,
    DailyChanged,
    DailyCode,
    DailyInfo,
    ErrorCode,
    Finished,
    History,
    HistoryGame,
    LeaderboardPage,
    LeaderboardRow,
    PlayerStats,
    RaceEntry,
    RaceStandings,
    RankInfo,
    TodayDeal,
    encode,
)
from server.store import (
    AlreadyFinished,
    AttemptExists,
    GameRecord,
    LeaderboardEntry,
    NameTaken,
    PlayerRecord,
    Store,
    StoreError,
)

from .accounts import BadName, check_name, hash_token, new_token
from .clock import Clock, seconds_to_next_day, utc_day
from .daily import SUIT_CHOICES, DailySchedule, NoDailyDeal, Prover
from .errors import Refused
from .games import PlayerGame, Result, replay, snapshot_seq
from .race import Push, RaceRooms

log = logging.getLogger(__name__)

#: An unfinished game's actions go to the store when a session lets go of it, and while it
#: is played every this many actions, but not more often than every CHECKPOINT_GAP seconds
#: (a write costs about 1 ms of CPU; the bus holds every action, the store's copy is the
#: fallback should a node die).
CHECKPOINT_EVERY: Final = 20
CHECKPOINT_GAP: Final = 60.0
CHECKPOINT_WRITERS: Final = 2
#: Tomorrow's deals are prepared this long before midnight.
PREPARE_AHEAD: Final = timedelta(minutes=15)
#: How long a ``daily`` request (or the new day's announcement) waits for deals still
#: being searched for; those not found by then are left out.
DAILY_WAIT: Final = 5.0
#: The day ticker looks at the clock at least this often.
TICK_SECONDS: Final = 30.0
#: A racer's moves reach the others at most this often (seconds): a race of a thousand
#: players would otherwise send each of them a thousand events for every round of moves.
RACE_MOVE_INTERVAL: Final = 0.5


class Hub:
    def __init__(
        self,
        *,
        store: Store,
        bus: Bus,
        clock: Clock,
        secret: str,
        prover: Prover,
        race_interval: float = RACE_MOVE_INTERVAL,
    ) -> None:
        self.store = store
        self.bus = bus
        self.clock = clock
        self.daily = DailySchedule(store, secret=secret, prover=prover)
        self.races = RaceRooms(bus)
        #: Games held by a session on this node, by id; with how many sessions hold each.
        self.live: dict[str, PlayerGame] = {}
        self._holders: dict[str, int] = {}
        #: Every connection, for announcements (a new day).
        self.listeners: set[Push] = set()
        self.current_day = utc_day(clock.now())
        self._ticker: asyncio.Task[None] | None = None
        #: Checkpoints being written, by game id (at most one per game).
        self._saving: dict[str, asyncio.Task[None]] = {}
        #: Background checkpoints write a few at a time: a burst of them (games started
        #: together) waits here rather than in the database's lock queue.
        self._writers = asyncio.Semaphore(CHECKPOINT_WRITERS)
        #: Race "moved" events: when each game last sent one, and the pending trailing ones.
        self._race_interval = race_interval
        self._raced_at: dict[str, float] = {}
        self._race_later: dict[str, asyncio.TimerHandle] = {}
        self._race_tasks: set[asyncio.Task[None]] = set()

    # -- life --------------------------------------------------------------------

    def start(self) -> None:
        self.daily.prepare(self.current_day)
        self._ticker = asyncio.create_task(self._tick(), name="day-ticker")

    async def close(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            await asyncio.gather(self._ticker, return_exceptions=True)
        for timer in self._race_later.values():
            timer.cancel()
        await asyncio.gather(*self._race_tasks, return_exceptions=True)
        await self.daily.close()
        await asyncio.gather(*self._saving.values(), return_exceptions=True)
        for game in list(self.live.values()):
            await self._checkpoint(game)

    def now(self) -> datetime:
        return self.clock.now()

    def today(self) -> date:
        return utc_day(self.clock.now())

    # -- accounts ----------------------------------------------------------------

    async def register(self, name: str, *, bot: bool = False) -> tuple[PlayerRecord, str]:
        try:
            name = check_name(name)
        except BadName as error:
            raise Refused(ErrorCode.BAD_NAME, str(error)) from None
        token = new_token()
        try:
            player = await self.store.create_player(
                name=name, token_hash=hash_token(token), now=self.now(), bot=bot
            )
        except NameTaken:
            raise Refused(ErrorCode.NAME_TAKEN, f"the name {name!r} is taken") from None
        return player, token

    async def authenticate(self, token: str) -> PlayerRecord:
        player = await self.store.player_by_token_hash(hash_token(token))
        if player is None:
            raise Refused(ErrorCode.BAD_TOKEN, "no account has that token")
        return player

    # -- starting and resuming games -----------------------------------------------

    async def start_daily(self, player: PlayerRecord, suits: int) -> PlayerGame:
        """Today's ranked attempt: a new one, or the one already under way."""
        day = self.today()
        try:
            deal = await self.daily.deal(day, suits)
        except NoDailyDeal:
            raise Refused(ErrorCode.NO_DAILY, "today's deal is not available") from None
        record = await self.store.daily_attempt(player_id=player.id, day=day, suits=suits)
        if record is None:
            try:
                record = await self.store.start_game(
                    game_id=uuid.uuid4().hex,
                    player_id=player.id,
                    mode="daily",
                    code=deal.code,
                    suits=suits,
                    day=day,
                    started_at=self.now(),
                )
            except AttemptExists as exists:  # another connection started it just now
                record = exists.game
        if record.finished_at is not None:
            raise Refused(
                ErrorCode.ALREADY_PLAYED,
                f"you have played today's {suits}-suit deal: one ranked attempt a day",
            )
        return await self.open_game(player, record.id, record=record)

    async def start_practice(
        self, player: PlayerRecord, code: str | None, suits: int
    ) -> PlayerGame:
        if code is None:
            parsed = GameCode(suits, secrets.randbelow(DEALS_PER_SUIT_COUNT))
        else:
            try:
                parsed = GameCode.parse(code)
            except InvalidCodeError as error:
                raise Refused(ErrorCode.BAD_CODE, str(error)) from None
            # Practising today's daily first would make its one ranked attempt a second try.
            today = await self.store.get_daily_deal(day=self.today(), suits=parsed.suits)
            if today is not None and today.code == str(parsed):
                raise Refused(
                    ErrorCode.DAILY_NOT_OVER,
                    "that is today's daily deal: play it ranked (mode daily); "
                    "it opens for practice when the day is over",
                )
        record = await self.store.start_game(
            game_id=uuid.uuid4().hex,
            player_id=player.id,
            mode="practice",
            code=str(parsed),
            suits=parsed.suits,
            day=None,
            started_at=self.now(),
        )
        return self._hold(game_from_record(record))

    async def open_game(
        self, player: PlayerRecord, game_id: str, *, record: GameRecord | None = None
    ) -> PlayerGame:
        """A game of ``player`` by id: held on this node, else from the bus, else the store."""
        game = self.live.get(game_id)
        if game is None:
            data = await self.bus.load_snapshot(game_id)
            if data is not None:
                try:
                    game = PlayerGame.from_snapshot(data)
                except ValueError as error:
                    log.warning("unreadable snapshot of game %s: %s", game_id, error)
            if game is None:
                record = record or await self.store.get_game(game_id)
                if record is not None:
                    game = game_from_record(record)
        if game is None or game.player_id != player.id:
            raise Refused(ErrorCode.NOT_FOUND, "you have no game with that id")
        game.bot = player.bot  # a snapshot does not carry it; the account's flag is permanent
        return self._hold(game)

    def _hold(self, game: PlayerGame) -> PlayerGame:
        game = self.live.setdefault(game.id, game)
        self._holders[game.id] = self._holders.get(game.id, 0) + 1
        return game

    async def release(self, game: PlayerGame) -> None:
        """A session lets go of a game (a new game, or the connection closed)."""
        holders = self._holders.get(game.id, 0) - 1
        if holders > 0:
            self._holders[game.id] = holders
            return
        self._holders.pop(game.id, None)
        self.live.pop(game.id, None)
        if not self.bus.shared:
            await self.bus.save_snapshot(game.id, game.snapshot())
        elif await self._moved_on(game):
            return  # the player took it up on another node: this copy is out of date
        await self._saved(game)
        try:
            await self._checkpoint(game)
        except StoreError as error:  # e.g. finished meanwhile through another node
            log.warning("no checkpoint of game %s on leaving: %s", game.id, error)
        if game.day is not None and not game.finished:
            await self._race(game, "left")

    async def _moved_on(self, game: PlayerGame) -> bool:
        """Whether the bus holds a later state of ``game`` than this node."""
        data = await self.bus.load_snapshot(game.id)
        return data is not None and snapshot_seq(data) > game.seq

    # -- after every accepted action ---------------------------------------------

    def quiet(self, game: PlayerGame) -> bool:
        """True when an accepted action of ``game`` needs no work of :meth:`accepted`
        (a practice game on a private bus between checkpoints): the common case, kept cheap."""
        return game.day is None and not self.bus.shared and len(game.actions) < game.checkpoint_at

    async def accepted(self, game: PlayerGame, event: str) -> None:
        """Snapshot to the bus, checkpoint now and then, tell the race."""
        if self.bus.shared:
            await self.bus.save_snapshot(game.id, game.snapshot())
        if len(game.actions) >= game.checkpoint_at:
            self._checkpoint_soon(game)
        if game.day is not None:
            await self._race(game, event)

    async def finish(self, game: PlayerGame, *, resigned: bool) -> Finished:
        """End a game: the result to the store, the snapshot to the bus, the race told."""
        result = game.finish(resigned=resigned, now=self.now())
        await self._saved(game)
        try:
            await self.store.finish_game(
                game_id=game.id,
                actions=list(game.actions),
                won=result.won,
                resigned=result.resigned,
                moves=result.moves,
                score=result.score,
                removed=result.removed,
                elapsed=result.elapsed,
                finished_at=result.finished_at,
            )
        except AlreadyFinished:  # finished on another node first: that result stands
            record = await self.store.get_game(game.id)
            if record is not None:
                game.result = result_of(record)
        game.saved_actions = len(game.actions)
        if self.bus.shared:
            await self.bus.save_snapshot(game.id, game.snapshot())
        if game.day is not None:
            await self._race(game, "resigned" if resigned else "finished")
        return await self.finished_message(game)

    async def finished_message(self, game: PlayerGame) -> Finished:
        result = game.result
        assert result is not None
        rank = par = None
        if game.day is not None:
            ranked = await self.store.rank_of(
                day=game.day, suits=game.suits, player_id=game.player_id, around=0, bots=game.bot
            )
            rank = ranked.rank
            par = await self.par(game)
        return Finished(
            game=game.id,
            code=game.code,
            mode=game.mode,  # type: ignore[arg-type]
            won=result.won,
            resigned=result.resigned,
            moves=result.moves,
            score=result.score,
            removed=result.removed,
            elapsed=round(result.elapsed, 3),
            rank=rank,
            par=par,
        )

    async def par(self, game: PlayerGame) -> int | None:
        """The daily's par, published once its day is over."""
        if game.day is None or game.day >= self.today():
            return None
        return (await self.daily.deal(game.day, game.suits)).par

    def _checkpoint_soon(self, game: PlayerGame) -> None:
        """Write the actions to the store in the background, if it is time to."""
        game.checkpoint_at = len(game.actions) + CHECKPOINT_EVERY
        now = self.now().timestamp()
        if now - game.saved_at < CHECKPOINT_GAP or game.id in self._saving:
            return
        game.saved_at = now
        task = asyncio.create_task(self._checkpoint_later(game))
        self._saving[game.id] = task
        task.add_done_callback(lambda _: self._saving.pop(game.id, None))
        task.add_done_callback(_log_checkpoint_failure)

    async def _saved(self, game: PlayerGame) -> None:
        """Wait for a checkpoint of ``game`` being written, if any."""
        task = self._saving.get(game.id)
        if task is not None:
            await asyncio.gather(task, return_exceptions=True)

    async def _checkpoint_later(self, game: PlayerGame) -> None:
        async with self._writers:
            await self._checkpoint(game)

    async def _checkpoint(self, game: PlayerGame) -> None:
        if game.finished or len(game.actions) == game.saved_actions:
            return
        actions = list(game.actions)
        await self.store.save_actions(game_id=game.id, actions=actions)
        game.saved_actions = max(game.saved_actions, len(actions))

    async def _race(self, game: PlayerGame, event: str) -> None:
        """Tell the race; "moved" at most once per race interval per game (with a trailing
        one carrying the latest figures), every other event at once."""
        assert game.day is not None
        now = time.monotonic()
        if event == "moved":
            wait = self._raced_at.get(game.id, -inf) + self._race_interval - now
            if wait > 0:
                if game.id not in self._race_later:
                    loop = asyncio.get_running_loop()
                    self._race_later[game.id] = loop.call_later(wait, self._race_trailing, game)
                return
        timer = self._race_later.pop(game.id, None)
        if timer is not None:
            timer.cancel()
        if event == "moved":
            self._raced_at[game.id] = now
        elif event != "removed" and event != "joined":  # the game ended or left this node
            self._raced_at.pop(game.id, None)
        await self.races.publish(game.day, game.suits, event, race_entry(game))

    def _race_trailing(self, game: PlayerGame) -> None:
        self._race_later.pop(game.id, None)
        if game.finished or game.id not in self.live:
            return
        task = asyncio.create_task(self._race(game, "moved"))
        self._race_tasks.add(task)
        task.add_done_callback(self._race_tasks.discard)

    # -- queries -------------------------------------------------------------------

    async def daily_info(self, player: PlayerRecord | None = None) -> DailyInfo:
        """Today's deals without their codes (``start`` reveals a deal), with ``player``'s
        progress on each; yesterday's codes and par."""
        now = self.now()
        day = utc_day(now)
        return DailyInfo(
            day=day,
            deals=await self._today_deals(day, player),
            yesterday=await self._past_deals(day - timedelta(days=1)),
            seconds_left=round(seconds_to_next_day(now), 3),
        )

    async def _today_deals(self, day: date, player: PlayerRecord | None) -> list[TodayDeal]:
        deals = await self.daily.deals(day, wait=DAILY_WAIT)
        if player is None:
            return [TodayDeal(suits=deal.suits) for deal in deals]  # type: ignore[arg-type]
        finished = await self.store.daily_progress(player_id=player.id, day=day)
        return [
            TodayDeal(
                suits=deal.suits,  # type: ignore[arg-type]
                started=deal.suits in finished,
                finished=finished.get(deal.suits, False),
            )
            for deal in deals
        ]

    async def _past_deals(self, day: date) -> list[DailyCode]:
        """A day's deals with their codes and par: public once the day is over."""
        found = []
        for suits in SUIT_CHOICES:
            record = await self.store.get_daily_deal(day=day, suits=suits)
            if record is not None:
                found.append(DailyCode(suits=suits, code=record.code, par=record.par))  # type: ignore[arg-type]
        return found

    async def leaderboard(
        self, *, day: date | None, suits: int, limit: int, after: str | None, board: Board
    ) -> LeaderboardPage:
        day = day or self.today()
        try:
            page = await self.store.leaderboard_page(
                day=day, suits=suits, limit=limit, after=after, bots=board == "bots"
            )
        except ValueError:
            raise Refused(ErrorCode.BAD_CURSOR, "that cursor is not one this server gave") from None
        return LeaderboardPage(
            day=day,
            suits=suits,  # type: ignore[arg-type]
            board=board,
            rows=[leaderboard_row(row) for row in page.rows],
            next=page.next,
            total=page.total,
        )

    async def player(self, name: str) -> PlayerRecord:
        player = await self.store.player_by_name(name)
        if player is None:
            raise Refused(ErrorCode.NOT_FOUND, f"no player is called {name!r}")
        return player

    async def rank(
        self, *, day: date | None, suits: int, player: PlayerRecord, around: int, board: Board
    ) -> RankInfo:
        day = day or self.today()
        ranked = await self.store.rank_of(
            day=day, suits=suits, player_id=player.id, around=around, bots=board == "bots"
        )
        return RankInfo(
            day=day,
            suits=suits,  # type: ignore[arg-type]
            board=board,
            player=player.name,
            rank=ranked.rank,
            total=ranked.total,
            around=[leaderboard_row(row) for row in ranked.around],
        )

    async def history(self, player: PlayerRecord, limit: int) -> History:
        found = await self.store.history(player_id=player.id, limit=limit)
        dailies = [record for record in found.games if record.day is not None]
        ranks = await asyncio.gather(
            *(
                self.store.rank_of(
                    day=game.day, suits=game.suits, player_id=player.id, around=0, bots=game.bot
                )
                for game in dailies
                if game.day is not None  # for the type checker: dailies all have a day
            )
        )
        rank_by_game = {game.id: ranked.rank for game, ranked in zip(dailies, ranks, strict=True)}
        today = self.today()
        return History(
            player=player.name,
            stats=PlayerStats(
                games=found.games_total,
                won=found.won,
                best_score={str(suits): score for suits, score in found.best_score.items()},
            ),
            games=[
                HistoryGame(
                    day=record.day,
                    # today's deal stays secret until the day is over, even once played
                    code=None if record.day is not None and record.day >= today else record.code,
                    suits=record.suits,  # type: ignore[arg-type]
                    mode=record.mode,  # type: ignore[arg-type]
                    won=bool(record.won),
                    score=record.score or 0,
                    moves=record.moves or 0,
                    elapsed=round(record.elapsed or 0.0, 3),
                    finished_at=record.finished_at.isoformat() if record.finished_at else "",
                    rank=rank_by_game.get(record.id),
                )
                for record in found.games
            ],
        )

    async def race_standings(self, suits: int, day: date | None = None) -> RaceStandings:
        day = day or self.today()
        return RaceStandings(
            day=day,
            suits=suits,  # type: ignore[arg-type]
            players=await self.races.standings(day, suits),
        )

    # -- a new day -----------------------------------------------------------------

    async def check_day(self) -> bool:
        """Announce a new UTC day if one started (the ticker calls this; tests may too)."""
        today = self.today()
        if today <= self.current_day:
            return False
        self.current_day = today
        await self.close_unfinished_dailies(today)
        frame = encode(
            DailyChanged(
                day=today,
                deals=await self._today_deals(today, None),
                yesterday=await self._past_deals(today - timedelta(days=1)),
            )
        )
        for push in tuple(self.listeners):
            push(frame)
        self.daily.forget_before(today - timedelta(days=1))
        self.bus.forget_races_before(today - timedelta(days=1))
        log.info("a new day: %s", today)
        return True

    async def close_unfinished_dailies(self, today: date) -> None:
        """Close the daily attempts of days before ``today`` still unfinished, as they stand:
        first those held on this node (their race is told), then the rest in the store."""
        for game in [g for g in self.live.values() if g.day is not None and g.day < today]:
            if not game.finished:
                await self.finish(game, resigned=False)
        await self.store.close_unfinished_dailies(before=today, now=self.now(), replay=replay)

    async def _tick(self) -> None:
        while True:
            left = seconds_to_next_day(self.now())
            if left <= PREPARE_AHEAD.total_seconds():
                self.daily.prepare(self.today() + timedelta(days=1))
            await asyncio.sleep(min(left + 0.05, TICK_SECONDS))
            try:
                await self.check_day()
            except Exception:
                log.exception("announcing the new day failed")


def _log_checkpoint_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("a checkpoint failed", exc_info=task.exception())


def game_from_record(record: GameRecord) -> PlayerGame:
    game = PlayerGame(
        id=record.id,
        player_id=record.player_id,
        player_name=record.player_name,
        mode=record.mode,
        code=record.code,
        day=record.day,
        bot=record.bot,
        started_at=record.started_at,
        game=replay(record.code, record.actions),
        actions=list(record.actions),
        seq=len(record.actions),
    )
    if record.finished_at is not None:
        game.result = result_of(record)
        game.seq += 1
    return game


def result_of(record: GameRecord) -> Result:
    assert record.finished_at is not None
    return Result(
        won=bool(record.won),
        resigned=bool(record.resigned),
        moves=record.moves or 0,
        score=record.score or 0,
        removed=record.removed or 0,
        elapsed=record.elapsed or 0.0,
        finished_at=record.finished_at,
    )


def race_entry(game: PlayerGame) -> RaceEntry:
    engine = game.game
    result = game.result
    return RaceEntry(
        player=game.player_name,
        moves=engine.moves,
        score=engine.score,
        removed=engine.removed_count,
        finished=result is not None,
        won=engine.is_won,
        resigned=result is not None and result.resigned,
        bot=game.bot,
    )


def leaderboard_row(entry: LeaderboardEntry) -> LeaderboardRow:
    return LeaderboardRow(
        rank=entry.rank,
        player=entry.player,
        score=entry.score,
        moves=entry.moves,
        elapsed=round(entry.elapsed, 3),
        finished_at=entry.finished_at.isoformat(),
        won=entry.won,
        removed=entry.removed,
        bot=entry.bot,
    )
