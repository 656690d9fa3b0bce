"""Read-only questions (today's deals, leaderboards, ranks, a player's history, a race's
standings) answered from the store's records as protocol replies.
"""

from __future__ import annotations

import contextlib
from datetime import date, timedelta
from typing import Final, Literal, TypeAlias

from server.engine import SUIT_COUNTS
from server.kinds import DayBoard, SuitCount
from server.play.clock import Clock, seconds_to_next_day, utc_day
from server.play.daily.deals import DailySchedule
from server.play.daily.standings import DailyStandings
from server.play.errors import DealsNotReady, NoDailyDeal, Refused
from server.play.fairplay.screening import Screening
from server.protocol import (
    Board,
    DailyCode,
    DailyInfo,
    ErrorCode,
    History,
    HistoryGame,
    LeaderboardPage,
    LeaderboardRow,
    PlayerStats,
    RaceStandings,
    RankInfo,
    TodayDeal,
    Unfinished,
    UnfinishedGame,
)
from server.store import GameRecord, LeaderboardEntry, PlayerRecord, RaceStore, ResultStore

from .day import AfterDay

#: The games of a board's rows that anyone may replay: their ids, by player name.
Replays: TypeAlias = dict[str, str]
#: How long a ``daily`` request waits for the day's deals to be all known before it
#: answers with those that are (a fresh node reads the stored ones meanwhile; those still
#: being proven are answered ``ready: false``).
DAILY_WAIT: Final = 0.5


