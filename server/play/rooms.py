"""Race rooms: a few players race one fresh deal head to head, across server nodes.

A room is opened by its owner (``race_new``: a few open at once per account) or by a
quick race (``race_quick``), joined by its code (``KXR4M-7M2PQ``: 50 random bits, see
:func:`room_code`) before its countdown, and started by its owner (a public room counts
down by itself: at 3 racers, or 30 s after the second came). When the countdown begins
the deal is fixed (a fresh code proven winnable) and every racer's game is created, all
starting at the reveal; at the reveal each node hands its racers their game. The race
ends when every racer has won or resigned, or at its time limit, and its results are
stored. A rematch opens a new room with the same options for whoever joins it. A room
nobody started expires, and is deleted a while later by the sweep (finished rooms stay:
their results are in players' histories).

The database is the record of every room (server/store/races.py): any node rebuilds a
room from it, and every decision is a transaction that only one node can win (the
countdown begins once, the race ends once). A node keeps only who follows each room on
it, and timers for the room's next instants (its countdown, reveal and end), which every
following node sets alike and acts on idempotently; a periodic sweep on every node
catches the rooms whose instant came while no node followed them. Events cross nodes on
the bus's room channels (Redis pub/sub); a node that missed some (Redis down) catches up
from the database at its next sweep, so losing Redis ends no race.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Final

from pydantic import ValidationError

from server.bus import Bus, BusError
from server.engine import GameCode, InvalidCodeError
from server.protocol import (
    ROOM_ALPHABET,
    ROOM_CODE_RULE,
    ROOM_CODE_SYMBOLS,
    ErrorCode,
    MessageId,
    RaceEventKind,
    RaceRoom,
    RaceUpdate,
    RoomEntry,
    RoomEventKind,
    RoomState,
    RoomView,
    encode,
    grouped_room_code,
    room_code_form,
)
from server.store import (
    CodeTaken,
    EntrantRecord,
    EntrantResult,
    PlayerRecord,
    PlayStore,
    RaceRecord,
    RaceRefused,
    RaceStore,
    RoomOptions,
    StaleGame,
    StoreError,
    StoreUnavailable,
)
from server.store.races import EXPIRED, OPEN, OVER, STARTED

from .clock import Clock, Timer, utc_day
from .errors import PlayError, Refused
from .games import PlayerGame
from .live import LiveGames
from .race import Push
from .room_deals import DealPicker

log = logging.getLogger(__name__)

#: A failing bus is logged at most this often (seconds).
FAILURE_LOG_INTERVAL: Final = 10.0
#: Room events waiting for a slow bus; past this many the oldest are dropped.
MOST_WAITING: Final = 10_000
#: Codes drawn before giving up on opening a room (a collision is one in millions).
CODE_DRAWS: Final = 8
#: At shutdown, work under way gets this long to finish (seconds).
CLOSE_WAIT: Final = 5.0

#: Takes up a racer's game at the reveal: called with the room's code and the game's id.
Reveal = Callable[[str, str], Awaitable[None]]


@dataclass(frozen=True)
class RoomSettings:
    """The rooms' rules, server-wide (Settings: ``SIMON_RACE_*``)."""

    countdown: float = 10.0  # seconds from the countdown's start to the reveal
    time_limit: float = 900.0  # default seconds from the reveal to the end
    quick_wait: float = 30.0  # a public room with 2 racers counts down this long after
    quick_racers: int = 3  # ... and at once with this many
    open_for: float = 3600.0  # an open room nobody starts expires after this
    sweep: float = 5.0  # how often a node looks for rooms whose time came
    open_rooms: int = 3  # rooms an account may own open at once (race_new, a rematch)
    watches: int = 4  # rooms one connection may follow at once
    expired_kept: float = 3600.0  # an expired room is deleted this long after it expired


def room_code() -> str:
    """A new room code: :data:`~server.protocol.ROOM_CODE_SYMBOLS` random symbols of
    :data:`~server.protocol.ROOM_ALPHABET` (50 bits), grouped: ``KXR4M-7M2PQ``."""
    return grouped_room_code(
        "".join(secrets.choice(ROOM_ALPHABET) for _ in range(ROOM_CODE_SYMBOLS))
    )


def normal_code(text: str) -> str:
    """A room code as typed in its one form (:func:`~server.protocol.room_code_form`);
    refuses (``no-such-race``) what is no room code."""
    code = room_code_form(text)
    if code is None:
        raise Refused(ErrorCode.NO_SUCH_RACE, f"{ROOM_CODE_RULE}: {text.strip()!r} is not")
    return code


