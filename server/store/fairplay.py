"""Fair-play records: each human daily's screening, the results held for review, and the
reviewers' decisions with their audit trail.

A human's daily is off the public board (``games.held``) until its screening passes it; a held
one waits for a reviewer, who clears it (ranked) or confirms it (kept off, and the account
flagged so that its later dailies are held too). The store checks its callers' arguments;
these are the queries behind :class:`server.store.Store`'s fair-play methods.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa

from server.store.database import Database
from server.store.errors import StoreError
from server.store.games import GAMES_WITH_PLAYERS, game_record
from server.store.models import IS_DAILY, FairPlay, GameRow, Player, ReviewAudit
from server.store.records import (
    CONFIRMED,
    HELD,
    OFF_THE_BOARD,
    FairPlayRecord,
    GameRecord,
    record_of,
)


def fair_play_record(row: FairPlay) -> FairPlayRecord:
    # copies: a record never shares a list or dict with a session's object
    return record_of(FairPlayRecord, row, reasons=list(row.reasons), evidence=dict(row.evidence))


class FairPlayRecords:
    """Screenings and reviews in the database."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def record(
        self, game_id: str, status: str, reasons: list[str], evidence: dict[str, Any], at: datetime
    ) -> FairPlayRecord:
        """Keep a game's first screening (a second one is ignored), and keep the game off the
        board or put it on as that first screening says; return the stored screening."""
        values = dict(
            game_id=game_id, status=status, reasons=reasons, evidence=evidence, screened_at=at
        )
        async with self._database.sessions.begin() as session:
            await session.execute(
                self._database.insert(FairPlay)
                .values(**values)
                .on_conflict_do_nothing(index_elements=["game_id"])
            )
            stored = await session.get(FairPlay, game_id)
            assert stored is not None  # inserted or already there, in this transaction
            await session.execute(
                sa.update(GameRow)
                .where(GameRow.id == game_id)
                .values(held=stored.status in OFF_THE_BOARD),
                execution_options={"synchronize_session": False},
            )
        return fair_play_record(stored)

    async def unscreened(self) -> list[str]:
        """Finished human dailies with no screening yet, oldest first."""
        query = (
            sa.select(GameRow.id)
            .outerjoin(FairPlay, FairPlay.game_id == GameRow.id)
            .where(
                IS_DAILY,
                GameRow.finished_at.is_not(None),
                GameRow.held,
                FairPlay.game_id.is_(None),
            )
            .order_by(GameRow.finished_at)
        )
        async with self._database.reads() as session:
            return list((await session.scalars(query)).all())

    async def get(self, game_id: str) -> FairPlayRecord | None:
        async with self._database.reads() as session:
            row = await session.get(FairPlay, game_id)
        return None if row is None else fair_play_record(row)

    async def held(self) -> list[tuple[GameRecord, FairPlayRecord]]:
        """Results held for review, oldest first, with their screening."""
        query = (
            GAMES_WITH_PLAYERS.add_columns(FairPlay)
            .join(FairPlay, FairPlay.game_id == GameRow.id)
            .where(FairPlay.status == HELD)
            .order_by(FairPlay.screened_at, GameRow.id)
        )
        async with self._database.reads() as session:
            rows = list(await session.execute(query))
        return [(game_record(game, name), fair_play_record(row)) for game, name, row in rows]

    async def decide(self, game_id: str, decision: str, note: str | None, at: datetime) -> None:
        """Record a reviewer's ``cleared`` or ``confirmed`` on a held result, with its audit
        row, in one transaction; :class:`StoreError` if the game is not held for review."""
        async with self._database.sessions.begin() as session:
            screened = await session.get(FairPlay, game_id)
            if screened is None or screened.status != HELD:
                raise StoreError(f"game {game_id!r} is not held for review")
            screened.status = decision
            screened.reviewed_at = at
            game = await session.get(GameRow, game_id)
            assert game is not None  # the foreign key holds
            game.held = decision == CONFIRMED
            if decision == CONFIRMED:
                await session.execute(
                    sa.update(Player).where(Player.id == game.player_id).values(flagged=True)
                )
            session.add(ReviewAudit(game_id=game_id, decision=decision, note=note, at=at))

    async def audit(self, game_id: str) -> list[tuple[str, str | None, datetime]]:
        """The review decisions on a game, oldest first: (decision, note, when)."""
        query = (
            sa.select(ReviewAudit.decision, ReviewAudit.note, ReviewAudit.at)
            .where(ReviewAudit.game_id == game_id)
            .order_by(ReviewAudit.id)
        )
        async with self._database.reads() as session:
            return [(row[0], row[1], row[2]) for row in await session.execute(query)]
