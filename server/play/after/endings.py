"""A game's end: its fair-play screening, whether it is held off the board, and the
``finished`` answer with its rank and par.

Of the store it reads only the boards (a rank); what the screening decided comes from the
screening, a streak from what comes after the daily (:class:`~server.play.after.day.AfterDay`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from datetime import date

from server.kinds import DayBoard, suit_count
from server.play.clock import Clock, utc_day
from server.play.daily.deals import DailySchedule
from server.play.daily.standings import WITHDRAWN
from server.play.fairplay.screening import Screening
from server.play.games.feed import GameFeed
from server.play.games.player_game import PlayerGame
from server.protocol import Board, Finished, Streak
from server.store import BoardStore, StoreError

from .day import AfterDay, percentile_of, share_text

log = logging.getLogger(__name__)


class GameEndings:
    def __init__(
        self,
        *,
        store: BoardStore,
        clock: Clock,
        daily: DailySchedule,
        screening: Screening,
        after: AfterDay,
        feed: GameFeed,
        race_game_ended: Callable[[PlayerGame], Awaitable[None]] | None = None,
        daily_finished: Callable[[PlayerGame], Awaitable[None]] | None = None,
        review_ahead: Callable[[str], None] | None = None,
        public_url: str = "",
    ) -> None:
        """``race_game_ended`` is told when a race room's game ends (server/play/rooms/rooms.py);
        ``daily_finished`` is told when a daily ends on a board (not held: a friend's
        followers hear of it, server/play/social/live.py); ``review_ahead`` is given a
        human's finished daily, to be reviewed before its day is over and the review asked
        (server/play/after/review.py); ``public_url``: the server's
        public address, for the day's page in a share text
        ("": a path)."""
        self._store = store
        self._clock = clock
        self._daily = daily
        self._screening = screening
        self._after = after
        self._feed = feed
        self._race_game_ended = race_game_ended
        self._daily_finished = daily_finished
        self._review_ahead = review_ahead
        self._public_url = public_url

    async def screen(self, game: PlayerGame) -> None:
        """Screen a human's finished daily for fair play (off the move path: once a game);
        tell the race how it ended, or take a held result out of others' standings. A race
        room's game (unranked) is told to its room."""
        if game.day is None:
            if game.race is not None and game.result is not None:
                self._feed.tell(game, "resigned" if game.result.resigned else "finished")
                if self._race_game_ended is not None:
                    await self._race_game_ended(game)
            return
        if not game.bot and self._review_ahead is not None:
            self._review_ahead(game.id)
        if not game.bot:
            try:
                await self._screening.screen(game.id)
            except StoreError as error:  # held until screened again
                log.warning("screening of game %s failed: %s", game.id, error)
            except Exception:  # the game is stored: its answer must still go out
                log.exception("screening of game %s failed; it stays held until done", game.id)
        if await self.under_review(game):
            self._feed.tell(game, WITHDRAWN)
        else:
            assert game.result is not None
            self._feed.tell(game, "resigned" if game.result.resigned else "finished")
            if self._daily_finished is not None:
                await self._daily_finished(game)

    async def under_review(self, game: PlayerGame) -> bool:
        """Whether a finished daily is off the public board for fair-play review (or its
        screening has not been done)."""
        if game.day is None or game.bot:
            return False
        try:
            return await self._screening.held(game.id)
        except StoreError:  # cannot tell just now: say held, as it may be
            return True

    async def finished_message(
        self, game: PlayerGame, *, streak_upto: date | None = None
    ) -> Finished:
        """``game``'s ``finished``; ``streak_upto``: its streak (and share text) as of that
        day, for a daily told again afterwards (None: as of now)."""
        result = game.result
        assert result is not None
        rank = par = None
        total = 0
        review = None
        board: Board | None = None
        counts_from = None
        if game.day is not None:
            board, counts_from = await self.board_of(game)
        if game.day is not None and await self.under_review(game):
            review = "held"
            par = await self.par(game)
        elif game.day is not None:
            try:
                on = DayBoard(game.day, suit_count(game.suits), board or "humans")
                ranked = await self._store.rank_of(on, player_id=game.player_id, around=0)
                rank, total = ranked.rank, ranked.total
            except StoreError as error:
                # The result is stored; only its rank could not be read just now.
                log.warning("no rank for finished game %s: %s", game.id, error)
            par = await self.par(game)
        streak = share = None
        if game.day is not None:
            streak = await self.streak(game.player_id, upto=streak_upto)
            share = share_text(
                day=game.day,
                suits=game.suits,
                won=result.won,
                moves=result.moves,
                removed=result.removed,
                elapsed=result.elapsed,
                par=par,
                rank=rank,
                total=total,
                streak=streak,
                base_url=self._public_url,
                board=board or "humans",
            )
        return Finished(
            game=game.id,
            code=game.code,
            mode=game.mode,
            **dict(result),
            rank=rank,
            par=par,
            review=review,
            percentile=None if rank is None else percentile_of(rank, total),
            streak=streak,
            share=share,
            board=board,
            counts_from=counts_from,
            seq=game.seq,
        )

    async def streak(self, player_id: int, *, upto: date | None = None) -> Streak | None:
        """The player's streak of days with a finished daily, as of ``upto`` (None: today;
        and None when it cannot tell just now)."""
        try:
            return await self._after.streak(player_id, upto=upto)
        except StoreError as error:
            log.warning("no streak for player %s: %s", player_id, error)
            return None

    async def board_of(self, game: PlayerGame) -> tuple[Board, date | None]:
        """The board a finished daily is on (or goes on, once screened and not held), and
        while its player's dailies go on the new players' board, from which day they count
        on the public one."""
        if game.bot:
            return "bots", None
        try:
            newcomer, counts_from = await self._screening.placed(game.id, game.player_id)
        except StoreError as error:
            log.warning("no board for finished game %s: %s", game.id, error)
            return "humans", None
        return ("new" if newcomer else "humans"), counts_from

    async def par(self, game: PlayerGame) -> int | None:
        """The daily's par, published once its day is over."""
        if game.day is None or game.day >= utc_day(self._clock.now()):
            return None
        return (await self._daily.deal(game.day, game.suits)).par