def room_state(record: RaceRecord, now: datetime) -> RoomState:
    """Where a room stands at ``now``: a started race counts down until its reveal."""
    if record.state == STARTED:
        assert record.starts_at is not None
        return "countdown" if now < record.starts_at else "racing"
    if record.state == OPEN:
        return "open"
    return "expired" if record.state == EXPIRED else "over"


def room_entry(game: PlayerGame) -> RoomEntry:
    """A racer's line, from their game as it stands."""
    engine = game.engine
    result = game.result
    won = result is not None and result.won
    return RoomEntry(
        player=game.player_name,
        bot=game.bot,
        moves=engine.moves,
        score=engine.score,
        removed=engine.removed_count,
        won=won,
        resigned=result is not None and result.resigned,
        finished=result is not None,
        elapsed=round(result.elapsed, 3) if result is not None and won else None,
    )


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


@dataclass(eq=False)
class Follower:
    """One connection following a room: a racer of it (who gets their game at the reveal)
    or a spectator (``player_id`` None)."""

    push: Push
    player_id: int | None = None
    reveal: Reveal | None = None


_DATABASE_STATES: dict[RoomState, str] = {
    "open": OPEN,
    "countdown": STARTED,
    "racing": STARTED,
    "over": OVER,
    "expired": EXPIRED,
}


@dataclass(frozen=True)
class _Times:
    """A room's state and next instants, as this node last learnt them (from the database,
    or from a view another node sent): what its timers follow."""

    revision: int
    state: str  # as the database has it
    auto_start_at: datetime | None
    starts_at: datetime | None
    ends_at: datetime | None

    @classmethod
    def of(cls, record: RaceRecord) -> _Times:
        return cls(
            record.revision, record.state, record.auto_start_at, record.starts_at, record.ends_at
        )

    @classmethod
    def of_view(cls, view: RoomView) -> _Times:
        return cls(
            view.revision,
            _DATABASE_STATES[view.state],
            _moment(view.auto_start_at),
            _moment(view.starts_at),
            _moment(view.ends_at),
        )


