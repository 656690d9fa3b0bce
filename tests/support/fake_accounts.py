"""The in-memory store's accounts part: credentials, passkeys, recovery codes, terminal
codes, an account's data and its deletion (:class:`server.store.api.CredentialStore` and
``AccountDataStore``, as :class:`~tests.support.fakes.FakeStore` has them)."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from server.store import CredentialRecord, DeviceCodeRecord, PasskeyRecord, PlayerRecord


class FakeAccounts:
    players: dict[int, tuple[PlayerRecord, str]]

    def __init__(self) -> None:
        self.credentials: dict[int, tuple[CredentialRecord, str]] = {}
        self.passkeys: dict[int, PasskeyRecord] = {}
        self.recovery: dict[str, int] = {}
        self.device_codes: dict[str, DeviceCodeRecord] = {}
        self._ids = itertools.count(1)

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
        made = CredentialRecord(next(self._ids), player_id, kind, label, now, address, now, address)
        self.credentials[made.id] = (made, secret_hash)
        return made

    async def signed_in_by(
        self, *, secret_hash: str, now: datetime, address: str
    ) -> tuple[PlayerRecord, CredentialRecord] | None:
        for credential, hashed in self.credentials.values():
            if hashed == secret_hash:
                return self.players[credential.player_id][0], credential
        return None

    async def credentials_of(self, player_id: int) -> list[CredentialRecord]:
        return [c for c, _ in self.credentials.values() if c.player_id == player_id]

    async def revoke_credentials(
        self, *, player_id: int, ids: Sequence[int] | None = None, keep: int | None = None
    ) -> list[int]:
        gone = [
            c.id
            for c, _ in self.credentials.values()
            if c.player_id == player_id
            and (c.id in ids if ids is not None else keep is None or c.id != keep)
        ]
        for credential_id in gone:
            del self.credentials[credential_id]
        return sorted(gone)

    async def replace_credential(
        self, *, player_id: int, credential_id: int, secret_hash: str, now: datetime, address: str
    ) -> CredentialRecord | None:
        old = self.credentials.pop(credential_id, None)
        if old is None or old[0].player_id != player_id:
            return None
        return await self.add_credential(
            player_id=player_id,
            kind="rotation",
            label=old[0].label,
            secret_hash=secret_hash,
            now=now,
            address=address,
        )

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
        made = PasskeyRecord(
            next(self._ids), player_id, credential_id, public_key, sign_count, name, now, None
        )
        self.passkeys[made.id] = made
        return made

    async def passkeys_of(self, player_id: int) -> list[PasskeyRecord]:
        return [p for p in self.passkeys.values() if p.player_id == player_id]

    async def passkey_by_credential_id(self, credential_id: str) -> PasskeyRecord | None:
        return next((p for p in self.passkeys.values() if p.credential_id == credential_id), None)

    async def passkey_used(self, *, passkey_id: int, sign_count: int, now: datetime) -> None:
        self.passkeys[passkey_id] = dataclasses.replace(
            self.passkeys[passkey_id], sign_count=sign_count, last_used_at=now
        )

    async def remove_passkey(self, *, player_id: int, passkey_id: int) -> bool:
        found = self.passkeys.get(passkey_id)
        if found is None or found.player_id != player_id:
            return False
        del self.passkeys[passkey_id]
        return True

    async def replace_recovery_codes(
        self, *, player_id: int, code_hashes: Sequence[str], now: datetime
    ) -> None:
        self.recovery = {h: p for h, p in self.recovery.items() if p != player_id}
        self.recovery.update(dict.fromkeys(code_hashes, player_id))

    async def recovery_codes_left(self, player_id: int) -> int:
        return sum(1 for p in self.recovery.values() if p == player_id)

    async def spend_recovery_code(self, code_hash: str) -> int | None:
        return self.recovery.pop(code_hash, None)

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
        self.device_codes[device_code_hash] = DeviceCodeRecord(
            user_code, label, now, address, expires_at, None
        )

    def _by_user_code(self, user_code: str) -> tuple[str, DeviceCodeRecord] | None:
        return next(
            ((h, r) for h, r in self.device_codes.items() if r.user_code == user_code), None
        )

    async def device_code(self, user_code: str) -> DeviceCodeRecord | None:
        found = self._by_user_code(user_code)
        return None if found is None else found[1]

    async def approve_device_code(self, *, user_code: str, player_id: int, now: datetime) -> bool:
        found = self._by_user_code(user_code)
        if found is None or found[1].player_id is not None or found[1].denied:
            return False
        if found[1].expires_at <= now:
            return False
        self.device_codes[found[0]] = dataclasses.replace(found[1], player_id=player_id)
        return True

    async def deny_device_code(self, user_code: str) -> bool:
        found = self._by_user_code(user_code)
        if found is None or found[1].player_id is not None or found[1].denied:
            return False
        self.device_codes[found[0]] = dataclasses.replace(found[1], denied=True)
        return True

    async def device_code_by_hash(
        self, device_code_hash: str, *, claim: bool
    ) -> DeviceCodeRecord | None:
        found = self.device_codes.get(device_code_hash)
        if claim and found is not None and found.player_id is not None:
            del self.device_codes[device_code_hash]
        return found

    async def account_data(self, player_id: int) -> dict[str, Any] | None:
        found = self.players.get(player_id)
        if found is None:
            return None
        return {
            "account": dataclasses.asdict(found[0]),
            "credentials": [dataclasses.asdict(c) for c in await self.credentials_of(player_id)],
        }

    async def delete_account(self, *, player_id: int, anonymous_name: str, now: datetime) -> bool:
        found = self.players.get(player_id)
        if found is None:
            return False
        await self.revoke_credentials(player_id=player_id)
        self.passkeys = {k: p for k, p in self.passkeys.items() if p.player_id != player_id}
        self.recovery = {h: p for h, p in self.recovery.items() if p != player_id}
        self.players[player_id] = (
            dataclasses.replace(found[0], name=anonymous_name, language=None, settings=None),
            found[1],
        )
        return True
