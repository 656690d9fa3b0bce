"""Telling players online that someone they follow, or a member of a league of theirs,
finished today's daily: one frame through the bus to every node, naming its recipients
(linear in them: no loop per friend, no polling), which each node hands to those of them
connected to it. No score: the recipient's own daily may not be done.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from server.bus import Bus
from server.play.games.player_game import PlayerGame
from server.play.sending import Push
from server.protocol import FriendFinished, encode
from server.store.social import SocialStore

log = logging.getLogger(__name__)


class FriendsFeed:
    def __init__(self, store: SocialStore, bus: Bus) -> None:
        self._store = store
        self._bus = bus
        #: This node's connections by the account signed in on them.
        self._online: dict[int, set[Push]] = {}
        #: Finishes being told (kept until done).
        self._telling: set[asyncio.Task[None]] = set()
        bus.set_players_handler(self._deliver)

    def online(self, player_id: int, push: Push) -> None:
        self._online.setdefault(player_id, set()).add(push)

    def offline(self, player_id: int, push: Push) -> None:
        pushes = self._online.get(player_id)
        if pushes is not None:
            pushes.discard(push)
            if not pushes:
                del self._online[player_id]

    async def finished(self, game: PlayerGame) -> None:
        """``game``, a daily, finished on a board (not held): tell the finisher's followers
        and league-mates who are online, wherever they are, beside the game's end (its
        reply does not wait for the lookups and the bus)."""
        if game.day is None:
            return
        task = asyncio.get_running_loop().create_task(self._tell(game))
        self._telling.add(task)
        task.add_done_callback(self._telling.discard)

    async def _tell(self, game: PlayerGame) -> None:
        assert game.day is not None
        try:
            recipients = set(await self._store.follower_ids(game.player_id))
            recipients.update(await self._store.league_mate_ids(game.player_id, suits=game.suits))
            if recipients:
                frame = encode(
                    FriendFinished(name=game.player_name, day=game.day, suits=game.suits)
                )
                await self._bus.publish_to_players(sorted(recipients), frame)
        except Exception as error:  # a nicety: the game's end goes on without it
            log.warning("could not tell the friends of game %s: %s", game.id, error)

    def _deliver(self, player_ids: Sequence[int], frame: str) -> None:
        online = self._online
        for player_id in player_ids:
            for push in online.get(player_id, ()):
                push(frame)