def _moment(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


@dataclass(eq=False)
class _Room:
    """What this node knows of a room it has followers of."""

    code: str
    followers: dict[Push, Follower] = field(default_factory=dict)
    times: _Times | None = None
    timers: dict[str, tuple[datetime, Timer]] = field(default_factory=dict)
    revealed: bool = False


class Rooms:
    """The race rooms of this node: the ``race_*`` requests, and the rooms' timers."""

    def __init__(
        self,
        *,
        store: PlayStore,
        races: RaceStore,
        bus: Bus,
        clock: Clock,
        live: LiveGames,
        deals: DealPicker,
        settings: RoomSettings | None = None,
    ) -> None:
        self._store = store
        self.races = races
        self._bus = bus
        self._clock = clock
        self._live = live
        self._deals = deals
        self.settings = settings or RoomSettings()
        self._rooms: dict[str, _Room] = {}
        self._by_push: dict[Push, set[str]] = {}
        #: The room of each race game seen here, and its reveal (game id -> both).
        self._game_rooms: dict[str, tuple[str, datetime]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._outgoing: deque[tuple[str, str]] = deque()
        self._sender: asyncio.Task[None] | None = None
        self._sweeper: Timer | None = None
        self._closed = False
        #: Events the bus did not take (dropped), and when that was last logged.
        self.dropped = 0
        self._logged_at = -FAILURE_LOG_INTERVAL
        bus.set_room_handler(self._deliver)

    # -- life ----------------------------------------------------------------------------

    def run(self) -> None:
        """Sweep for rooms whose time came, now and every ``settings.sweep`` seconds."""
        self._spawn(self._sweep_then_again())

    async def close(self) -> None:
        self._closed = True
        if self._sweeper is not None:
            self._sweeper.cancel()
        for room in self._rooms.values():
            _cancel_timers(room)
        # let work under way finish (a query cut off halfway strands its connection)
        tasks = list(self._tasks)
        if tasks:
            _, late = await asyncio.wait(tasks, timeout=CLOSE_WAIT)
            for task in late:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        await self.flush()

    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        if self._closed:
            work.close()
            return
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._finished_task)

    def _finished_task(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("race room work failed", exc_info=task.exception())

    # -- the requests ----------------------------------------------------------------------

    async def create(
        self,
        player: PlayerRecord,
        *,
        suits: int,
        code: str | None,
        public: bool,
        capacity: int,
        allow_bots: bool,
        time_limit: float | None,
    ) -> RaceRecord:
        """A new room owned by ``player``; ``code``: a practice code to race (else a fresh
        random deal of ``suits`` suits)."""
        if player.bot and not allow_bots:
            raise Refused(
                ErrorCode.BOTS_NOT_ALLOWED,
                "a bot account's room must allow bots (allow_bots: true)",
            )
        chosen = None
        if code is not None:
            try:
                parsed = GameCode.parse(code)
            except InvalidCodeError as error:
                raise Refused(ErrorCode.BAD_CODE, str(error)) from None
            today = await self._store.get_daily_deal(
                day=utc_day(self._clock.now()), suits=parsed.suits
            )
            if today is not None and today.code == str(parsed):
                raise Refused(
                    ErrorCode.DAILY_NOT_OVER,
                    "that is today's daily deal: it opens for practice when the day is over",
                )
            chosen, suits = str(parsed), parsed.suits
        options = RoomOptions(
            suits=suits,
            chosen_deal=chosen,
            public=public,
            capacity=capacity,
            allow_bots=allow_bots,
            countdown=self.settings.countdown,
            time_limit=float(time_limit or self.settings.time_limit),
        )
        for _ in range(CODE_DRAWS):
            try:
                return await self.races.create(
                    code=room_code(),
                    owner=player,
                    options=options,
                    now=self._clock.now(),
                    most_open=self.settings.open_rooms,
                )
            except CodeTaken:
                continue
        raise Refused(ErrorCode.UNAVAILABLE, "no free room code was found: try again")

    async def join(self, player: PlayerRecord, code: str) -> RaceRecord:
        """``player`` in room ``code`` (again, if they are in it already)."""
        record, new = await self.races.join(
            normal_code(code),
            player=player,
            now=self._clock.now(),
            auto_wait=self.settings.quick_wait,
        )
        if new:
            await self._changed(record, "joined")
            self._maybe_start(record)
        return record

    def _maybe_start(self, record: RaceRecord) -> None:
        """A public room counts down by itself once it has enough racers."""
        if (
            record.public
            and record.state == OPEN
            and len(record.entrants) >= self.settings.quick_racers
        ):
            self._spawn(self._auto_start(record.code))

    async def quick(self, player: PlayerRecord, suits: int) -> RaceRecord:
        """``player`` in the open public room of ``suits`` suits (a new one if none)."""
        if player.bot:
            raise Refused(ErrorCode.BOTS_NOT_ALLOWED, "quick races are for people")
        options = RoomOptions(
            suits=suits,
            public=True,
            countdown=self.settings.countdown,
            time_limit=self.settings.time_limit,
        )
        for _ in range(CODE_DRAWS):
            try:
                record, new = await self.races.quick(
                    player=player,
                    options=options,
                    now=self._clock.now(),
                    new_code=room_code,
                    auto_wait=self.settings.quick_wait,
                )
            except CodeTaken:
                continue
            if new:
                await self._changed(record, "joined")
                self._maybe_start(record)
            return record
        raise Refused(ErrorCode.UNAVAILABLE, "no free room code was found: try again")

    async def leave(self, player: PlayerRecord, code: str, push: Push) -> RaceRecord:
        """A racer out of a room before its countdown (too late once it began: resign);
        a spectator, or anyone once the race is over, stops following it."""
        code = normal_code(code)
        record = await self.record(code)
        racer = record.entrant(player.id) is not None
        if racer and record.state == STARTED:
            raise Refused(
                ErrorCode.RACE_STARTED, "the race has begun: you are in it (resign to give up)"
            )
        if racer and record.state == OPEN:
            record = await self.races.leave(code, player_id=player.id, now=self._clock.now())
            await self._changed(record, "expired" if record.state == EXPIRED else "left")
        await self.unfollow(code, push)
        return record

    async def start(self, player: PlayerRecord, code: str) -> RaceRecord:
        """The owner begins the countdown."""
        return await self._begin(normal_code(code), by=player.id)

    async def rematch(self, player: PlayerRecord, code: str) -> RaceRecord:
        """The rematch room of a race that is over, with ``player`` in it."""
        code = normal_code(code)
        for _ in range(CODE_DRAWS):
            try:
                record, opened = await self.races.rematch(
                    code,
                    player=player,
                    now=self._clock.now(),
                    new_code=room_code(),
                    auto_wait=self.settings.quick_wait,
                    most_open=self.settings.open_rooms,
                )
            except CodeTaken:
                continue
            if opened:  # tell the old room where its rematch is
                old = await self.record(code)
                await self._publish_view(old, "rematch")
            else:
                await self._changed(record, "joined")
            return record
        raise Refused(ErrorCode.UNAVAILABLE, "no free room code was found: try again")

    async def record(self, code: str) -> RaceRecord:
        record = await self.races.get(normal_code(code))
        if record is None:
            raise Refused(ErrorCode.NO_SUCH_RACE, f"no race room has the code {code.upper()}")
        return record

    async def reply(
        self,
        message_id: MessageId | None,
        record: RaceRecord,
        event: RoomEventKind | None = None,
        *,
        fresh: bool = False,
    ) -> RaceRoom:
        return RaceRoom(id=message_id, event=event, room=await self.view(record, fresh=fresh))

    def racing(self, record: RaceRecord) -> bool:
        """Whether the race runs now (revealed and not over)."""
        return room_state(record, self._clock.now()) == "racing"

    # -- views ------------------------------------------------------------------------------

    async def view(self, record: RaceRecord, *, fresh: bool = False) -> RoomView:
        """The room as it stands; ``fresh``: just revealed, so nobody has moved yet."""
        now = self._clock.now()
        state = room_state(record, now)
        racers = await self._entries(record, "countdown" if fresh else state)
        starts_in = None
        if state == "countdown" and record.starts_at is not None:
            starts_in = round(max(0.0, (record.starts_at - now).total_seconds()), 3)
        return RoomView(
            code=record.code,
            state=state,
            owner=record.owner_name,
            suits=record.suits,
            public=record.public,
            capacity=record.capacity,
            allow_bots=record.allow_bots,
            countdown=record.countdown,
            time_limit=record.time_limit,
            racers=racers,
            starts_at=_iso(record.starts_at),
            starts_in=starts_in,
            ends_at=_iso(record.ends_at),
            auto_start_at=_iso(record.auto_start_at),
            deal=record.deal if state in ("racing", "over") else None,
            # a private rematch is joined by its code, which only its racers are given (by
            # race_rematch): a room's page or a spectator must not hand it to anyone
            next=record.next if record.public else None,
            previous=record.previous,
            revision=record.revision,
        )

    async def _entries(self, record: RaceRecord, state: RoomState) -> list[RoomEntry]:
        entries = []
        for entrant in record.entrants:
            if state == "over":
                entries.append(_result_entry(entrant))
                continue
            game = None
            if state == "racing" and entrant.game_id is not None:
                game = await self._game(entrant.game_id)
            entries.append(
                room_entry(game)
                if game is not None
                else RoomEntry(player=entrant.name, bot=entrant.bot)
            )
        entries.sort(key=RoomEntry.standing)
        return entries

    async def _game(self, game_id: str) -> PlayerGame | None:
        """A racer's game as it stands: the copy held here, or rebuilt from its log."""
        game = self._live.get(game_id)
        if game is not None:
            return game
        logged = await self._store.load_game(game_id)
        return None if logged is None else PlayerGame.from_log(logged)

    # -- followers ------------------------------------------------------------------------

    def may_follow(self, push: Push, code: str | None = None) -> None:
        """Refuse (``too-many-rooms``) a connection following one room more (``code``, or a
        room yet to be opened) than ``settings.watches``, changing nothing: asked before a
        request does its work."""
        following = self._by_push.get(push, ())
        if code in following or len(following) < self.settings.watches:
            return
        raise Refused(
            ErrorCode.TOO_MANY_ROOMS,
            f"a connection follows at most {self.settings.watches} rooms at once: leave one "
            "(race_leave) first",
        )

    async def follow(self, code: str, follower: Follower, record: RaceRecord | None = None) -> None:
        """``follower`` gets the room's events (and, as a racer, their game at the reveal);
        ``record``: the room as just read, if it was."""
        room = self._rooms.get(code)
        if room is None:
            room = self._rooms[code] = _Room(code)
            await self._bus.join_room(code)
            record = record or await self.races.get(code)
            starts_at = None if record is None else record.starts_at
            # revealed before this node followed it: its racers take their games up by asking
            room.revealed = starts_at is not None and starts_at <= self._clock.now()
        room.followers[follower.push] = follower
        self._by_push.setdefault(follower.push, set()).add(code)
        if record is not None:
            self._learn(room, _Times.of(record))

    async def follow_game(self, game: PlayerGame, push: Push) -> None:
        """A connection took up a race game: it follows the game's room, as its racer."""
        if game.race is None:
            return
        room = self._rooms.get(game.race)
        if room is not None and push in room.followers:
            return
        await self.follow(game.race, Follower(push=push, player_id=game.player_id))

    async def unfollow(self, code: str, push: Push) -> None:
        codes = self._by_push.get(push)
        if codes is not None:
            codes.discard(code)
            if not codes:
                del self._by_push[push]
        room = self._rooms.get(code)
        if room is None:
            return
        room.followers.pop(push, None)
        if not room.followers:
            _cancel_timers(room)
            del self._rooms[code]
            await self._bus.leave_room(code)

    async def forget(self, push: Push) -> None:
        """A connection closed: it follows nothing any more (its racer stays in the race)."""
        for code in list(self._by_push.get(push, ())):
            await self.unfollow(code, push)

    @property
    def follower_count(self) -> int:
        return sum(len(room.followers) for room in self._rooms.values())

    # -- a racer's game ------------------------------------------------------------------

    async def attach(self, game: PlayerGame) -> None:
        """Mark a game taken up by id as its race's, if it is one; refuse it before its
        reveal (its id is not given out before, but its deal must stay secret till then)."""
        if game.race is not None or game.day is not None:
            return
        known = self._game_rooms.get(game.id)
        if known is None:
            record = await self.races.race_of_game(game.id)
            if record is None or record.starts_at is None:
                return
            known = self.remember_game(game.id, record.code, record.starts_at)
        code, starts_at = known
        if self._clock.now() < starts_at:
            raise Refused(ErrorCode.NOT_FOUND, "you have no game with that id")
        game.race = code

    def remember_game(self, game_id: str, code: str, starts_at: datetime) -> tuple[str, datetime]:
        if len(self._game_rooms) >= 100_000:  # a bound on memory: forget and look up again
            self._game_rooms.clear()
        known = self._game_rooms[game_id] = (code, starts_at)
        return known

    def announce(self, game: PlayerGame, event: RaceEventKind | str) -> None:
        """A racer's game changed: tell the room soon, after what was told before (the race
        feed calls this, with moves thinned out); never blocks."""
        if game.race is None or event not in _UPDATES:
            return
        frame = encode(
            RaceUpdate(
                code=game.race,
                event=event,
                entry=room_entry(game),
            )
        )
        self._send(game.race, frame)

    async def game_ended(self, game: PlayerGame) -> None:
        """A racer won or resigned: when every racer is done, the race ends."""
        if game.race is None:
            return
        try:
            if await self.races.unfinished(game.race) == 0:
                await self.end(game.race)
        except StoreError as error:  # the sweep ends it later
            log.warning("ending race %s failed: %s", game.race, error)

    # -- the countdown, the reveal, the end ----------------------------------------------

    async def _begin(self, code: str, *, by: int | None) -> RaceRecord:
        """Begin the countdown: ``by`` the owner, or the room by itself (None)."""
        record = await self.record(code)
        if record.state != OPEN:
            raise Refused(ErrorCode.RACE_STARTED, "the race has started already")
        if by is not None and record.entrant(by) is None:
            raise Refused(ErrorCode.NOT_IN_RACE, "you are not in that room")
        if by is not None and record.owner_id != by:
            raise Refused(ErrorCode.NOT_RACE_OWNER, "only the room's owner starts the race")
        if len(record.entrants) < 2:
            raise Refused(ErrorCode.NOT_ENOUGH_RACERS, "a race needs at least 2 racers")
        deal = record.chosen_deal
        if deal is None:
            deal = await self._deals.fresh(record.suits)  # NoFreshDeal: refused "no-deal"
        record = await self.races.start(code, by=by, deal=deal, now=self._clock.now())
        assert record.starts_at is not None
        for entrant in record.entrants:
            if entrant.game_id is not None:
                self.remember_game(entrant.game_id, code, record.starts_at)
        await self._changed(record, "countdown")
        return record

    async def _auto_start(self, code: str) -> None:
        """A public room's countdown begins by itself (if it still may)."""
        try:
            await self._begin(code, by=None)
        except (Refused, RaceRefused) as refusal:  # it may no longer: fine
            log.debug("room %s did not start by itself: %s", code, refusal)
        except (StoreError, PlayError) as error:  # the sweep tries again
            log.warning("room %s could not start by itself: %s", code, error)

    async def _reveal(self, code: str) -> None:
        """The countdown is over: this node's racers get their game, followers the room."""
        room = self._rooms.get(code)
        if room is None or room.revealed:
            return
        room.revealed = True
        record = await self.races.get(code)
        if record is None:
            return
        self._learn(room, _Times.of(record))
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
        self._push_local(room, encode(await self.reply(None, record, "started", fresh=True)))

    async def end(self, code: str) -> None:
        """End a race that is due (every racer done, or its time limit passed): games still
        going are stopped as they stand, the results are stored (once, by whichever node
        gets there first) and announced."""
        record = await self.races.get(code)
        if record is None or record.state != STARTED:
            return
        assert record.ends_at is not None
        now = self._clock.now()
        timed_out = now >= record.ends_at
        if not timed_out and await self.races.unfinished(code) > 0:
            return
        # the games' results as the database has them (a copy held here may be behind)
        stored = await self.races.results(code)
        for entrant in record.entrants:
            if entrant.game_id is None or stored.get(entrant.player_id) is not None:
                continue
            game = await self._game(entrant.game_id)
            # not done after all: tried again at the next sweep
            if game is None or not timed_out or not await self._stop(game, record.ends_at):
                return
        if any(result is None for result in stored.values()):
            stored = await self.races.results(code)
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
            results.append((entrant, line, result.elapsed))
        results.sort(key=lambda pair: pair[1].standing())
        finished = await self.races.finish(
            code,
            now=min(now, record.ends_at),
            results=[
                EntrantResult(
                    player_id=entrant.player_id,
                    place=place,
                    won=line.won,
                    resigned=line.resigned,
                    moves=line.moves,
                    score=line.score,
                    removed=line.removed,
                    elapsed=round(elapsed, 3),
                )
                for place, (entrant, line, elapsed) in enumerate(results, start=1)
            ],
        )
        if finished is not None:
            await self._publish_view(finished, "over")

    async def _stop(self, game: PlayerGame, at: datetime) -> bool:
        """Stop a racer's game at the time limit, as it stands; whether it is over now."""
        async with game.lock:
            for _ in range(2):
                if game.finished:
                    return True
                before = game.seq
                game.end(now=at)
                try:
                    await self._live.commit(game, before, at=at)
                except StaleGame:  # played on, or stopped, elsewhere: the log has it
                    await self._live.refresh(game)
                except StoreUnavailable as error:
                    log.warning("could not stop game %s at its time limit: %s", game.id, error)
                    return False
            return game.finished

    async def _expire(self, code: str) -> None:
        record = await self.races.expire(code, now=self._clock.now())
        if record is not None:
            await self._publish_view(record, "expired")

    # -- timers and the sweep --------------------------------------------------------------

    def _learn(self, room: _Room, times: _Times) -> bool:
        """Take the room's newest state and instants, and set the timers by them; whether
        they were news."""
        known = room.times
        if known is not None and times.revision < known.revision:
            return False
        room.times = times
        self._schedule(room)
        return known is None or times.revision > known.revision

    def _schedule(self, room: _Room) -> None:
        """Set this node's timers for the room's next instants (as every follower node does)."""
        times = room.times
        if times is None or self._closed:
            return
        wanted: dict[str, datetime] = {}
        if times.state == OPEN and times.auto_start_at is not None:
            wanted["start"] = times.auto_start_at
        elif times.state == STARTED and times.starts_at is not None and times.ends_at is not None:
            if not room.revealed:
                wanted["reveal"] = times.starts_at
            wanted["end"] = times.ends_at
        for name in list(room.timers):
            if wanted.get(name) != room.timers[name][0]:
                room.timers.pop(name)[1].cancel()
        now = self._clock.now()
        for name, at in wanted.items():
            if name in room.timers:
                continue
            delay = max(0.0, (at - now).total_seconds())
            room.timers[name] = (at, self._clock.call_later(delay, self._timer(room, name)))

    def _timer(self, room: _Room, name: str) -> Callable[[], None]:
        code = room.code
        action: Callable[[str], Coroutine[Any, Any, None]] = {
            "start": self._auto_start,
            "reveal": self._reveal,
            "end": self.end,
        }[name]

        def fire() -> None:
            room.timers.pop(name, None)
            self._spawn(action(code))

        return fire

    async def _sweep_then_again(self) -> None:
        try:
            await self.sweep()
        finally:
            if not self._closed:
                self._sweeper = self._clock.call_later(
                    self.settings.sweep, lambda: self._spawn(self._sweep_then_again())
                )

    async def sweep(self) -> None:
        """Act on the rooms whose time came (whether or not a node follows them), and bring
        this node's rooms up to date with the database (events lost with Redis)."""
        try:
            due = await self.races.due(now=self._clock.now(), open_for=self.settings.open_for)
            for item in due:
                if item.what == "start":
                    await self._auto_start(item.code)
                elif item.what == "end":
                    await self.end(item.code)
                else:
                    await self._expire(item.code)
            await self._catch_up()
            now = self._clock.now()
            await self.races.delete_expired(
                before=now - timedelta(seconds=self.settings.expired_kept)
            )
        except (StoreError, BusError) as error:
            log.warning("race room sweep failed: %s", error)

    async def _catch_up(self) -> None:
        records = await self.races.get_many(list(self._rooms))
        for code, record in records.items():
            room = self._rooms.get(code)
            if room is not None and self._learn(room, _Times.of(record)):
                # events were lost on the way (Redis down): the room as it stands now
                self._push_local(room, encode(await self.reply(None, record)))

    # -- events in and out ---------------------------------------------------------------

    async def _changed(self, record: RaceRecord, event: RoomEventKind) -> None:
        """A room changed here: every node's followers get its view; this node's timers
        follow it at once."""
        room = self._rooms.get(record.code)
        if room is not None:
            self._learn(room, _Times.of(record))
        await self._publish_view(record, event)

    async def _publish_view(self, record: RaceRecord, event: RoomEventKind) -> None:
        self._send(record.code, encode(await self.reply(None, record, event)))

    def _send(self, code: str, frame: str) -> None:
        if len(self._outgoing) >= MOST_WAITING:
            self._outgoing.popleft()
            self.dropped += 1
        self._outgoing.append((code, frame))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._send_all())

    async def flush(self) -> None:
        """Wait until every event went to the bus (or was dropped)."""
        while self._sender is not None and not self._sender.done():
            await asyncio.shield(self._sender)

    async def _send_all(self) -> None:
        while self._outgoing:
            code, frame = self._outgoing.popleft()
            try:
                await self._bus.publish_room(code, frame)
            except BusError as error:
                self.dropped += 1
                now = self._clock.monotonic()
                if now - self._logged_at >= FAILURE_LOG_INTERVAL:
                    self._logged_at = now
                    log.warning("race room events dropped (%d so far): %s", self.dropped, error)

    def _deliver(self, code: str, frame: str) -> None:
        """An event of a room from the bus: to this node's followers; a new view of the
        room also sets this node's timers."""
        room = self._rooms.get(code)
        if room is None:
            return
        if frame.startswith('{"type":"race_room"'):
            try:
                view = RaceRoom.model_validate_json(frame).room
            except ValidationError:
                log.warning("dropped a malformed race room frame")
                return
            self._learn(room, _Times.of_view(view))  # before the racers hear of it
        self._push_local(room, frame)

    def _push_local(self, room: _Room, frame: str) -> None:
        for push in tuple(room.followers):
            push(frame)


_UPDATES = frozenset({"joined", "moved", "removed", "finished", "resigned", "left"})


def _cancel_timers(room: _Room) -> None:
    for _, timer in room.timers.values():
        timer.cancel()
    room.timers.clear()


def _result_entry(entrant: EntrantRecord) -> RoomEntry:
    won = bool(entrant.won)
    return RoomEntry(
        player=entrant.name,
        bot=entrant.bot,
        moves=entrant.moves or 0,
        score=entrant.score if entrant.score is not None else 500,
        removed=entrant.removed or 0,
        won=won,
        resigned=bool(entrant.resigned),
        finished=entrant.place is not None,
        elapsed=round(entrant.elapsed, 3) if won and entrant.elapsed is not None else None,
        place=entrant.place,
    )


__all__ = [
    "Follower",
    "Reveal",
    "RoomSettings",
    "Rooms",
    "normal_code",
    "room_code",
    "room_entry",
    "room_state",
]
