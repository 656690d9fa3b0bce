"""A race room's run (:mod:`.rooms`): its countdown begins (the deal fixed, every racer's
game created), the deal is revealed to the racers, the race ends (games still going
stopped at the time limit, the results stored and announced), or an open room expires.
Every step is a transaction only one node wins; each node acts on the same instants and
the losers change nothing."""

from __future__ import annotations

import logging

from server.play.clock import Clock
from server.play.errors import PlayError, Refused
from server.play.games.player_game import PlayerGame
from server.protocol import RoomEntry, encode
from server.store import EntrantResult, RaceRecord, RaceRefused, RaceStore, StoreError
from server.store.races import STARTED

from .bus import RoomFanout
from .deals import DealPicker
from .followers import RoomFollowers
from .games import RacerGames
from .timers import Due, RoomTimers, Times
from .views import RoomViews

log = logging.getLogger(__name__)


class RaceRuns:
    """Each room's countdown, reveal and end, and its expiry if nobody started it."""

    def __init__(
        self,
        *,
        races: RaceStore,
        clock: Clock,
        deals: DealPicker,
        games: RacerGames,
        views: RoomViews,
        followers: RoomFollowers,
        timers: RoomTimers,
        fanout: RoomFanout,
    ) -> None:
        self._races = races
        self._clock = clock
        self._deals = deals
        self._games = games
        self._views = views
        self._followers = followers
        self._timers = timers
        self._fanout = fanout

    async def act(self, code: str, due: Due) -> None:
        """Do what came due for room ``code`` (by a timer here, or found by the sweep)."""
        if due == "start":
            await self.auto_start(code)
        elif due == "reveal":
            await self.reveal(code)
        elif due == "end":
            await self.end(code)
        else:
            await self.expire(code)

    async def begin(self, code: str, *, by: int | None) -> RaceRecord:
        """Begin the countdown: ``by`` the owner, or the room by itself (None)."""
        record = await self._views.record(code)
        record.may_start(by)  # before a deal is proven for a room that would refuse it
        deal = record.chosen_deal
        if deal is None:
            deal = await self._deals.fresh(record.suits)  # NoFreshDeal: refused "no-deal"
        record = await self._races.start(code, by=by, deal=deal, now=self._clock.now())
        assert record.starts_at is not None
        for entrant in record.entrants:
            if entrant.game_id is not None:
                self._games.remember(entrant.game_id, code, record.starts_at)
        await self._fanout.changed(record, "countdown")
        return record

    async def auto_start(self, code: str) -> None:
        """A public room's countdown begins by itself (if it still may)."""
        try:
            await self.begin(code, by=None)
        except (Refused, RaceRefused) as refusal:  # it may no longer: fine
            log.debug("room %s did not start by itself: %s", code, refusal)
        except (StoreError, PlayError) as error:  # the sweep tries again
            log.warning("room %s could not start by itself: %s", code, error)

    async def reveal(self, code: str) -> None:
        """The countdown is over: this node's racers get their game, followers the room."""
        room = self._followers.get(code)
        if room is None or room.revealed:
            return
        room.revealed = True
        record = await self._races.get(code)
        if record is None:
            return
        self._timers.learn(room, Times.of(record))
        for follower in list(room.followers.values()):
            if follower.player_id is None or follower.reveal is None:
                continue
            entrant = record.entrant(follower.player_id)
            if entrant is None or entrant.game_id is None:
                continue
            try:
                await follower.reveal(code, entrant.game_id)
            except Exception:  # one racer's trouble must not keep the others waiting
                log.exception("revealing room %s to player %s failed", code, follower.player_id)
        room.push(encode(await self._views.reply(None, record, "started", fresh=True)))

    async def game_ended(self, game: PlayerGame) -> None:
        """A racer won or resigned: when every racer is done, the race ends."""
        if game.race is None:
            return
        try:
            if await self._races.unfinished(game.race) == 0:
                await self.end(game.race)
        except StoreError as error:  # the sweep ends it later
            log.warning("ending race %s failed: %s", game.race, error)

    async def end(self, code: str) -> None:
        """End a race that is due (every racer done, or its time limit passed): games still
        going are stopped as they stand, the results are stored (once, by whichever node
        gets there first) and announced."""
        record = await self._races.get(code)
        if record is None or record.state != STARTED:
            return
        assert record.ends_at is not None
        now = self._clock.now()
        timed_out = now >= record.ends_at
        if not timed_out and await self._races.unfinished(code) > 0:
            return
        # the games' results as the database has them (a copy held here may be behind)
        stored = await self._races.results(code)
        for entrant in record.entrants:
            if entrant.game_id is None or stored.get(entrant.player_id) is not None:
                continue
            game = await self._games.get(entrant.game_id)
            # not done after all: tried again at the next sweep
            if game is None or not timed_out or not await self._games.stop(game, record.ends_at):
                return
        if any(result is None for result in stored.values()):
            stored = await self._races.results(code)
        results = []
        for entrant in record.entrants:
            result = stored.get(entrant.player_id)
            if entrant.game_id is None:
                continue
            if result is None:
                return
            line = RoomEntry(
                player=entrant.name,
                bot=entrant.bot,
                moves=result.moves,
                score=result.score,
                removed=result.removed,
                won=result.won,
                resigned=result.resigned,
                finished=True,
                elapsed=round(result.elapsed, 3) if result.won else None,
            )
            results.append((entrant, line, result))
        results.sort(key=lambda racer: racer[1].standing())
        finished = await self._races.finish(
            code,
            now=min(now, record.ends_at),
            results=[
                EntrantResult(
                    player_id=entrant.player_id,
                    place=place,
                    result=result.figures().model_copy(
                        update={"elapsed": round(result.elapsed, 3)}
                    ),
                )
                for place, (entrant, _, result) in enumerate(results, start=1)
            ],
        )
        if finished is not None:
            await self._fanout.publish_view(finished, "over")

    async def expire(self, code: str) -> None:
        record = await self._races.expire(code, now=self._clock.now())
        if record is not None:
            await self._fanout.publish_view(record, "expired")
