"""The hub: what every session of a node shares.

It holds the store, the bus, the clock, the daily schedule, the race rooms and the
games in play on this node (:class:`~server.play.live.LiveGames`), and does the work that
outlives one message: starting and resuming games, telling races, answering queries, and
announcing a new day. Accepted actions go to the store's action log from the session.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import uuid
from datetime import UTC, date, datetime, time, timedelta
from math import inf
from time import monotonic
from typing import Final

from sqlalchemy.exc import SQLAlchemyError

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
    OFF_THE_BOARD,
    AttemptExists,
    GameLog,
    LeaderboardEntry,
    NameTaken,
    PlayerRecord,
    StaleGame,
    Store,
    StoreUnavailable,
)

from .accounts import BadName, check_name, hash_token, new_token
from .clock import Clock, seconds_to_next_day, utc_day
from .daily import SUIT_CHOICES, DailySchedule, NoDailyDeal, Prover
from .errors import Refused
from .fairplay import Thresholds
from .games import PlayerGame
from .live import LiveGames
from .race import WITHDRAWN, Push, RaceRooms
from .screening import Screening

log = logging.getLogger(__name__)

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
        thresholds: Thresholds | None = None,
    ) -> None:
        self.store = store
        self.bus = bus
        self.clock = clock
        self.daily = DailySchedule(store, secret=secret, prover=prover)
        self.screening = Screening(
            store=store,
            daily=self.daily,
            prover=prover,
            clock=clock,
            thresholds=thresholds or Thresholds(),
        )
        self.races = RaceRooms(bus)
        #: Games held by a session on this node.
        self.live = LiveGames(store)
        #: Every connection, for announcements (a new day).
        self.listeners: set[Push] = set()
        self.current_day = utc_day(clock.now())
        self._ticker: asyncio.Task[None] | None = None
        self._catching_up: asyncio.Task[None] | None = None
        #: Race "moved" events: when each game last sent one, and the pending trailing ones.
        self._race_interval = race_interval
        self._raced_at: dict[str, float] = {}
        self._race_later: dict[str, asyncio.TimerHandle] = {}

    # -- life --------------------------------------------------------------------

    def start(self) -> None:
        self.daily.prepare(self.current_day)
        self._catching_up = asyncio.create_task(self._catch_up(), name="catch-up")
        self._ticker = asyncio.create_task(self._tick(), name="day-ticker")

    async def close(self) -> None:
        if self._catching_up is not None:
            await asyncio.gather(self._catching_up, return_exceptions=True)
        if self._ticker is not None:
            self._ticker.cancel()
            await asyncio.gather(self._ticker, return_exceptions=True)
        for timer in self._race_later.values():
            timer.cancel()
        await self.races.flush()
        await self.daily.close()

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
        return await self.open_game(player, record.id)

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
        return self.live.hold(PlayerGame.from_log(GameLog(record, [])))  # a log of nothing yet

    async def open_game(self, player: PlayerRecord, game_id: str) -> PlayerGame:
        """A game of ``player`` by id, as its action log has it, held for a session."""
        game = await self.live.open(game_id, player_id=player.id)
        if game is None:
            raise Refused(ErrorCode.NOT_FOUND, "you have no game with that id")
        return game

    def release(self, game: PlayerGame) -> None:
        """A session lets go of a game (a new game, or the connection closed)."""
        if self.live.release(game) and game.day is not None and not game.finished:
            self.race_event(game, "left")

    # -- after an accepted action ----------------------------------------------------

    async def screen(self, game: PlayerGame) -> None:
        """Screen a human's finished daily for fair play (off the move path: once a game);
        tell the race how it ended, or take a held result out of others' standings."""
        if game.day is None:
            return
        if not game.bot:
            try:
                await self.screening.screen(game.id)
            except (SQLAlchemyError, OSError) as error:  # held until screened again
                log.warning("screening of game %s failed: %s", game.id, error)
            except Exception:  # the game is stored: its answer must still go out
                log.exception("screening of game %s failed; it stays held until done", game.id)
        if await self.under_review(game):
            self.race_event(game, WITHDRAWN)
        else:
            assert game.result is not None
            self.race_event(game, "resigned" if game.result.resigned else "finished")

    async def under_review(self, game: PlayerGame) -> bool:
        """Whether a finished daily is off the public board for fair-play review (or its
        screening has not been done)."""
        if game.day is None or game.bot:
            return False
        try:
            screened = await self.store.screening(game.id)
        except (SQLAlchemyError, OSError):  # cannot tell just now: say held, as it may be
            return True
        return screened is None or screened.status in OFF_THE_BOARD

    async def finished_message(self, game: PlayerGame) -> Finished:
        result = game.result
        assert result is not None
        rank = par = None
        review = None
        if game.day is not None and await self.under_review(game):
            review = "held"
            par = await self.par(game)
        elif game.day is not None:
            try:
                ranked = await self.store.rank_of(
                    day=game.day,
                    suits=game.suits,
                    player_id=game.player_id,
                    around=0,
                    bots=game.bot,
                )
                rank = ranked.rank
            except (SQLAlchemyError, OSError) as error:
                # The result is stored; only its rank could not be read just now.
                log.warning("no rank for finished game %s: %s", game.id, error)
            par = await self.par(game)
        return Finished(
            game=game.id,
            code=game.code,
            mode=game.mode,
            won=result.won,
            resigned=result.resigned,
            moves=result.moves,
            score=result.score,
            removed=result.removed,
            elapsed=round(result.elapsed, 3),
            rank=rank,
            par=par,
            review=review,
        )

    async def par(self, game: PlayerGame) -> int | None:
        """The daily's par, published once its day is over."""
        if game.day is None or game.day >= self.today():
            return None
        return (await self.daily.deal(game.day, game.suits)).par

    def race_event(self, game: PlayerGame, event: str) -> None:
        """Tell the race of a daily game, without waiting; "moved" at most once per race
        interval per game (with a trailing one carrying the latest figures), every other
        event at once."""
        if game.day is None:
            return
        now = monotonic()
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
        self.races.announce(game.day, game.suits, event, race_entry(game))

    def _race_trailing(self, game: PlayerGame) -> None:
        self._race_later.pop(game.id, None)
        if game.finished or game.id not in self.live:
            return
        self.race_event(game, "moved")

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
            return [TodayDeal(suits=deal.suits) for deal in deals]
        finished = await self.store.daily_progress(player_id=player.id, day=day)
        return [
            TodayDeal(
                suits=deal.suits,
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
                found.append(DailyCode(suits=suits, code=record.code, par=record.par))
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
            suits=suits,
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
            suits=suits,
            board=board,
            player=player.name,
            rank=ranked.rank,
            total=ranked.total,
            around=[leaderboard_row(row) for row in ranked.around],
        )

    async def history(self, player: PlayerRecord, limit: int, *, own: bool = False) -> History:
        """A player's finished games; ``own``: asked by the player (who alone is told which
        results are held for review)."""
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
                    suits=record.suits,
                    mode=record.mode,
                    won=bool(record.won),
                    score=record.score or 0,
                    moves=record.moves or 0,
                    elapsed=round(record.elapsed or 0.0, 3),
                    finished_at=record.finished_at.isoformat() if record.finished_at else "",
                    rank=rank_by_game.get(record.id),
                    review="held" if own and record.held else None,
                )
                for record in found.games
            ],
        )

    async def race_standings(self, suits: int, day: date | None = None) -> RaceStandings:
        day = day or self.today()
        await self.races.flush()  # this node's own events first: a player sees their start
        return RaceStandings(
            day=day,
            suits=suits,
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
        await self.screening.catch_up()
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
        self.screening.forget_before(today - timedelta(days=1))
        self.bus.forget_races_before(today - timedelta(days=1))
        log.info("a new day: %s", today)
        return True

    async def close_unfinished_dailies(self, today: date) -> None:
        """Close the daily attempts of days before ``today`` still unfinished, as they stand
        at their day's end (a non-win: its runs removed and score rank it). Those held on
        this node are closed in place, so their sessions and race see it."""
        for game_id in await self.store.unfinished_dailies(before=today):
            game = self.live.get(game_id)
            if game is None:
                logged = await self.store.load_game(game_id)
                if logged is None:
                    continue
                game = PlayerGame.from_log(logged)
            async with game.lock:
                if game.finished or game.day is None:
                    continue
                day_end = datetime.combine(game.day + timedelta(days=1), time(0), UTC)
                before = game.seq
                game.end(now=day_end)
                try:
                    await self.live.commit(game, before, at=day_end)
                except StaleGame:  # played on, or closed, elsewhere: the log has it
                    await self.live.refresh(game)
                    continue
                except StoreUnavailable as error:  # tried again at the next new day
                    log.warning("could not close daily %s: %s", game_id, error)
                    continue
            await self.screen(game)

    async def _catch_up(self) -> None:
        """Close the days that ended while no node ran, and do the screenings a stopped node
        left undone (at start; never cancelled halfway, which would strand a connection)."""
        try:
            await self.close_unfinished_dailies(self.today())
            await self.screening.catch_up()
        except Exception:
            log.exception("catching up on closing days and fair-play screenings failed")

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


def race_entry(game: PlayerGame) -> RaceEntry:
    engine = game.engine
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
