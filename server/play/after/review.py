"""A finished game reviewed against the solver: along the path the game took, whether each
position could still be won, the solver's line from there, and what each action cost
against it.

The work runs in a worker process of its own (:class:`~server.play.daily.deals.SolverProver`'s
pool), never on the event loop: moves are answered while reviews run. A review has a CPU
budget (``seconds``): positions it leaves unjudged are marked unknown. Each game's review is
kept once made, in the store for every node (and the latest in this node's memory); an
account has at most one review in flight, and so many new ones a day, counted across every
node on the bus (Redis), or by this node alone while Redis is out.

The worker makes one review at a time, a long one in parts on as many cores (up to two),
each part's worker taking half of the other's rest once done with its own
(:mod:`.segments`); the others wait in a :class:`FairLine`, taken in
turn between client addresses (one address may hold many accounts), not first come first
served, and each asker is told where it stands (``queued``). While its review is made, the
asker is told how many positions are judged (``review_progress``, :mod:`.progress`), with
an estimate of the seconds left.

A finished daily's review is made **ahead** of its asking: its day's reviews open only once
the day is over, when every player may ask at once, so each daily is reviewed as it ends, in
a worker of its own at the lowest priority (``nice`` 19: it takes only what play leaves idle),
within a CPU budget a UTC day (``SIMON_REVIEW_AHEAD_SECONDS``); the first asker finds it made.

Distances are the solver's line, not the shortest possible: the solver shortens its
solutions but does not prove them optimal, so a delta can be off by what it misses.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Final

from server.bus import Bus, BusError, DayCounts
from server.engine import Game
from server.engine.actions import apply
from server.play.clock import Clock, utc_day
from server.play.daily.deals import SolverProver
from server.play.errors import Refused
from server.protocol import ErrorCode, Review, ReviewPosition, ReviewProgress, Stretch
from server.store import (
    END_ACTIONS,
    DailyDealRecord,
    GameRecord,
    PlayerRecord,
    ReviewStore,
    StoreError,
)

from .ahead import ReviewsAhead
from .judging import (
    Judged,
    Searched,
    judge_part,
    judge_path_reporting,
    judge_searched,
    part_cuts,
)
from .progress import LONG_REVIEW_SECONDS, SLOTS, Pace, ProgressMeter, Reading, follow
from .segments import MOST_PARTS, Segments

log = logging.getLogger(__name__)

#: Reviews kept in a node's memory besides the store (the oldest go first).
CACHED_REVIEWS: Final = 512
#: How much lower the review worker's priority is than the server's (``os.nice``): the
#: server's moves come first when both want a core.
REVIEW_NICE: Final = 10
#: Reviews asked for and not done yet, on one node at most (they wait in line for the
#: worker); past it a review is refused ``busy``, with a ``retry_after``.
MOST_IN_FLIGHT: Final = 32
#: New reviews an account may ask in a UTC day, of all nodes (one asked again of the node
#: that made it is kept: free).
#: Each costs the solver up to its budget, and the worker is one for everyone.
REVIEWS_PER_DAY: Final = 20
#: Review workers at most: one review is judged in as many parts side by side, each in a
#: process of its own (the cores the machine has, up to the meter's slots).
REVIEW_PARTS: Final = max(1, min(SLOTS, MOST_PARTS, os.cpu_count() or 1))
#: The fewest positions a review is split for: a shorter game is judged in one go.
SPLIT_FROM: Final = 12
#: The costliest stretches named in a review.
STRETCHES: Final = 3


def review_of(
    record: GameRecord,
    entries: Sequence[tuple[int, str]],
    judged: Sequence[Judged],
    *,
    par: int | None,
) -> Review:
    """The review message from the worker's verdicts (``entries``: the board-changing
    actions as (seq, action), in order; ``judged``: the deal's verdict, then each one's)."""
    game = Game.from_code(record.code)
    positions = [ReviewPosition(seq=0, winnable=judged[0][0], distance=judged[0][1])]
    losing = None
    for (seq, action), (winnable, distance), (was_winnable, was_distance) in zip(
        entries, judged[1:], judged[:-1], strict=True
    ):
        moves_before = game.moves
        apply(game, action)
        delta = None
        if distance is not None and was_distance is not None:
            delta = game.moves - moves_before + distance - was_distance
        positions.append(
            ReviewPosition(
                seq=seq, action=action, winnable=winnable, distance=distance, delta=delta
            )
        )
        if losing is None and was_winnable is True and winnable is False:
            losing = seq
    won = bool(record.won)
    moves = record.moves or 0
    line = judged[0][1]
    return Review(
        game=record.id,
        positions=positions,
        losing_move=None if won else losing,
        stretches=stretches(positions),
        moves=moves,
        won=won,
        solver_line=line,
        against_line=moves - line if won and line is not None else None,
        par=par,
        against_par=moves - par if won and par is not None else None,
        unknown=sum(position.winnable is None for position in positions),
    )


def stretches(positions: Sequence[ReviewPosition], most: int = STRETCHES) -> list[Stretch]:
    """Runs of consecutive actions that each cost moves, the costliest first."""
    found: list[Stretch] = []
    first = last = None
    cost = 0
    for position in [*positions, ReviewPosition(seq=-1, winnable=None)]:
        if position.delta is not None and position.delta > 0:
            if first is None:
                first = position.seq
            last, cost = position.seq, cost + position.delta
            continue
        if first is not None and last is not None:
            found.append(Stretch(first=first, last=last, cost=cost))
        first = last = None
        cost = 0
    found.sort(key=lambda stretch: (-stretch.cost, stretch.first))
    return found[:most]


#: Told where a waiting review stands: its position in line (1: next).
Waiting = Callable[[int], None]
#: Told how far the review being made has got.
Progress = Callable[[ReviewProgress], None]


@dataclass(eq=False)
class _Turn:
    address: str
    start: int  # its place in the line's virtual time (start-time fair queuing)
    seq: int  # the order it came in: ties go to the first
    waiting: Waiting | None
    ready: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    told: int = 0


class FairLine:
    """One worker shared fairly between client addresses: a review is made at once when
    the worker is free; else it waits, and the worker takes the waiting ones in turn between
    addresses (start-time fair queuing, every review costing one turn): five reviews from
    one address and one from another, the other's comes second, not sixth. An address that
    waited nothing for a while banks no turns. Each waiter is told its position whenever it
    changes (a newcomer from a quieter address may go before it)."""

    def __init__(self) -> None:
        self._line: list[_Turn] = []
        self._working = False
        self._virtual = 0  # the start of the turn in the worker
        self._finish: dict[str, int] = {}  # by address: where its last turn ends
        self._seq = itertools.count()

    def __len__(self) -> int:
        """Reviews waiting (the one in the worker left out)."""
        return len(self._line)

    async def turn(self, address: str, waiting: Waiting | None = None) -> None:
        """Wait for the worker (its turn: :meth:`done` once finished with it)."""
        start = max(self._virtual, self._finish.get(address, 0))
        self._finish[address] = start + 1
        if not self._working and not self._line:
            self._working = True
            self._virtual = start
            return
        turn = _Turn(address, start, next(self._seq), waiting)
        self._line.append(turn)
        self._line.sort(key=lambda waiter: (waiter.start, waiter.seq))
        self._tell()
        try:
            await turn.ready
        except asyncio.CancelledError:
            if turn in self._line:
                self._line.remove(turn)
                self._tell()
            elif turn.ready.done() and not turn.ready.cancelled():
                self.done()  # given the worker just as it gave up: the next one's
            raise

    def done(self) -> None:
        """The worker is free: the next in line gets it."""
        self._working = False
        if self._line:
            turn = self._line.pop(0)
            self._working = True
            self._virtual = turn.start
            turn.ready.set_result(None)
        self._finish = {key: end for key, end in self._finish.items() if end > self._virtual}
        self._tell()

    def _tell(self) -> None:
        for position, turn in enumerate(self._line, 1):
            if turn.told != position:
                turn.told = position
                if turn.waiting is not None:
                    turn.waiting(position)


class Reviews:
    """Reviews of finished games: made in the worker, kept per game, one per account at
    a time, in a fair line between addresses; a finished daily's made ahead of its asking
    (:attr:`ahead`)."""

    def __init__(
        self,
        store: ReviewStore,
        worker: SolverProver,
        *,
        seconds: float,
        clock: Clock,
        bus: Bus,
        ahead_seconds: float = 0.0,
        deal_of: Callable[[date, int], Awaitable[DailyDealRecord | None]] | None = None,
        parts: int = 1,
    ) -> None:
        """``ahead_seconds``: the CPU seconds a UTC day for reviews made ahead (0: none);
        ``deal_of``: a daily's deal (its solver line) by day and suit count, for them;
        ``parts``: the workers ``worker`` has, a review judged in as many parts at once."""
        self._store = store
        self._worker = worker
        self.parts = parts
        self.seconds = seconds
        self._clock = clock
        self._done: OrderedDict[str, Review] = OrderedDict()
        self._busy: set[int] = set()
        self._line = FairLine()
        self.most_in_flight = MOST_IN_FLIGHT
        self.per_day = REVIEWS_PER_DAY
        #: New reviews asked today, by account: counted on the bus, for every node.
        self._bus = bus
        #: This node's own count, while the bus cannot count.
        self._own_counts = DayCounts()
        #: Reviews being made ahead, by game: an ask meanwhile waits for the same one.
        self._making_ahead: dict[str, asyncio.Future[Review]] = {}
        #: Games whose review is being made for an asker: none is made ahead meanwhile.
        self._asked: set[str] = set()
        self._deal_of = deal_of
        self.ahead = ReviewsAhead(
            seconds_a_day=ahead_seconds, seconds=seconds, clock=clock, review=self._review_ahead
        )
        #: The worker's count of positions judged, and this node's recent reviews' pace.
        self._meter = ProgressMeter()
        self._pace = Pace()
        #: How a review's positions are shared out between its parts' workers.
        self._segments = Segments()

    async def review(
        self,
        player: PlayerRecord,
        record: GameRecord,
        *,
        deal: DailyDealRecord | None = None,
        address: str = "",
        waiting: Waiting | None = None,
        progress: Progress | None = None,
    ) -> Review:
        """The review of a finished game the player may see (checked by the caller); of a
        daily, with its ``deal`` (its par, and its solver line to start from). One kept
        already, by any node, is answered at once and does not count; one being made ahead
        is waited for, and does not count either. ``address``, the asker's (as the network
        layer counts it), takes its turn for the worker in the fair line; ``waiting`` is
        told the review's position while it waits, ``progress`` how far it has got once the
        worker makes it."""
        found = await self.kept(record.id)
        if found is not None:
            return found
        making = self._making_ahead.get(record.id)
        if making is not None:
            return await asyncio.shield(making)
        if player.id in self._busy:
            raise Refused(ErrorCode.BUSY, "a review of yours is being made: ask again when done")
        if len(self._busy) >= self.most_in_flight:
            raise Refused(
                ErrorCode.BUSY,
                "the solver has %(count)s reviews to make: ask again later",
                params={"count": len(self._busy)},
                retry_after=self.seconds,  # a place is free once the one being made is done
            )
        # marked before anything else is awaited: a second ask meanwhile is refused
        self._busy.add(player.id)
        try:
            await self._count_asked(player)
            await self._line.turn(address, waiting)
            self._asked.add(record.id)
            try:
                return await self._made(record, deal, ahead=False, progress=progress)
            finally:
                self._asked.discard(record.id)
                self._line.done()
        finally:
            self._busy.discard(player.id)

    async def _made(
        self,
        record: GameRecord,
        deal: DailyDealRecord | None,
        *,
        ahead: bool,
        progress: Progress | None = None,
    ) -> Review:
        """The game's review made in the worker (``ahead``: the worker of the reviews made
        ahead, :attr:`ahead`), remembered and kept in the store."""
        making: asyncio.Future[Review] = asyncio.get_running_loop().create_future()
        if ahead:
            self._making_ahead[record.id] = making
        try:
            logged = await self._store.load_game(record.id)
            assert logged is not None  # the caller read it
            entries = [
                (entry.seq, entry.action)
                for entry in logged.entries
                if entry.action not in END_ACTIONS
            ]
            actions = [action for _, action in entries]
            line = (deal.solution or ()) if deal is not None else ()
            if ahead:
                judged = await self.ahead.judged(record.code, actions, line)
            else:
                judged = await self._judged(record, entries, deal, progress)
            found = review_of(logged.game, entries, judged, par=deal.par if deal else None)
        except asyncio.CancelledError:
            making.cancel()
            raise
        except Exception as error:
            making.set_exception(error)
            making.exception()  # retrieved: nobody may be waiting
            raise
        finally:
            self._making_ahead.pop(record.id, None)
        making.set_result(found)
        self._remember(found)
        try:
            body = found.model_dump_json(exclude={"id"}, exclude_none=True)
            await self._store.keep_review(game_id=record.id, body=body, at=self._clock.now())
        except StoreError as error:
            # answered all the same; another node makes it again when asked
            log.warning("review of game %s not kept for the other nodes: %s", record.id, error)
        return found

    async def _review_ahead(self, game_id: str) -> bool:
        """A finished daily's review made ahead of its asking, unless one is made or being
        made already: whether it was made."""
        if game_id in self._asked or await self.kept(game_id) is not None:
            return False
        record = await self._store.get_game(game_id)
        if record is None or record.finished_at is None or record.day is None:
            return False
        deal = None if self._deal_of is None else await self._deal_of(record.day, record.suits)
        await self._made(record, deal, ahead=True)
        return True

    async def _judged(
        self,
        record: GameRecord,
        entries: Sequence[tuple[int, str]],
        deal: DailyDealRecord | None,
        progress: Progress | None,
    ) -> list[Judged]:
        """The worker's verdicts (its turn is ours), ``progress`` told as they come."""
        positions = len(entries) + 1
        loop = asyncio.get_running_loop()
        started = loop.time()
        told = [-1]  # the last count told

        def tell(done: Reading) -> None:
            # parts sharing positions out may both judge one: never more than the review's
            done = done._replace(judged=min(done.judged, positions))
            told[0] = done.judged
            if progress is None:
                return
            elapsed = loop.time() - started
            estimate = self._pace.estimate(
                positions=positions, done=done, elapsed=elapsed, budget=self.seconds
            )
            progress(
                ReviewProgress(
                    game=record.id,
                    judged=done.judged,
                    positions=positions,
                    seconds_left_estimate=estimate,
                    long=estimate is not None and estimate >= LONG_REVIEW_SECONDS,
                )
            )

        self._meter.reset()
        tell(Reading(0, 0.0))  # at once: the work starts, and how long it may take
        watching = asyncio.create_task(follow(self._meter, tell))
        actions = [action for _, action in entries]
        line = (deal.solution or ()) if deal is not None else ()
        try:
            if self.parts > 1 and positions >= SPLIT_FROM:
                judged = await self._judged_in_parts(record.code, actions, line)
            else:
                judged = await self._worker.run(
                    judge_path_reporting,
                    record.code,
                    actions,
                    self.seconds,
                    line,
                    self._meter.name(),
                )
        finally:
            watching.cancel()
        if told[0] != positions:  # done since the last read: every position is judged
            tell(Reading(positions, self.seconds))
        self._pace.add(loop.time() - started, positions)
        return judged

    async def _judged_in_parts(
        self, code: str, actions: list[str], line: Sequence[str]
    ) -> list[Judged]:
        """The verdicts of a game judged by :attr:`parts` workers side by side, each part's
        searches made (a worker done with its part takes half of what another has left:
        :mod:`.segments`), then the game walked with them (server/play/after/judging.py)."""
        # in the worker: a replay of the game, long for a long game (not on the event loop)
        cuts = await self._worker.run(part_cuts, code, actions, self.parts)
        meter = self._meter.name()
        segments = self._segments.name()
        self._segments.start(cuts)
        made = await asyncio.gather(
            *(
                self._worker.run(
                    judge_part,
                    code,
                    actions,
                    self.seconds,
                    line,
                    (first, last),
                    segments,
                    meter,
                    slot,
                )
                for slot, (first, last) in enumerate(itertools.pairwise(cuts))
            )
        )
        searched: Searched = {}
        for part in made:
            searched.update(part)
        return await self._worker.run(judge_searched, code, actions, self.seconds, line, searched)

    def _remember(self, review: Review) -> None:
        self._done[review.game] = review
        self._done.move_to_end(review.game)
        while len(self._done) > CACHED_REVIEWS:
            self._done.popitem(last=False)

    async def _count_asked(self, player: PlayerRecord) -> None:
        """Count a new review of ``player``'s, refused ``rate-limited`` past the day's share."""
        today = utc_day(self._clock.now())
        name = f"reviews:{player.id}"
        try:
            asked = await self._bus.count_for_day(today, name)
        except BusError as error:
            log.warning("counting %s's reviews on this node alone: %s", player.name, error)
            asked = self._own_counts.add(today, name)
        if asked > self.per_day:
            raise Refused(
                ErrorCode.RATE_LIMITED,
                "%(most)s new reviews a day: ask for more tomorrow (UTC); a review made "
                "already is answered at once",
                params={"most": self.per_day},
            )

    def making(self, player_id: int) -> bool:
        """Whether a review of the account's is being made on this node."""
        return player_id in self._busy

    async def kept(self, game_id: str) -> Review | None:
        """The game's review, if one was made: from this node's memory, or as the store
        kept it (whichever node made it)."""
        found = self._done.get(game_id)
        if found is None:
            body = await self._store.kept_review(game_id)
            if body is None:
                return None
            found = Review.model_validate_json(body)
        self._remember(found)
        return found

    def close(self) -> None:
        self.ahead.close()
        self._worker.close()
        self._meter.close()
        self._segments.close()
