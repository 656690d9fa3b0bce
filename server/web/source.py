"""What the pages read, and the only module of ``server.web`` that knows the hub.

Every figure on a page comes through the hub's public queries (``hub.queries`` and
``hub.accounts.named``), so the pages show
exactly what the protocol tells its clients: bots on their own board, results held for
fair-play review nowhere. Refusals become :class:`PageError`. A :class:`Source` also keeps
the node's short-lived cache of rendered pages (:meth:`Source.remember`): keyed by the
canonical request (the path and only the query parameters the page reads), at most
:data:`CACHE_BYTES` of bodies, an entry dropped once it has expired.

::

    source = Source.of(hub)
    page = await source.board(day=source.today(), suits=4, board="humans", limit=20)
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import ClassVar, Final, TypeVar

from server.edge import EdgeError
from server.engine import Game, Move, SuitCount
from server.engine.actions import apply
from server.i18n import gettext
from server.play.after.queries import Replays
from server.play.errors import refusal_of
from server.play.hub import Hub
from server.play.session.social_handlers import league_view
from server.protocol import (
    HTTP_STATUS,
    Board,
    DailyInfo,
    DayStats,
    ErrorCode,
    History,
    LeaderboardPage,
    LeagueView,
    RaceStandings,
    RankInfo,
    Replay,
    Review,
    RoomView,
)

__all__ = ["Hub", "PageError", "Player", "Source"]

#: Rendered pages kept per node at most (the oldest go first).
CACHE_ENTRIES: Final = 256
#: Bytes of rendered pages kept per node at most (the oldest go first; a page larger than
#: this is never kept).
CACHE_BYTES: Final = 16 * 1024 * 1024
#: Positions of a replay on one page (``/replay/ID?from=N`` shows the page holding N): a
#: page's size and the time it takes to render do not grow with the game.
REPLAY_PAGE: Final = 100

T = TypeVar("T")


class PageError(EdgeError):
    """A request a page cannot answer: its HTTP status, a stable code and a sentence. The
    web layer's one error, a kind of the edge's root it shares with the net layer that
    serves the pages: the refusals of the layers below reach a page as one
    (:func:`_asking`)."""

    def __init__(self, status: int, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Step:
    """One position of a replay: the action that led there, its think time, the board."""

    seq: int
    action: str | None  # None: the deal
    think: float | None  # seconds since the previous action (None at the deal)
    columns: tuple[str, ...]  # ten columns, deepest card first
    moves: int
    removed: int
    move: Move | None = None  # the move that led here (None: the deal, an undo, an end)
    #: How many cards at the end of the move's target column it brought there (0 when they
    #: completed a run, which left the table at once).
    arrived: int = 0
    #: Its place in the replay (0: the deal, then one per action).
    index: int = 0


@dataclass(frozen=True)
class Player:
    name: str
    bot: bool
    created: datetime


async def _asking(question: Awaitable[T]) -> T:
    """The answer to a hub query, or :class:`PageError` for what the error table knows."""
    try:
        return await question
    except Exception as error:
        refused = refusal_of(error)
        if refused is None:
            raise
        status = HTTP_STATUS.get(refused.code, 400)
        raise PageError(status, refused.code, refused.sentence) from None


class Source:
    """The hub's public queries, as the pages use them."""

    _of: ClassVar[weakref.WeakKeyDictionary[Hub, Source]] = weakref.WeakKeyDictionary()

    def __init__(self, hub: Hub, *, cache_seconds: float = 1.0) -> None:
        self._hub = hub
        #: How long a rendered live page is reused (0: never); bounds the work that many
        #: browsers polling the same page cost, and delays an update by at most this long.
        self.cache_seconds = cache_seconds
        #: Bytes of bodies the cache holds at most.
        self.cache_bytes = CACHE_BYTES
        #: Bytes of bodies it holds now.
        self.cached_bytes = 0
        self._cache: OrderedDict[str, tuple[float, bytes, str]] = OrderedDict()

    @classmethod
    def of(cls, hub: Hub) -> Source:
        """The one source of a hub (its page cache lives as long as the hub)."""
        source = cls._of.get(hub)
        if source is None:
            source = cls._of[hub] = cls(hub)
        return source

    def now(self) -> datetime:
        return self._hub.now()

    def today(self) -> date:
        return self._hub.today()

    def new_account_days(self) -> int:
        """How many earlier days of dailies a human account needs before its dailies count
        on the public board (0: from its first)."""
        return self._hub.screening.thresholds.new_account_days

    def review_hours(self) -> int:
        """How long a fair-play review of a held result usually takes here (hours)."""
        return self._hub.held_review_hours

    async def daily(self) -> DailyInfo:
        """Today's day, its time left and yesterday's deals (not today's: the boards are
        served while a fresh server proves them, empty until then)."""
        return await _asking(self._hub.queries.daily_info(today=False))

    async def board(
        self, *, day: date, suits: SuitCount, board: Board, limit: int, after: str | None = None
    ) -> tuple[LeaderboardPage, Replays]:
        """A page of a board, and the ids of its rows' public replays by player."""
        return await _asking(
            self._hub.queries.leaderboard_replays(
                day=day, suits=suits, limit=limit, after=after, board=board
            )
        )

    async def dealt(self, day: date, suits: int) -> bool:
        """Whether a day that is over had a daily of ``suits`` (a server dealt none before
        its first start, nor on a day it was down all day)."""
        return await _asking(self._hub.queries.dealt(day, suits))

    async def player(self, name: str) -> Player:
        record = await _asking(self._hub.accounts.named(name))
        return Player(name=record.name, bot=record.bot, created=record.created_at)

    async def rank(
        self, *, day: date, suits: SuitCount, board: Board, name: str, around: int
    ) -> tuple[RankInfo, Replays]:
        """A player's rank and the rows around it, and the ids of their public replays."""
        player = await _asking(self._hub.accounts.named(name))
        return await _asking(
            self._hub.queries.rank_replays(
                day=day, suits=suits, player=player, around=around, board=board
            )
        )

    async def history(self, name: str, limit: int) -> tuple[History, list[str | None]]:
        """A player's finished games as anyone sees them (held results carry no rank), and
        beside each the id of its replay where anyone may see it."""
        player = await _asking(self._hub.accounts.named(name))
        return await _asking(self._hub.queries.history_replays(player, limit))

    async def day_stats(
        self, *, day: date, suits: SuitCount, board: Board, name: str | None
    ) -> DayStats:
        player = None if name is None else await _asking(self._hub.accounts.named(name))
        return await _asking(
            self._hub.after.day_stats(day=day, suits=suits, board=board, player=player)
        )

    async def replay(self, game_id: str, first: int) -> tuple[Replay, list[Step], Review | None]:
        """A public replay (as anyone may see it), the :data:`REPLAY_PAGE` positions from
        ``first`` (the deal is 0; past the last, refused ``not-found``), and its solver
        review if one was made."""
        found = await _asking(self._hub.after.replay(None, game_id))
        if first > len(found.moves):
            raise PageError(
                404,
                ErrorCode.NOT_FOUND,
                gettext("this replay has positions 0 to %(last)s, not %(first)s")
                % {"last": len(found.moves), "first": first},
            )
        steps = positions(found, first, REPLAY_PAGE)
        return found, steps, await _asking(self._hub.reviews.kept(game_id))

    async def room(self, code: str) -> tuple[RoomView, Replays]:
        """A race room as it stands (its racers, and their places once it is over), and the
        ids of its racers' public replays by player."""
        record = await _asking(self._hub.rooms.record(code))
        view = (await _asking(self._hub.rooms.reply(None, record))).room
        return view, self._hub.after.race_replays(record)

    async def league(self, code: str, month: str | None) -> LeagueView:
        """A league's public page (the view of nobody signed in): refused as no such league
        unless its owner made it public."""
        page = await _asking(self._hub.leagues.page(code, None, month))
        return league_view(page, None, self._hub.public_url)

    async def race(self, suits: int) -> RaceStandings:
        return await _asking(self._hub.queries.race_standings(suits))

    async def remember(
        self, key: str, make: Callable[[], Awaitable[tuple[bytes, str]]]
    ) -> tuple[bytes, str]:
        """What ``make()`` returns (a body and its Cache-Control), reused for
        ``cache_seconds`` under ``key`` (a failure is not kept). ``key`` names the canonical
        request, so that junk in a query string does not make a page again."""
        if self.cache_seconds <= 0:
            return await make()
        now = self._hub.clock.monotonic()
        self._drop_expired(now)
        found = self._cache.get(key)
        if found is not None:
            return found[1], found[2]
        body, cache_control = await make()
        now = self._hub.clock.monotonic()
        if len(body) > self.cache_bytes:
            return body, cache_control
        old = self._cache.pop(key, None)  # made meanwhile by another request
        if old is not None:
            self.cached_bytes -= len(old[1])
        self._cache[key] = (now + self.cache_seconds, body, cache_control)
        self.cached_bytes += len(body)
        while len(self._cache) > CACHE_ENTRIES or self.cached_bytes > self.cache_bytes:
            self._forget_oldest()
        return body, cache_control

    def _drop_expired(self, now: float) -> None:
        # Entries are in the order they were made, and all live as long: the expired first.
        while self._cache and next(iter(self._cache.values()))[0] <= now:
            self._forget_oldest()

    def _forget_oldest(self) -> None:
        _, (_, body, _) = self._cache.popitem(last=False)
        self.cached_bytes -= len(body)

    @property
    def cached_pages(self) -> int:
        """Pages the cache holds now."""
        return len(self._cache)


def positions(replay: Replay, first: int = 0, count: int | None = None) -> list[Step]:
    """A replay's positions: the deal (position 0), then the board after each of its
    actions; only the ``count`` of them from ``first`` (all by default). The actions before
    are applied to the engine, but only these positions' boards are read."""
    last = len(replay.moves) if count is None else first + count - 1
    game = Game.from_code(replay.code)
    steps = []
    if first == 0:
        steps.append(Step(0, None, None, _columns(game), game.moves, game.removed_count))
    previous = None
    for index, step in enumerate(replay.moves, 1):
        if index > last:
            break
        removed = game.removed_count
        move = apply(game, step.action)
        think = None if previous is None else (step.at - previous) / 1000
        previous = step.at
        if index < first:
            continue
        arrived = 0
        if move is not None and game.removed_count == removed:
            arrived = move.count or 0  # a played move's count is explicit
        steps.append(
            Step(
                step.seq,
                step.action,
                think,
                _columns(game),
                game.moves,
                game.removed_count,
                move,
                arrived,
                index,
            )
        )
    return steps


def _columns(game: Game) -> tuple[str, ...]:
    return tuple(game.board_text().splitlines())
