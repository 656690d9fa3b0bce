"""What a game tells those who follow it: a daily's events go to the day's standings, a race
room's game's to its room, with a player's moves thinned out so that a thousand players on
a deal do not send each of them a thousand events for every round of moves.
"""

from __future__ import annotations

from collections.abc import Callable
from math import inf
from typing import Final

from server.play.clock import Clock, Timer
from server.play.daily.standings import Announcement, DailyStandings

from .live import LiveGames
from .player_game import PlayerGame
from .standing import race_entry

#: A racer's moves reach the others at most this often (seconds).
RACE_MOVE_INTERVAL: Final = 0.5

#: Where a race room's games' events go (server/play/rooms/rooms.py), thinned out the same way.
RoomSink = Callable[[PlayerGame, Announcement], None]


class GameFeed:
    """Sends a daily game's events to its standings, a race game's to its room: "moved" at
    most once per interval per game (a trailing one carries the latest figures), every
    other event at once."""

    def __init__(
        self,
        standings: DailyStandings,
        live: LiveGames,
        clock: Clock,
        interval: float = RACE_MOVE_INTERVAL,
        room_sink: RoomSink | None = None,
    ) -> None:
        """``room_sink`` takes the events of race room games."""
        self._standings = standings
        self._live = live
        self._clock = clock
        self._interval = interval
        self._told_at: dict[str, float] = {}
        self._trailing: dict[str, Timer] = {}
        self._room_sink = room_sink

    def tell(self, game: PlayerGame, event: Announcement) -> None:
        """Tell the race of a daily game, or the room of a race game, without waiting
        (practice games have no race)."""
        if game.day is None and game.race is None:
            return
        now = self._clock.monotonic()
        if event == "moved":
            wait = self._told_at.get(game.id, -inf) + self._interval - now
            if wait > 0:
                if game.id not in self._trailing:
                    self._trailing[game.id] = self._clock.call_later(
                        wait, lambda: self._tell_trailing(game)
                    )
                return
        timer = self._trailing.pop(game.id, None)
        if timer is not None:
            timer.cancel()
        if event == "moved":
            self._told_at[game.id] = now
        elif event != "removed" and event != "joined":  # the game ended or left this node
            self._told_at.pop(game.id, None)
        if game.day is None:
            if self._room_sink is not None:
                self._room_sink(game, event)
            return
        self._standings.announce(
            game.day, game.suits, event, race_entry(game, left=event == "left")
        )

    def _tell_trailing(self, game: PlayerGame) -> None:
        self._trailing.pop(game.id, None)
        if game.finished or game.id not in self._live:
            return
        self.tell(game, "moved")

    def close(self) -> None:
        for timer in self._trailing.values():
            timer.cancel()
        self._trailing.clear()
