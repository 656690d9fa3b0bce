"""Fair-play records: each human daily's screening, the review queue (results held, and
each day's leaders), the reviewers' decisions with their audit trail, and each account's
evidence across days.

A human's daily is off every board (``games.held``) until its screening passes it, and its
screening puts it on the public board or on the new players' board (``games.newcomer``); a
held one waits for a reviewer, who clears it (ranked, and verified) or confirms it (kept off,
and the account flagged so that its later dailies are held too). The top results of each
human board join the queue while staying on their board (``queued``); cleared, they show as
verified. The store checks its callers' arguments; these are the queries behind
:class:`server.store.Store`'s fair-play methods.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa

from server.kinds import DayBoard
from server.store.database import Database
from server.store.errors import StoreError
from server.store.models import (
    IS_DAILY,
    LEADERBOARD_KEY,
    ON_BOARD,
    AccountTrust,
    FairPlay,
    GameRow,
    Player,
    ReviewAudit,
    board_params,
)
from server.store.records import (
    CLEARED,
    CONFIRMED,
    HELD,
    OFF_THE_BOARD,
    PASSED,
    QUEUED,
    Decision,
    FairPlayRecord,
    GameRecord,
    ReviewStatus,
    TrustRecord,
    record_of,
)

from .queries import GAMES_WITH_PLAYERS, game_record

#: The statuses of the review queue: held off the board, or a leader checked on it.
IN_QUEUE = (HELD, QUEUED)


def fair_play_record(row: FairPlay) -> FairPlayRecord:
    # copies: a record never shares a list or dict with a session's object
    return record_of(FairPlayRecord, row, reasons=list(row.reasons), evidence=dict(row.evidence))


class FairPlayRecords:
    """Screenings and reviews in the database."""

    def __init__(self, database: Database) -> None:
        self._database = database

    async def record(
        self,
        game_id: str,
        status: ReviewStatus,
        reasons: list[str],
        evidence: dict[str, Any],
        at: datetime,
        newcomer: bool = False,
    ) -> FairPlayRecord:
        """Keep a game's first screening (a second one is ignored), and keep the game off the
        board or put it on (the new players' board if ``newcomer``) as that first screening
        says; return the stored screening. A held result gets its audit line."""
        values = dict(
            game_id=game_id, status=status, reasons=reasons, evidence=evidence, screened_at=at
        )
        async with self._database.sessions.begin() as session:
            inserted = await session.execute(
                self._database.insert(FairPlay)
                .values(**values)
                .on_conflict_do_nothing(index_elements=["game_id"])
            )
            stored = await session.get(FairPlay, game_id)
            assert stored is not None  # inserted or already there, in this transaction
            if inserted.rowcount:  # type: ignore[attr-defined]
                await session.execute(
                    sa.update(GameRow)
                    .where(GameRow.id == game_id)
                    .values(held=stored.status in OFF_THE_BOARD, newcomer=newcomer),
                    execution_options={"synchronize_session": False},
                )
                if status == HELD:
                    note = "; ".join(reasons)
                    session.add(ReviewAudit(game_id=game_id, decision=HELD, note=note, at=at))
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

    async def held(
        self, statuses: tuple[str, ...] = (HELD,)
    ) -> list[tuple[GameRecord, FairPlayRecord]]:
        """Results of these statuses (held for review), oldest first, with their screening."""
        query = (
            GAMES_WITH_PLAYERS.add_columns(FairPlay)
            .join(FairPlay, FairPlay.game_id == GameRow.id)
            .where(FairPlay.status.in_(statuses))
            .order_by(FairPlay.screened_at, GameRow.id)
        )
        async with self._database.reads() as session:
            rows = list(await session.execute(query))
        return [(game_record(game, name), fair_play_record(row)) for game, name, row in rows]

    async def decide(
        self, game_id: str, decision: Decision, note: str | None, at: datetime
    ) -> None:
        """Record a reviewer's ``cleared`` or ``confirmed`` on a result in the review queue
        (held, or a leader's), with its audit row, in one transaction; :class:`StoreError`
        if the game is not in the queue. Cleared, the result is verified."""
        async with self._database.sessions.begin() as session:
            screened = await session.get(FairPlay, game_id)
            if screened is None or screened.status not in IN_QUEUE:
                raise StoreError(f"game {game_id!r} is not held for review")
            screened.status = decision
            screened.reviewed_at = at
            game = await session.get(GameRow, game_id)
            assert game is not None  # the foreign key holds
            game.held = decision == CONFIRMED
            game.verified = decision == CLEARED
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

    async def queue_leaders(self, board: DayBoard, *, top: int, at: datetime) -> list[str]:
        """Put the ``top`` results of a human board that passed their screening into the
        review queue (they stay on the board), each with an audit line; the ids queued (a
        bot's result has no screening, so none of the bots' board)."""
        leaders = sa.select(GameRow.id).where(*ON_BOARD).order_by(*LEADERBOARD_KEY).limit(top)
        named = "new players'" if board.kind == "new" else "public"
        queued = []
        async with self._database.sessions.begin() as session:
            ids = list((await session.scalars(leaders, board_params(board))).all())
            for rank, game_id in enumerate(ids, start=1):
                changed = await session.execute(
                    sa.update(FairPlay)
                    .where(FairPlay.game_id == game_id, FairPlay.status == PASSED)
                    .values(status=QUEUED),
                    execution_options={"synchronize_session": False},
                )
                if changed.rowcount:  # type: ignore[attr-defined]
                    note = f"rank {rank} on the {named} board of {board.day} ({board.suits} suits)"
                    session.add(ReviewAudit(game_id=game_id, decision=QUEUED, note=note, at=at))
                    queued.append(game_id)
        return queued

    async def account_dailies(self, player_id: int) -> list[tuple[GameRecord, FairPlayRecord]]:
        """The account's screened dailies, oldest day first, with their screening."""
        query = (
            GAMES_WITH_PLAYERS.add_columns(FairPlay)
            .join(FairPlay, FairPlay.game_id == GameRow.id)
            .where(GameRow.player_id == player_id, IS_DAILY)
            .order_by(GameRow.day, GameRow.suits, GameRow.id)
        )
        async with self._database.reads() as session:
            rows = list(await session.execute(query))
        return [(game_record(game, name), fair_play_record(row)) for game, name, row in rows]

    async def trust(self, player_ids: list[int]) -> dict[int, TrustRecord]:
        """The accounts' evidence across days, for those that have any."""
        if not player_ids:
            return {}
        query = sa.select(AccountTrust).where(AccountTrust.player_id.in_(player_ids))
        async with self._database.reads() as session:
            rows = list((await session.scalars(query)).all())
        return {
            row.player_id: record_of(
                TrustRecord, row, reasons=list(row.reasons), evidence=dict(row.evidence)
            )
            for row in rows
        }

    async def put_trust(self, record: TrustRecord) -> None:
        """Keep an account's evidence across days (replacing what was there). One
        statement: two of the account's dailies screened at once (on two nodes, or a
        screening and the catch-up) each write theirs, the later one standing."""
        values = dict(
            suspicion=record.suspicion,
            reasons=list(record.reasons),
            evidence=dict(record.evidence),
            updated_at=record.updated_at,
        )
        upsert = self._database.insert(AccountTrust).values(player_id=record.player_id, **values)
        async with self._database.sessions.begin() as session:
            await session.execute(
                upsert.on_conflict_do_update(index_elements=["player_id"], set_=values)
            )
