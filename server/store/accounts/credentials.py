"""An account's credentials, passkeys, recovery codes and terminal sign-in codes:
:class:`~server.store.api.CredentialStore`.

Only hashes of secrets are kept (SHA-256 of 256-bit tokens and 80-bit codes: nothing to
guess offline). What spends a one-time secret (a recovery code, an approved terminal code)
deletes its row and reads it back in one statement (``DELETE ... RETURNING``), so that two
nodes never both spend it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from server.store.boundary import store_boundary
from server.store.database import Database
from server.store.errors import InvalidRequest
from server.store.models import (
    ADDRESS_LENGTH,
    LABEL_LENGTH,
    Credential,
    DeviceCode,
    Passkey,
    Player,
    RecoveryCode,
)
from server.store.records import PlayerRecord, record_of

from .records import CredentialRecord, DeviceCodeRecord, PasskeyRecord

#: A credential's last use is written again only when it is older than this (or the
#: address changed): a sign-in a second writes nothing.
TOUCH_SECONDS = 60.0
#: An expired terminal code is deleted by the next one made after this long.
DEVICE_CODE_KEPT = timedelta(hours=1)

_CREDENTIAL_COLUMNS = [
    getattr(Credential, field.name) for field in dataclasses.fields(CredentialRecord)
]
_PLAYER_COLUMNS = [getattr(Player, field.name) for field in dataclasses.fields(PlayerRecord)]
_SIGNED_IN_BY = (
    sa.select(*_PLAYER_COLUMNS, *(c.label(f"c_{c.key}") for c in _CREDENTIAL_COLUMNS))
    .join(Credential, Credential.player_id == Player.id)
    .where(Credential.secret_hash == sa.bindparam("key"))
)


def _label(text: str) -> str:
    return text[:LABEL_LENGTH]


def _address(text: str) -> str:
    return text[:ADDRESS_LENGTH]


def _credential(row: Any, prefix: str = "") -> CredentialRecord:
    fields = dataclasses.fields(CredentialRecord)
    return CredentialRecord(**{f.name: getattr(row, prefix + f.name) for f in fields})


@store_boundary
class CredentialPart:
    """Credentials, passkeys, recovery codes and terminal codes."""

    _database: Database

    # -- credentials ----------------------------------------------------------------------

    async def add_credential(
        self,
        *,
        player_id: int,
        kind: str,
        label: str,
        secret_hash: str,
        now: datetime,
        address: str,
    ) -> CredentialRecord:
        """A new place the account is signed in, its secret given as its hash."""
        if not secret_hash:
            raise InvalidRequest("empty secret hash")
        async with self._database.engine.begin() as connection:
            return await insert_credential(
                connection,
                player_id=player_id,
                kind=kind,
                label=label,
                secret_hash=secret_hash,
                now=now,
                address=address,
            )

    async def signed_in_by(
        self, *, secret_hash: str, now: datetime, address: str
    ) -> tuple[PlayerRecord, CredentialRecord] | None:
        """The account and credential a secret signs in, its use noted (at most one write a
        minute a credential); None for a secret no credential has (revoked, or never made)."""
        row = await self._database.first(_SIGNED_IN_BY, {"key": secret_hash})
        if row is None:
            return None
        player = record_of(PlayerRecord, row)
        credential = _credential(row, "c_")
        address = _address(address)
        stale = (now - credential.last_used_at).total_seconds() >= TOUCH_SECONDS
        if stale or credential.last_used_from != address:
            async with self._database.engine.begin() as connection:
                await connection.execute(
                    sa.update(Credential)
                    .where(Credential.id == credential.id)
                    .values(last_used_at=now, last_used_from=address)
                )
            credential = dataclasses.replace(credential, last_used_at=now, last_used_from=address)
        return player, credential

    async def credentials_of(self, player_id: int) -> list[CredentialRecord]:
        """Every place the account is signed in, the most recently used first."""
        rows = await self._database.rows(
            sa.select(*_CREDENTIAL_COLUMNS)
            .where(Credential.player_id == sa.bindparam("key"))
            .order_by(Credential.last_used_at.desc(), Credential.id.desc()),
            {"key": player_id},
        )
        return [_credential(row) for row in rows]

    async def revoke_credentials(
        self, *, player_id: int, ids: Sequence[int] | None = None, keep: int | None = None
    ) -> list[int]:
        """Delete the account's credentials ``ids`` (or, with ``ids`` None, all but
        ``keep``): the ids deleted."""
        query = sa.delete(Credential).where(Credential.player_id == player_id)
        if ids is not None:
            query = query.where(Credential.id.in_(list(ids)))
        elif keep is not None:
            query = query.where(Credential.id != keep)
        async with self._database.engine.begin() as connection:
            deleted = await connection.execute(query.returning(Credential.id))
            return sorted(deleted.scalars())

    async def replace_credential(
        self, *, player_id: int, credential_id: int, secret_hash: str, now: datetime, address: str
    ) -> CredentialRecord | None:
        """A new secret in place of credential ``credential_id`` (kind ``rotation``, the
        same label), in one transaction; None if the account has no such credential."""
        async with self._database.engine.begin() as connection:
            old = (
                await connection.execute(
                    sa.delete(Credential)
                    .where(Credential.id == credential_id, Credential.player_id == player_id)
                    .returning(Credential.label)
                )
            ).first()
            if old is None:
                return None
            return await insert_credential(
                connection,
                player_id=player_id,
                kind="rotation",
                label=old.label,
                secret_hash=secret_hash,
                now=now,
                address=address,
            )

    # -- passkeys -------------------------------------------------------------------------

    async def add_passkey(
        self,
        *,
        player_id: int,
        credential_id: str,
        public_key: bytes,
        sign_count: int,
        name: str,
        now: datetime,
    ) -> PasskeyRecord:
        async with self._database.engine.begin() as connection:
            row = (
                await connection.execute(
                    sa.insert(Passkey)
                    .values(
                        player_id=player_id,
                        credential_id=credential_id,
                        public_key=public_key,
                        sign_count=sign_count,
                        name=_label(name),
                        created_at=now,
                    )
                    .returning(*_PASSKEY_COLUMNS)
                )
            ).one()
        return record_of(PasskeyRecord, row)

    async def passkeys_of(self, player_id: int) -> list[PasskeyRecord]:
        rows = await self._database.rows(
            _PASSKEYS.where(Passkey.player_id == sa.bindparam("key")).order_by(Passkey.id),
            {"key": player_id},
        )
        return [record_of(PasskeyRecord, row) for row in rows]

    async def passkey_by_credential_id(self, credential_id: str) -> PasskeyRecord | None:
        row = await self._database.first(
            _PASSKEYS.where(Passkey.credential_id == sa.bindparam("key")), {"key": credential_id}
        )
        return None if row is None else record_of(PasskeyRecord, row)

    async def passkey_used(self, *, passkey_id: int, sign_count: int, now: datetime) -> None:
        async with self._database.engine.begin() as connection:
            await connection.execute(
                sa.update(Passkey)
                .where(Passkey.id == passkey_id)
                .values(sign_count=sign_count, last_used_at=now)
            )

    async def remove_passkey(self, *, player_id: int, passkey_id: int) -> bool:
        async with self._database.engine.begin() as connection:
            gone = await connection.execute(
                sa.delete(Passkey)
                .where(Passkey.id == passkey_id, Passkey.player_id == player_id)
                .returning(Passkey.id)
            )
            return gone.first() is not None

    # -- recovery codes -------------------------------------------------------------------

    async def replace_recovery_codes(
        self, *, player_id: int, code_hashes: Sequence[str], now: datetime
    ) -> None:
        """The account's recovery codes are these now (the old ones spent)."""
        async with self._database.engine.begin() as connection:
            await connection.execute(
                sa.delete(RecoveryCode).where(RecoveryCode.player_id == player_id)
            )
            await connection.execute(
                sa.insert(RecoveryCode),
                [{"code_hash": h, "player_id": player_id, "created_at": now} for h in code_hashes],
            )

    async def recovery_codes_left(self, player_id: int) -> int:
        row = await self._database.first(
            sa.select(sa.func.count())
            .select_from(RecoveryCode)
            .where(RecoveryCode.player_id == sa.bindparam("key")),
            {"key": player_id},
        )
        return int(row[0]) if row is not None else 0

    async def spend_recovery_code(self, code_hash: str) -> int | None:
        """Spend a recovery code: the account it was one of, or None."""
        async with self._database.engine.begin() as connection:
            spent = await connection.execute(
                sa.delete(RecoveryCode)
                .where(RecoveryCode.code_hash == code_hash)
                .returning(RecoveryCode.player_id)
            )
            return spent.scalar()

    # -- terminal sign-in codes -----------------------------------------------------------

    async def add_device_code(
        self,
        *,
        device_code_hash: str,
        user_code: str,
        label: str,
        now: datetime,
        address: str,
        expires_at: datetime,
    ) -> None:
        async with self._database.engine.begin() as connection:
            await connection.execute(
                sa.delete(DeviceCode).where(DeviceCode.expires_at < now - DEVICE_CODE_KEPT)
            )
            await connection.execute(
                sa.insert(DeviceCode).values(
                    device_code_hash=device_code_hash,
                    user_code=user_code,
                    label=_label(label),
                    created_at=now,
                    created_from=_address(address),
                    expires_at=expires_at,
                )
            )

    async def device_code(self, user_code: str) -> DeviceCodeRecord | None:
        row = await self._database.first(
            _DEVICE_CODES.where(DeviceCode.user_code == sa.bindparam("key")), {"key": user_code}
        )
        return None if row is None else record_of(DeviceCodeRecord, row)

    async def approve_device_code(self, *, user_code: str, player_id: int, now: datetime) -> bool:
        """Approve a waiting, unexpired code for the account: whether one was."""
        async with self._database.engine.begin() as connection:
            approved = await connection.execute(
                sa.update(DeviceCode)
                .where(
                    DeviceCode.user_code == user_code,
                    DeviceCode.player_id.is_(None),
                    DeviceCode.denied.is_(False),
                    DeviceCode.expires_at > now,
                )
                .values(player_id=player_id)
                .returning(DeviceCode.user_code)
            )
            return approved.first() is not None

    async def deny_device_code(self, user_code: str) -> bool:
        """Refuse a waiting code: whether one was."""
        async with self._database.engine.begin() as connection:
            denied = await connection.execute(
                sa.update(DeviceCode)
                .where(
                    DeviceCode.user_code == user_code,
                    DeviceCode.player_id.is_(None),
                    DeviceCode.denied.is_(False),
                )
                .values(denied=True)
                .returning(DeviceCode.user_code)
            )
            return denied.first() is not None

    async def device_code_by_hash(
        self, device_code_hash: str, *, claim: bool
    ) -> DeviceCodeRecord | None:
        """The terminal's code; with ``claim``, an approved one is spent as it is read (the
        caller makes the terminal's credential)."""
        if claim:
            async with self._database.engine.begin() as connection:
                row = (
                    await connection.execute(
                        sa.delete(DeviceCode)
                        .where(
                            DeviceCode.device_code_hash == device_code_hash,
                            DeviceCode.player_id.is_not(None),
                        )
                        .returning(*_DEVICE_CODE_COLUMNS)
                    )
                ).first()
            if row is not None:
                return record_of(DeviceCodeRecord, row)
        row = await self._database.first(
            _DEVICE_CODES.where(DeviceCode.device_code_hash == sa.bindparam("key")),
            {"key": device_code_hash},
        )
        return None if row is None else record_of(DeviceCodeRecord, row)


_PASSKEY_COLUMNS = [getattr(Passkey, field.name) for field in dataclasses.fields(PasskeyRecord)]
_PASSKEYS = sa.select(*_PASSKEY_COLUMNS)
_DEVICE_CODE_COLUMNS = [
    getattr(DeviceCode, field.name) for field in dataclasses.fields(DeviceCodeRecord)
]
_DEVICE_CODES = sa.select(*_DEVICE_CODE_COLUMNS)


async def insert_credential(
    connection: AsyncConnection,
    *,
    player_id: int,
    kind: str,
    label: str,
    secret_hash: str,
    now: datetime,
    address: str,
) -> CredentialRecord:
    """A credential made in the caller's transaction (an account's first, with it)."""
    row = (
        await connection.execute(
            sa.insert(Credential)
            .values(
                player_id=player_id,
                kind=kind,
                label=_label(label),
                secret_hash=secret_hash,
                created_at=now,
                created_from=_address(address),
                last_used_at=now,
                last_used_from=_address(address),
            )
            .returning(*_CREDENTIAL_COLUMNS)
        )
    ).one()
    return _credential(row)
