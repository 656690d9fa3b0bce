"""The games held by this node's sessions, each rebuilt from its action log.

A game is loaded from the database when a session first takes it up, shared by every
session of this node that holds it, and dropped when the last one lets go. Nothing is
written here: the action log has every accepted action already. A copy held here can fall
behind (the player went on through another node); opening it again checks the log's newest
seq and reloads, and an action played on a stale copy fails in the log (``StaleGame``, see
:meth:`PlayerGame.play`) and :meth:`LiveGames.refresh` brings it up to date.
"""

from __future__ import annotations

from server.store import GameStore, StoreError

from .player_game import PlayerGame


class LiveGames:
    def __init__(self, store: GameStore) -> None:
        self._store = store
        self._games: dict[str, PlayerGame] = {}
        self._holders: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._games)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._games

    def get(self, game_id: str) -> PlayerGame | None:
        return self._games.get(game_id)

    def hold(self, game: PlayerGame) -> PlayerGame:
        """Hold ``game`` for one more session (the copy already held, if any)."""
        game = self._games.setdefault(game.id, game)
        self._holders[game.id] = self._holders.get(game.id, 0) + 1
        return game

    def release(self, game: PlayerGame) -> bool:
        """One session lets go; True when it was the last and the game left this node."""
        holders = self._holders.get(game.id, 0) - 1
        if holders > 0:
            self._holders[game.id] = holders
            return False
        self._holders.pop(game.id, None)
        self._games.pop(game.id, None)
        return True

    async def open(self, game_id: str, *, player_id: int) -> PlayerGame | None:
        """The game ``game_id`` of ``player_id``, up to date with its log and held; None if
        the player has no such game."""
        game = self._games.get(game_id)
        if game is not None:
            if game.player_id != player_id:
                return None
            async with game.lock:
                if await self._store.last_seq(game_id) > game.seq:
                    await self.refresh(game)
            return self.hold(game)
        logged = await self._store.load_game(game_id)
        if logged is None or logged.game.player_id != player_id:
            return None
        return self.hold(PlayerGame.from_log(logged, self._store))

    async def caught_up(self, game: PlayerGame) -> bool:
        """Whether the log had moved past this copy (then it is reloaded): asked when the
        engine refuses an action, which may be the copy's fault rather than the player's.
        Call with the game's lock held."""
        try:
            newest = await self._store.last_seq(game.id)
        except StoreError:  # cannot tell: the engine's refusal stands
            return False
        if newest <= game.seq:
            return False
        await self.refresh(game)
        return True

    async def refresh(self, game: PlayerGame) -> None:
        """Bring a copy that the log has moved past up to date (call with its lock held)."""
        logged = await self._store.load_game(game.id)
        if logged is not None:
            game.reload(logged)
