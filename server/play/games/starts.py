"""Starting, resuming and letting go of player games: a daily attempt (one a day), a
practice game, or a game of the player's own by id; each held in :class:`LiveGames`.
"""

from __future__ import annotations

import secrets
import uuid
from typing import Final

from server.engine import playable_code
from server.play.clock import Clock, utc_day
from server.play.daily.deals import PROVING_RETRY, DailySchedule
from server.play.errors import DealsNotReady, Refused
from server.protocol import ErrorCode
from server.store import AttemptExists, DealtGameStore, GameLog, GameRecord, PlayerRecord

from .feed import GameFeed
from .live import LiveGames
from .player_game import PlayerGame

#: How long a daily's start waits for its deal to be known (seconds): a stored one is read
#: from the store meanwhile; one still being proven is refused ``proving`` after it.
DAILY_START_WAIT: Final = 1.0


class GameStarts:
    def __init__(
        self,
        *,
        store: DealtGameStore,
        clock: Clock,
        daily: DailySchedule,
        live: LiveGames,
        feed: GameFeed,
    ) -> None:
        self._store = store
        self._clock = clock
        self._daily = daily
        self._live = live
        self._feed = feed

    async def daily(self, player: PlayerRecord, suits: int) -> PlayerGame:
        """Today's ranked attempt: a new one, or the one already under way; refused
        ``proving`` while its deal is still being proven (the day's others may be open)."""
        now = self._clock.now()
        day = utc_day(now)
        try:
            deal = await self._daily.deal(day, suits, wait=DAILY_START_WAIT)
        except DealsNotReady:
            raise Refused(
                ErrorCode.PROVING,
                "today's %(suits)s-suit deal is still being proven: it opens by itself in a "
                "few seconds",
                params={"suits": suits},
                retry_after=PROVING_RETRY,
            ) from None
        record = await self._store.daily_attempt(player_id=player.id, day=day, suits=suits)
        if record is None:
            try:
                record = await self._store.start_game(
                    game_id=uuid.uuid4().hex,
                    player_id=player.id,
                    mode="daily",
                    code=deal.code,
                    suits=suits,
                    day=day,
                    started_at=now,
                )
            except AttemptExists as exists:  # another connection started it just now
                record = exists.game
            else:
                return self._hold_new(record)
        if record.finished_at is not None:
            raise Refused(
                ErrorCode.ALREADY_PLAYED,
                "you have played today's %(suits)s-suit deal: one ranked attempt a day",
                params={"suits": suits},
            )
        return await self.resume(player, record.id)

    async def practice(self, player: PlayerRecord, code: str | None, suits: int) -> PlayerGame:
        """A practice game of ``code`` (its own suit count), or of a random deal of ``suits``
        suits."""
        now = self._clock.now()
        if code is None:
            parsed = playable_code(suits, secrets.randbelow)
        else:
            parsed = await self._daily.practice_code(code, utc_day(now))
        record = await self._store.start_game(
            game_id=uuid.uuid4().hex,
            player_id=player.id,
            mode="practice",
            code=str(parsed),
            suits=parsed.suits,
            day=None,
            started_at=now,
        )
        return self._hold_new(record)

    def _hold_new(self, record: GameRecord) -> PlayerGame:
        """A game just started: its log is empty, and no other session can hold it yet."""
        return self._live.hold(PlayerGame.from_log(GameLog(record, []), self._store))

    async def resume(self, player: PlayerRecord, game_id: str) -> PlayerGame:
        """A game of ``player`` by id, as its action log has it, held for a session."""
        game = await self._live.open(game_id, player_id=player.id)
        if game is None:
            raise Refused(ErrorCode.NOT_FOUND, "you have no game with that id")
        return game

    def release(self, game: PlayerGame) -> None:
        """A session lets go of a game (a new game, or the connection closed)."""
        raced = game.day is not None or game.race is not None
        if self._live.release(game) and raced and not game.finished:
            self._feed.tell(game, "left")