class Queries:
    def __init__(
        self,
        *,
        store: ResultStore,
        clock: Clock,
        daily: DailySchedule,
        after: AfterDay,
        standings: DailyStandings,
        rooms: RaceStore | None = None,
        screening: Screening | None = None,
    ) -> None:
        self._store = store
        #: Says from which day a new player's dailies count on the public board.
        self._screening = screening
        self._clock = clock
        self._daily = daily
        self._after = after
        self._standings = standings
        self._rooms = rooms

    def _today(self) -> date:
        return utc_day(self._clock.now())

    def _begun(self, day: date | None) -> date:
        """``day`` (today when None), refused ``not-found`` when it has not begun: a board
        opens on its day."""
        today = self._today()
        if day is None:
            return today
        if day > today:
            raise Refused(
                ErrorCode.NOT_FOUND,
                "the board of %(day)s opens on that day",
                params={"day": day.isoformat()},
            )
        return day

    async def daily_info(
        self, player: PlayerRecord | None = None, *, today: bool = True
    ) -> DailyInfo:
        """Today's deals without their codes (``start`` reveals a deal), with ``player``'s
        progress on each; yesterday's codes and par. With ``today`` false, no deals of
        today (left empty), never waiting for them: the boards' page, which a fresh server
        serves while it proves them."""
        now = self._clock.now()
        day = utc_day(now)
        return DailyInfo(
            day=day,
            deals=await self.today_deals(day, player, wait=DAILY_WAIT) if today else [],
            yesterday=await self.past_deals(day - timedelta(days=1)),
            seconds_left=round(seconds_to_next_day(now), 3),
        )

    async def today_deals(
        self, day: date, player: PlayerRecord | None, *, wait: float | None
    ) -> list[TodayDeal]:
        """All three of the day's deals, each ``ready: false`` while it is being proven
        (waiting up to ``wait`` seconds for them all to be known)."""
        with contextlib.suppress(DealsNotReady, NoDailyDeal):  # told by each ``ready``
            await self._daily.deals(day, wait=wait)
        finished = {}
        if player is not None:
            finished = await self._store.daily_progress(player_id=player.id, day=day)
        known = self._daily.known(day)  # read last: one ready since is told by a push
        return [
            TodayDeal(
                suits=suits,
                started=None if player is None else suits in finished,
                finished=None if player is None else finished.get(suits, False),
                ready=None if suits in known else False,
            )
            for suits in SUIT_COUNTS
        ]

    async def past_deals(self, day: date) -> list[DailyCode]:
        """A day's deals with their codes and par: public once the day is over."""
        found = []
        for suits in SUIT_COUNTS:
            record = await self._daily.stored(day, suits)
            if record is not None:
                found.append(DailyCode(suits=suits, code=record.code, par=record.par))
        return found

    async def dealt(self, day: date, suits: int) -> bool:
        """Whether a day that is over had a daily of ``suits`` (a server dealt none before
        its first start, nor on a day it was down all day)."""
        return await self._daily.stored(day, suits) is not None

    async def _undealt(self, day: date, suits: int, total: int) -> Literal[False] | None:
        """A reply's ``dealt``: False for an empty board of a day that is over and had no
        deal of ``suits`` (left out otherwise: the board is only empty)."""
        if total or day >= self._today() or await self.dealt(day, suits):
            return None
        return False

    async def leaderboard(
        self, *, day: date | None, suits: SuitCount, limit: int, after: str | None, board: Board
    ) -> LeaderboardPage:
        page, _ = await self.leaderboard_replays(
            day=day, suits=suits, limit=limit, after=after, board=board
        )
        return page

    async def leaderboard_replays(
        self, *, day: date | None, suits: SuitCount, limit: int, after: str | None, board: Board
    ) -> tuple[LeaderboardPage, Replays]:
        """A page of a board, and its rows' games anyone may replay (by player)."""
        day = self._begun(day)
        page = await self._store.leaderboard_page(
            DayBoard(day, suits, board), limit=limit, after=after
        )
        reply = LeaderboardPage(
            day=day,
            suits=suits,
            board=board,
            rows=[leaderboard_row(row) for row in page.rows],
            next=page.next,
            total=page.total,
            dealt=await self._undealt(day, suits, page.total),
        )
        return reply, self._board_replays(day, page.rows)

    def _board_replays(self, day: date, rows: list[LeaderboardEntry]) -> Replays:
        # a row on a board is a ranked result, never a held one: public once its day is over
        return {row.player: row.game_id for row in rows} if self._after.public_day(day) else {}

    async def rank(
        self, *, day: date | None, suits: SuitCount, player: PlayerRecord, around: int, board: Board
    ) -> RankInfo:
        ranked, _ = await self.rank_replays(
            day=day, suits=suits, player=player, around=around, board=board
        )
        return ranked

    async def rank_replays(
        self, *, day: date | None, suits: SuitCount, player: PlayerRecord, around: int, board: Board
    ) -> tuple[RankInfo, Replays]:
        """A player's rank with the rows around it, and their games anyone may replay."""
        day = self._begun(day)
        ranked = await self._store.rank_of(
            DayBoard(day, suits, board), player_id=player.id, around=around
        )
        reply = RankInfo(
            day=day,
            suits=suits,
            board=board,
            player=player.name,
            rank=ranked.rank,
            total=ranked.total,
            around=[leaderboard_row(row) for row in ranked.around],
            review="held" if ranked.held else None,
            dealt=await self._undealt(day, suits, ranked.total),
        )
        return reply, self._board_replays(day, ranked.around)

    async def history(self, player: PlayerRecord, limit: int, *, own: bool = False) -> History:
        """A player's finished games; ``own``: asked by the player (who alone is told which
        results are held for review)."""
        history, _ = await self._history(player, limit, own=own)
        return history

    async def history_replays(
        self, player: PlayerRecord, limit: int
    ) -> tuple[History, list[str | None]]:
        """A player's finished games as anyone sees them, and beside each game the id of its
        replay where anyone may see it (None where not)."""
        history, records = await self._history(player, limit, own=False)
        public = await self._after.public_replays(records)
        return history, [record.id if record.id in public else None for record in records]

    async def _history(
        self, player: PlayerRecord, limit: int, *, own: bool
    ) -> tuple[History, list[GameRecord]]:
        found = await self._store.history(player_id=player.id, limit=limit)
        rank_by_game = await self._store.ranks_of(
            [record.id for record in found.games if record.day is not None]
        )
        # race room games (unranked practice games): their room and place
        raced = [record.id for record in found.games if record.day is None]
        places = await self._rooms.places_of(raced) if self._rooms and raced else {}
        today = self._today()
        history = History(
            player=player.name,
            streak=await self._after.streak(player.id),
            stats=PlayerStats(
                games=found.games_total,
                won=found.won,
                best_score={str(suits): score for suits, score in found.best_score.items()},
            ),
            games=[
                HistoryGame(
                    game=record.id,
                    day=record.day,
                    # today's deal stays secret until the day is over, even once played
                    code=None if record.day is not None and record.day >= today else record.code,
                    suits=record.suits,
                    mode=record.mode,
                    won=bool(record.won),
                    score=record.score or 0,
                    moves=record.moves or 0,
                    elapsed=round(record.elapsed or 0.0, 3),
                    finished_at=record.finished_at.isoformat() if record.finished_at else "",
                    rank=rank_by_game.get(record.id),
                    review="held" if own and record.held else None,
                    race=places[record.id][0] if record.id in places else None,
                    place=places[record.id][1] if record.id in places else None,
                    board=board_of(record),
                    verified=record.verified,
                )
                for record in found.games
            ],
            counts_from=(
                await self._screening.counts_from(player) if self._screening is not None else None
            ),
        )
        return history, found.games

    async def unfinished(self, player: PlayerRecord, limit: int) -> Unfinished:
        """The player's games in progress: practice games, today's dailies, the games of
        race rooms racing; newest started first."""
        today = self._today()
        found = await self._store.games_in_progress(
            player_id=player.id, today=today, now=self._clock.now(), limit=limit
        )
        return Unfinished(
            games=[
                UnfinishedGame(
                    game=game.id,
                    mode=game.mode,
                    suits=game.suits,
                    # today's deal stays secret until the day is over, as in ``history``
                    code=None if game.day is not None and game.day >= today else game.code,
                    day=game.day,
                    race=game.race,
                    moves=game.moves,
                    started=game.started_at.isoformat(),
                )
                for game in found
            ]
        )

    async def race_standings(
        self, suits: int, day: date | None = None, player: str | None = None
    ) -> RaceStandings:
        """The race's leaders, the rows around ``player``'s own, and its counts."""
        day = day or self._today()
        await self._standings.flush()  # this node's own events first: a player sees their start
        rows, counts = await self._standings.standings(day, suits, player)
        return RaceStandings(
            day=day,
            suits=suits,
            players=rows,
            total=counts.total,
            playing=counts.playing,
            finished=counts.finished,
        )


def board_of(record: GameRecord) -> Board | None:
    """The board a daily is on (or goes on, once cleared); None for a practice game."""
    board = record.board
    return None if board is None else board.kind


def leaderboard_row(entry: LeaderboardEntry) -> LeaderboardRow:
    return LeaderboardRow(
        rank=entry.rank,
        player=entry.player,
        score=entry.score,
        moves=entry.moves,
        elapsed=round(entry.elapsed, 3),
        finished_at=entry.finished_at.isoformat(),
        won=entry.won,
        removed=entry.removed,
        bot=entry.bot,
        verified=entry.verified,
    )
