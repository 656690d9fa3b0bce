"""An account's data, all of it, taken out as JSON; and an account deleted:
:class:`~server.store.api.AccountDataStore`.

Deleting keeps the account's results on past boards (a board's order does not change
after the day) under an anonymous name, and removes what names the person: the name, every
credential, passkey, recovery code and terminal code, the language and settings.
"""

from __future__ import annotations

import base64
from datetime import date, datetime
from typing import Any

import sqlalchemy as sa

from server.names import look_key, name_key
from server.store.boundary import store_boundary
from server.store.database import Database
from server.store.models import (
    AccountTrust,
    Credential,
    DeviceCode,
    FairPlay,
    GameAction,
    GameRow,
    Passkey,
    Player,
    RaceEntrant,
    RecoveryCode,
    Report,
    ReviewAudit,
    SolverReview,
)

#: The columns an export leaves out: secrets (their hashes) and keys only a server uses.
_SECRET_COLUMNS = frozenset({"secret_hash", "name_key", "look_key", "public_key"})


def _value(value: object) -> object:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes):
        return base64.urlsafe_b64encode(value).decode().rstrip("=")
    return value


def _rows(rows: Any) -> list[dict[str, object]]:
    return [
        {key: _value(value) for key, value in row._mapping.items() if key not in _SECRET_COLUMNS}
        for row in rows
    ]


@store_boundary
class ExportPart:
    """An account's data taken out, or the account deleted."""

    _database: Database

    async def account_data(self, player_id: int) -> dict[str, Any] | None:
        """Everything kept about the account, table by table (secrets' hashes left out);
        None if there is no such account. The games hold their actions."""
        async with self._database.engine.connect() as connection:

            async def rows(query: sa.Select[Any]) -> list[dict[str, object]]:
                return _rows((await connection.execute(query)).all())

            players = await rows(sa.select(Player).where(Player.id == player_id))
            if not players:
                return None
            games = sa.select(GameRow.id).where(GameRow.player_id == player_id)
            actions: dict[str, list[dict[str, object]]] = {}
            for action in await rows(
                sa.select(GameAction)
                .where(GameAction.game_id.in_(games))
                .order_by(GameAction.game_id, GameAction.seq)
            ):
                actions.setdefault(str(action.pop("game_id")), []).append(action)
            played = await rows(
                sa.select(GameRow)
                .where(GameRow.player_id == player_id)
                .order_by(GameRow.started_at)
            )
            for game in played:
                game["actions"] = actions.get(str(game["id"]), [])
            return {
                "account": players[0],
                "credentials": await rows(
                    sa.select(Credential).where(Credential.player_id == player_id)
                ),
                "passkeys": await rows(sa.select(Passkey).where(Passkey.player_id == player_id)),
                "recovery_codes_left": len(
                    await rows(
                        sa.select(RecoveryCode.created_at).where(
                            RecoveryCode.player_id == player_id
                        )
                    )
                ),
                "games": played,
                "fair_play": await rows(sa.select(FairPlay).where(FairPlay.game_id.in_(games))),
                "reviews": await rows(sa.select(ReviewAudit).where(ReviewAudit.game_id.in_(games))),
                "solver_reviews": await rows(
                    sa.select(SolverReview).where(SolverReview.game_id.in_(games))
                ),
                "account_trust": await rows(
                    sa.select(AccountTrust).where(AccountTrust.player_id == player_id)
                ),
                "races": await rows(
                    sa.select(RaceEntrant).where(RaceEntrant.player_id == player_id)
                ),
                "reports_made": await rows(sa.select(Report).where(Report.player_id == player_id)),
            }

    async def delete_account(self, *, player_id: int, anonymous_name: str, now: datetime) -> bool:
        """Delete the account's personal data and every way to sign in as it; its games and
        results stay, under ``anonymous_name``. Whether there was such an account."""
        async with self._database.engine.begin() as connection:
            for table in (Credential, Passkey, RecoveryCode, DeviceCode):
                await connection.execute(sa.delete(table).where(table.player_id == player_id))
            deleted = await connection.execute(
                sa.update(Player)
                .where(Player.id == player_id, Player.deleted_at.is_(None))
                .values(
                    name=anonymous_name,
                    name_key=name_key(anonymous_name),
                    look_key=look_key(anonymous_name),
                    language=None,
                    settings=None,
                    deleted_at=now,
                )
                .returning(Player.id)
            )
            return deleted.first() is not None
