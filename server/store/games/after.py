"""After the daily: everyone's results of a day's board in figures, the days a player
finished a daily on (streaks), players' reports of ranked results, and the solver's reviews
of games kept.

The queries behind :class:`server.store.Store`'s ``day_figures``, ``daily_days``,
``report``, ``reported_results``, ``keep_review`` and ``kept_review``; the store checks
its callers' arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from server.kinds import DayBoard
from server.store.database import Database
from server.store.errors import AlreadyReported, StoreError
from server.store.models import (
    IS_DAILY,
    LEADERBOARD_KEY,
    ON_BOARD,
    GameRow,
    Player,
    Report,
    SolverReview,
    board_params,
)
from server.store.records import GameRecord

from .queries import GAMES_WITH_PLAYERS, game_record


@dataclass(frozen=True)
class DayFigures:
    """A day's board in counts: what the day's statistics are drawn from."""

    finished: int
    won: int
    winners_moves: dict[int, int]  # move count: winners
    not_won: dict[int, int]  # runs removed: games not won
    time_quartiles: tuple[float, float, float] | None  # the winners' times; None: no winner


@dataclass(frozen=True)
class ReportRecord:
    player: str
    reason: str
    at: datetime


class AfterDayRecords:
    def __init__(self, database: Database) -> None:
        self._database = database

    async def day_figures(self, board: DayBoard) -> DayFigures:
        """A board's ranked results in counts (held results are on no board)."""
        params = board_params(board)
        by_moves = (
            sa.select(GameRow.moves, sa.func.count())
            .where(*ON_BOARD, GameRow.won.is_(True))
            .group_by(GameRow.moves)
        )
        by_removed = (
            sa.select(GameRow.removed, sa.func.count())
            .where(*ON_BOARD, GameRow.won.is_not(True))
            .group_by(GameRow.removed)
        )
        async with self._database.reads() as session:
            winners = {int(m or 0): int(n) for m, n in await session.execute(by_moves, params)}
            losers = {int(r or 0): int(n) for r, n in await session.execute(by_removed, params)}
            won = sum(winners.values())
            quartiles = None
            if won:
                times = sa.select(GameRow.elapsed).where(*ON_BOARD, GameRow.won.is_(True))
                found = []
                for share in (1, 2, 3):  # the nearest rank of each quartile
                    offset = max(0, -(-won * share // 4) - 1)
                    found.append(
                        float(
                            await session.scalar(
                                times.order_by(GameRow.elapsed).limit(1).offset(offset), params
                            )
                            or 0.0
                        )
                    )
                quartiles = (found[0], found[1], found[2])
        return DayFigures(
            finished=won + sum(losers.values()),
            won=won,
            winners_moves=winners,
            not_won=losers,
            time_quartiles=quartiles,
        )

    async def daily_days(self, player_id: int) -> list[date]:
        """The days on which the player finished a daily (of any suit count), in order."""
        query = (
            sa.select(GameRow.day)
            .where(IS_DAILY, GameRow.player_id == player_id, GameRow.finished_at.is_not(None))
            .distinct()
            .order_by(GameRow.day)
        )
        async with self._database.reads() as session:
            return [day for day in (await session.scalars(query)).all() if day is not None]

    async def report(self, *, game_id: str, player_id: int, reason: str, at: datetime) -> None:
        """Keep a report; :class:`AlreadyReported` if the player reported this result."""
        try:
            async with self._database.sessions.begin() as session:
                session.add(Report(game_id=game_id, player_id=player_id, reason=reason, at=at))
        except IntegrityError:
            async with self._database.reads() as session:
                known = await session.get(Report, (game_id, player_id))
            if known is not None:
                raise AlreadyReported(f"game {game_id!r} is reported by this player") from None
            raise StoreError(f"no game {game_id!r} or no player {player_id}") from None

    async def keep_review(self, game_id: str, body: str, at: datetime) -> None:
        """Keep a game's review; one kept already (another node's, made at the same time)
        stays: the two say the same within the solver's budget."""
        try:
            async with self._database.sessions.begin() as session:
                session.add(SolverReview(game_id=game_id, body=body, made_at=at))
        except IntegrityError:
            async with self._database.reads() as session:
                known = await session.get(SolverReview, game_id)
            if known is None:
                raise StoreError(f"no game {game_id!r}") from None

    async def kept_review(self, game_id: str) -> str | None:
        """A game's review kept, as its JSON, or None."""
        async with self._database.reads() as session:
            return await session.scalar(
                sa.select(SolverReview.body).where(SolverReview.game_id == game_id)
            )

    async def reports_since(self, player_id: int, since: datetime) -> int:
        """How many reports the player made since ``since`` (the report budget)."""
        query = (
            sa.select(sa.func.count())
            .select_from(Report)
            .where(Report.player_id == player_id, Report.at >= since)
        )
        async with self._database.reads() as session:
            return int(await session.scalar(query) or 0)

    async def reported(self) -> list[tuple[GameRecord, list[ReportRecord]]]:
        """Every reported result with its reports (oldest first), by day, suit count, board
        and rank: the daily leaderboard's order."""
        reported_ids = sa.select(Report.game_id).distinct().scalar_subquery()
        games_query = GAMES_WITH_PLAYERS.where(GameRow.id.in_(reported_ids)).order_by(
            GameRow.day, GameRow.suits, GameRow.bot, *LEADERBOARD_KEY
        )
        reports_query = (
            sa.select(Report.game_id, Player.name, Report.reason, Report.at)
            .join(Player, Player.id == Report.player_id)
            .order_by(Report.at, Player.name)
        )
        async with self._database.reads() as session:
            games = [game_record(game, name) for game, name in await session.execute(games_query)]
            by_game: dict[str, list[ReportRecord]] = {}
            for game_id, name, reason, at in await session.execute(reports_query):
                by_game.setdefault(game_id, []).append(ReportRecord(name, reason, at))
        return [(game, by_game.get(game.id, [])) for game in games]
