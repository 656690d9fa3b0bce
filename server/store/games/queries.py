"""Games in the database: started, looked up, and read back with their action logs.

The action log itself is written only through :mod:`server.store.action_log`; here it is
read: one game's whole log (what rebuilds the game on any node), every finished game's (what
``simon-server verify`` replays), and a player's finished games with their figures. The store
checks its callers' arguments; these are the queries behind :class:`server.store.Store`'s
game methods.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from server.engine.actions import END_ACTIONS, RESTART, UNDO
from server.kinds import Result
from server.store.database import Database
from server.store.errors import AttemptExists, StoreError
from server.store.models import IS_DAILY, GameAction, GameRow, Player, Race, RaceEntrant
from server.store.records import (
    GameInProgress,
    GameLog,
    GameRecord,
    LogEntry,
    PlayerHistory,
    record_of,
)

#: A log entry's columns, in :class:`LogEntry`'s order.
_LOG_COLUMNS = tuple(getattr(GameAction, name) for name in LogEntry._fields)


#: Games with their player's name: what :func:`game_record` reads.
GAMES_WITH_PLAYERS = sa.select(GameRow, Player.name).join(Player, Player.id == GameRow.player_id)

# The hot reads and writes of a game's start and resume, prebuilt and run in Core: ORM rows
# cost several times the statement itself there (a game's start took 5 ms of CPU).
#: A game's columns with its player's name: a :class:`GameRecord`'s fields, by name.
_GAME_RECORDS = sa.select(*GameRow.__table__.columns, Player.name.label("player_name")).join(
    Player, Player.id == GameRow.player_id
)
_GAME_BY_ID = _GAME_RECORDS.where(GameRow.id == sa.bindparam("game_id"))
_DAILY_ATTEMPT = _GAME_RECORDS.where(
    GameRow.player_id == sa.bindparam("player_id"),
    GameRow.day == sa.bindparam("day"),
    GameRow.suits == sa.bindparam("suits"),
    IS_DAILY,
)
_OWNER = sa.select(Player.name, Player.bot).where(Player.id == sa.bindparam("player_id"))
#: What a new game's row is given: all but its result, NULL until it ends.
_START_COLUMNS = tuple(
    column.key for column in GameRow.__table__.columns if column.key not in Result.model_fields
)
_INSERT_GAME = sa.insert(GameRow)
_LOG = (
    sa.select(*_LOG_COLUMNS)
    .where(GameAction.game_id == sa.bindparam("game_id"))
    .order_by(GameAction.seq)
)
#: The requests a game's log holds after a seq (entries with a client's message id).
_REQUESTS_AFTER = (
    sa.select(*_LOG_COLUMNS)
    .where(
        GameAction.game_id == sa.bindparam("game_id"),
        GameAction.seq > sa.bindparam("after"),
        GameAction.request_id.is_not(None),
    )
    .order_by(GameAction.seq)
)
_LAST_SEQ = sa.select(sa.func.max(GameAction.seq)).where(
    GameAction.game_id == sa.bindparam("game_id")
)


def game_record(game: GameRow | sa.Row[Any], player_name: str | None = None) -> GameRecord:
    """The record of a game's row: an ORM one with its player's name, or a Core row of
    ``_GAME_RECORDS`` (which has the name)."""
    if player_name is None:
        return record_of(GameRecord, game)
    return record_of(GameRecord, game, player_name=player_name)


class GameRecords:
    """Games and their logs, read and started."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def start(self, game: GameRow) -> GameRecord:
        """Insert a new game, a bot's or a human's as its player is (``bot`` and ``held`` are
        set here); a daily already started raises :class:`AttemptExists`, any other clash
        :class:`StoreError`."""
        player_id = game.player_id
        try:
            async with self._database.engine.begin() as connection:
                owner = (await connection.execute(_OWNER, {"player_id": player_id})).first()
                if owner is None:
                    raise StoreError(f"no player has id {player_id}")
                game.bot = owner.bot
                # a human's daily is off the board until its screening passes it
                game.held = game.mode == "daily" and not owner.bot
                game.newcomer = game.verified = False
                values = {name: getattr(game, name) for name in _START_COLUMNS}
                await connection.execute(_INSERT_GAME, values)
        except IntegrityError as error:
            if game.day is not None:
                existing = await self.daily_attempt(player_id, game.day, game.suits)
                if existing is not None:
                    raise AttemptExists(existing) from None
            if await self.get(game.id) is not None:
                raise StoreError(f"a game with id {game.id!r} exists") from None
            raise StoreError(f"no player has id {player_id}") from error
        return game_record(game, owner.name)

    async def get(self, game_id: str) -> GameRecord | None:
        return await self._one(_GAME_BY_ID, {"game_id": game_id})

    async def daily_attempt(self, player_id: int, day: date, suits: int) -> GameRecord | None:
        return await self._one(_DAILY_ATTEMPT, {"player_id": player_id, "day": day, "suits": suits})

    async def _one(self, query: sa.Select[Any], params: dict[str, Any]) -> GameRecord | None:
        row = await self._database.first(query, params)
        return None if row is None else game_record(row)

    async def daily_progress(self, player_id: int, day: date) -> dict[int, bool]:
        query = sa.select(GameRow.suits, GameRow.finished_at.is_not(None)).where(
            IS_DAILY, GameRow.player_id == player_id, GameRow.day == day
        )
        async with self._database.reads() as session:
            return {suits: bool(done) for suits, done in await session.execute(query)}

    async def unfinished_dailies(self, before: date) -> list[str]:
        query = (
            sa.select(GameRow.id)
            .where(IS_DAILY, GameRow.day < before, GameRow.finished_at.is_(None))
            .order_by(GameRow.id)
        )
        async with self._database.reads() as session:
            return list((await session.scalars(query)).all())

    async def load(self, game_id: str) -> GameLog | None:
        game = await self.get(game_id)
        if game is None:
            return None
        entries = [
            LogEntry._make(row) for row in await self._database.rows(_LOG, {"game_id": game_id})
        ]
        if [entry.seq for entry in entries] != list(range(1, len(entries) + 1)):
            raise StoreError(f"the action log of game {game_id!r} has gaps")
        return GameLog(game, entries)

    async def requests_after(self, game_id: str, after: int) -> list[LogEntry]:
        rows = await self._database.rows(_REQUESTS_AFTER, {"game_id": game_id, "after": after})
        return [LogEntry._make(row) for row in rows]

    async def last_seq(self, game_id: str) -> int:
        (newest,) = await self._database.rows(_LAST_SEQ, {"game_id": game_id})
        return int(newest[0] or 0)

    async def history(self, player_id: int, limit: int) -> PlayerHistory:
        finished = sa.and_(GameRow.player_id == player_id, GameRow.finished_at.is_not(None))
        games_query = (
            GAMES_WITH_PLAYERS.where(finished)
            .order_by(GameRow.finished_at.desc(), GameRow.id.desc())
            .limit(limit)
        )
        figures_query = (
            sa.select(
                GameRow.suits,
                sa.func.count(),
                sa.func.sum(sa.case((GameRow.won.is_(True), 1), else_=0)),
                sa.func.max(GameRow.score),
            )
            .where(finished)
            .group_by(GameRow.suits)
        )
        async with self._database.reads() as session:
            games = [game_record(game, name) for game, name in await session.execute(games_query)]
            figures: list[tuple[Any, ...]] = [
                tuple(row) for row in await session.execute(figures_query)
            ]
        return PlayerHistory(
            games=games,
            games_total=sum(row[1] for row in figures),
            won=sum(int(row[2] or 0) for row in figures),
            best_score={row[0]: row[3] for row in figures},
        )

    async def in_progress(
        self, player_id: int, today: date, now: datetime, limit: int
    ) -> list[GameInProgress]:
        games_query = (
            sa.select(
                GameRow.id,
                GameRow.mode,
                GameRow.code,
                GameRow.suits,
                GameRow.day,
                GameRow.started_at,
                RaceEntrant.race_code.label("race"),
            )
            .outerjoin(RaceEntrant, RaceEntrant.game_id == GameRow.id)
            .outerjoin(Race, Race.code == RaceEntrant.race_code)
            .where(
                GameRow.player_id == player_id,
                GameRow.finished_at.is_(None),
                sa.or_(
                    sa.and_(IS_DAILY, GameRow.day == today),
                    sa.and_(GameRow.mode == "practice", RaceEntrant.game_id.is_(None)),
                    # a race's game from its reveal (before it, it cannot be taken up)
                    sa.and_(Race.state == "started", Race.starts_at <= now),
                ),
            )
            .order_by(GameRow.started_at.desc(), GameRow.id.desc())
            .limit(limit)
        )
        async with self._database.reads() as session:
            rows = list(await session.execute(games_query))
            moves = await _moves_of(session, [row.id for row in rows]) if rows else {}
        return [
            GameInProgress(
                id=row.id,
                mode=row.mode,
                code=row.code,
                suits=row.suits,
                day=row.day,
                started_at=row.started_at,
                moves=moves.get(row.id, 0),
                race=row.race,
            )
            for row in rows
        ]

    async def finished(self, batch: int) -> AsyncIterator[GameLog]:
        last: str | None = None
        while True:
            query = GAMES_WITH_PLAYERS.where(GameRow.finished_at.is_not(None))
            if last is not None:
                query = query.where(GameRow.id > last)
            async with self._database.reads() as session:
                page = await session.execute(query.order_by(GameRow.id).limit(batch))
                games = [game_record(game, name) for game, name in page]
                entries: dict[str, list[LogEntry]] = {game.id: [] for game in games}
                logged = await session.execute(
                    sa.select(*_LOG_COLUMNS)
                    .where(GameAction.game_id.in_(list(entries)))
                    .order_by(GameAction.game_id, GameAction.seq)
                )
                for row in logged:
                    entries[row.game_id].append(LogEntry._make(row))
            for game in games:
                yield GameLog(game, entries[game.id])
            if len(games) < batch:
                return
            last = games[-1].id


async def _moves_of(session: AsyncSession, game_ids: list[str]) -> dict[str, int]:
    """The moves of each game as the engine counts them, from its log: a move counts one,
    an undo takes one back, and a restart starts the count again (only what follows a
    game's last restart is counted)."""
    last_restart = (
        sa.select(GameAction.game_id, sa.func.max(GameAction.seq).label("seq"))
        .where(GameAction.game_id.in_(game_ids), GameAction.action == RESTART)
        .group_by(GameAction.game_id)
        .subquery()
    )
    counted = (
        sa.select(
            GameAction.game_id,
            sa.func.sum(
                sa.case(
                    (GameAction.action == UNDO, -1),
                    (GameAction.action.in_(sorted(END_ACTIONS | {RESTART})), 0),
                    else_=1,
                )
            ),
        )
        .outerjoin(last_restart, last_restart.c.game_id == GameAction.game_id)
        .where(
            GameAction.game_id.in_(game_ids),
            GameAction.seq > sa.func.coalesce(last_restart.c.seq, 0),
        )
        .group_by(GameAction.game_id)
    )
    return {game_id: int(total or 0) for game_id, total in await session.execute(counted)}
