"""Race rooms' games (:mod:`.rooms`): which room each racer's game belongs to, a racer's
game as it stands (held here or rebuilt from its log), and stopping one at the time limit."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Final

from server.play.clock import Clock
from server.play.errors import Refused
from server.play.games.live import LiveGames
from server.play.games.player_game import PlayerGame
from server.protocol import ErrorCode
from server.store import GameStore, RaceStore, StaleGame, StoreUnavailable

log = logging.getLogger(__name__)

#: Race games whose room is remembered here; past this many all are forgotten (and looked
#: up again): a bound on memory.
MOST_REMEMBERED: Final = 100_000


class RacerGames:
    """The racers' games of every room, as this node sees them."""

    def __init__(
        self, *, store: GameStore, races: RaceStore, clock: Clock, live: LiveGames
    ) -> None:
        self._store = store
        self._races = races
        self._clock = clock
        self._live = live
        #: The room of each race game seen here, and its reveal (game id -> both).
        self._rooms: dict[str, tuple[str, datetime]] = {}

    async def get(self, game_id: str) -> PlayerGame | None:
        """A racer's game as it stands: the copy held here, or rebuilt from its log."""
        game = self._live.get(game_id)
        if game is not None:
            return game
        logged = await self._store.load_game(game_id)
        return None if logged is None else PlayerGame.from_log(logged, self._store)

    async def attach(self, game: PlayerGame) -> None:
        """Mark a game taken up by id as its race's, if it is one; refuse it before its
        reveal (its id is not given out before, but its deal must stay secret till then)."""
        if game.race is not None or game.day is not None:
            return
        known = self._rooms.get(game.id)
        if known is None:
            record = await self._races.race_of_game(game.id)
            if record is None or record.starts_at is None:
                return
            known = self.remember(game.id, record.code, record.starts_at)
        code, starts_at = known
        if self._clock.now() < starts_at:
            raise Refused(ErrorCode.NOT_FOUND, "you have no game with that id")
        game.race = code

    def remember(self, game_id: str, code: str, starts_at: datetime) -> tuple[str, datetime]:
        """The room of a race game (``code``) and its reveal, kept to attach the game."""
        if len(self._rooms) >= MOST_REMEMBERED:
            self._rooms.clear()
        known = self._rooms[game_id] = (code, starts_at)
        return known

    async def stop(self, game: PlayerGame, at: datetime) -> bool:
        """Stop a racer's game at the time limit, as it stands; whether it is over now."""
        async with game.lock:
            for _ in range(2):
                if game.finished:
                    return True
                try:
                    await game.play("close", at)
                except StaleGame:  # played on, or stopped, elsewhere: the log has it
                    await self._live.refresh(game)
                except StoreUnavailable as error:
                    log.warning("could not stop game %s at its time limit: %s", game.id, error)
                    return False
            return game.finished
