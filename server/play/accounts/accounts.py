"""Accounts: names, and where each is signed in.

A name is 2 to 24 characters in NFC: the letters of one alphabet, digits, ``_`` and ``-``
(:mod:`server.names`); names are unique regardless of case, and a name that looks like
another's is taken too (the store enforces both). Each sign-in (a registration, a passkey,
an approved terminal, a recovery code, a rotated token) makes a credential of its own: a
token shown once, of which the store keeps the hash. Revoking one deletes it and tells
every node (the bus), whose connections signed in by it are signed out at once.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from server.bus import Bus
from server.i18n import Language
from server.names import name_fault, name_key, normal_name
from server.play.clock import Clock
from server.play.errors import BadName, Refused
from server.protocol import ErrorCode
from server.store import (
    AccountStore,
    CredentialRecord,
    NameTaken,
    PasskeyRecord,
    PlayerRecord,
)

from .secrets import hash_token, new_token

log = logging.getLogger(__name__)

#: What a connection signed in by a credential is told when it is revoked.
SignOut = Callable[[], None]


def check_name(name: str) -> str:
    """Return ``name`` as it is kept (stripped of surrounding spaces, in NFC), or raise
    :class:`BadName` with the rule it breaks."""
    name = normal_name(name)
    fault = name_fault(name)
    if fault is not None:
        raise BadName(fault.message, rule=fault.rule, params=fault.params)
    return name


@dataclasses.dataclass(frozen=True)
class SignedIn:
    """An account signed in: by which credential, and that credential's token when it was
    made just now (shown this once)."""

    player: PlayerRecord
    credential: CredentialRecord
    token: str | None = None


@dataclasses.dataclass(frozen=True)
class Devices:
    credentials: list[CredentialRecord]
    passkeys: list[PasskeyRecord]
    recovery_codes_left: int


class Accounts:
    """Registering players, knowing them again by token or by name, and the places each
    is signed in."""

    def __init__(self, store: AccountStore, clock: Clock, bus: Bus) -> None:
        self._store = store
        self._clock = clock
        self._bus = bus
        #: This node's connections by the credential they signed in with.
        self._signed_in: dict[int, set[SignOut]] = {}
        bus.set_revoked_handler(self._revoked)

    async def register(
        self, name: str, *, bot: bool = False, device: str = "", address: str = ""
    ) -> SignedIn:
        """A new account and its first credential (the token shown this once)."""
        name = check_name(name)
        token = new_token()
        try:
            player = await self._store.create_player(
                name=name,
                token_hash=hash_token(token),
                now=self._clock.now(),
                bot=bot,
                label=device,
                address=address,
            )
        except NameTaken as taken:
            if taken.holder is not None and name_key(taken.holder) != name_key(name):
                raise Refused(
                    ErrorCode.NAME_TAKEN,
                    "the name %(name)r is taken: it looks like %(holder)r",
                    params={"name": name, "holder": taken.holder},
                ) from None
            raise Refused(
                ErrorCode.NAME_TAKEN, "the name %(name)r is taken", params={"name": name}
            ) from None
        found = await self._store.signed_in_by(
            secret_hash=hash_token(token), now=player.created_at, address=address
        )
        assert found is not None  # made with the account, in its transaction
        return SignedIn(player, found[1], token)

    async def authenticate(self, token: str, *, address: str = "") -> SignedIn:
        found = await self._store.signed_in_by(
            secret_hash=hash_token(token), now=self._clock.now(), address=address
        )
        if found is None:
            raise Refused(ErrorCode.BAD_TOKEN, "no account has that token")
        return SignedIn(*found)

    async def new_credential(
        self, player: PlayerRecord, *, kind: str, device: str, address: str
    ) -> SignedIn:
        """A new place ``player`` is signed in (a passkey, a terminal, a recovery code)."""
        token = new_token()
        credential = await self._store.add_credential(
            player_id=player.id,
            kind=kind,
            label=device,
            secret_hash=hash_token(token),
            now=self._clock.now(),
            address=address,
        )
        return SignedIn(player, credential, token)

    async def set_language(self, player: PlayerRecord, language: Language) -> None:
        """Keep ``language`` as ``player``'s account's."""
        await self._store.set_language(player_id=player.id, language=language)

    async def set_settings(
        self, player: PlayerRecord, given: Mapping[str, object | None]
    ) -> PlayerRecord:
        """Keep the settings ``given`` on ``player``'s account, beside those it kept already
        (read afresh: another device may have changed them); a setting given as None goes
        back to its default. The account as it is now."""
        now = await self._store.player_by_id(player.id) or player
        settings = {**(now.settings or {}), **given}
        kept = {name: value for name, value in settings.items() if value is not None}
        await self._store.set_settings(player_id=player.id, settings=kept)
        return dataclasses.replace(now, settings=kept)

    async def named(self, name: str) -> PlayerRecord:
        player = await self._store.player_by_name(name)
        if player is None:
            raise Refused(
                ErrorCode.NOT_FOUND, "no player is called %(name)r", params={"name": name}
            )
        return player

    # -- where the account is signed in ---------------------------------------------------

    async def devices(self, player: PlayerRecord) -> Devices:
        return Devices(
            await self._store.credentials_of(player.id),
            await self._store.passkeys_of(player.id),
            await self._store.recovery_codes_left(player.id),
        )

    async def revoke(
        self, player: PlayerRecord, *, ids: Sequence[int] | None = None, keep: int | None = None
    ) -> list[int]:
        """Revoke credentials ``ids`` of ``player``'s (or all but ``keep``): refused from now
        on, and every connection signed in by one, on every node, signed out."""
        revoked = await self._store.revoke_credentials(player_id=player.id, ids=ids, keep=keep)
        if revoked:
            await self._announce(revoked)
        return revoked

    async def rotate(self, player: PlayerRecord, credential_id: int, *, address: str) -> SignedIn:
        """A new token for ``player``'s credential ``credential_id``; the old one is refused
        from now on, and every connection signed in by it signed out (the caller stops
        watching it first)."""
        token = new_token()
        made = await self._store.replace_credential(
            player_id=player.id,
            credential_id=credential_id,
            secret_hash=hash_token(token),
            now=self._clock.now(),
            address=address,
        )
        if made is None:  # revoked meanwhile
            raise Refused(ErrorCode.BAD_TOKEN, "no account has that token")
        await self._announce([credential_id])
        return SignedIn(player, made, token)

    def watch(self, credential_id: int, sign_out: SignOut) -> None:
        """``sign_out`` is called when the credential is revoked (on any node)."""
        self._signed_in.setdefault(credential_id, set()).add(sign_out)

    def unwatch(self, credential_id: int, sign_out: SignOut) -> None:
        watchers = self._signed_in.get(credential_id)
        if watchers is not None:
            watchers.discard(sign_out)
            if not watchers:
                del self._signed_in[credential_id]

    async def _announce(self, revoked: Sequence[int]) -> None:
        try:
            await self._bus.publish_revoked(revoked)
        except Exception:  # the store refuses them anyway: only other nodes' open connections wait
            log.warning("could not tell the other nodes of %d revoked credentials", len(revoked))
            self._revoked(revoked)

    def _revoked(self, credential_ids: Sequence[int]) -> None:
        for credential_id in credential_ids:
            for sign_out in list(self._signed_in.pop(credential_id, ())):
                sign_out()

    # -- the account's data ---------------------------------------------------------------

    async def data(self, player: PlayerRecord) -> dict[str, Any]:
        """Everything the server keeps about ``player``, as JSON."""
        data = await self._store.account_data(player.id)
        if data is None:
            raise Refused(ErrorCode.BAD_TOKEN, "no account has that token")
        return data

    async def delete(self, player: PlayerRecord, *, confirm: str) -> str:
        """Delete ``player``'s account (``confirm`` must be its name): the anonymous name its
        results keep. Every place it was signed in is signed out."""
        if name_key(normal_name(confirm)) != name_key(player.name):
            raise Refused(
                ErrorCode.NOT_CONFIRMED,
                "to delete the account, give its name (%(name)s) to confirm",
                params={"name": player.name},
            )
        credentials = await self._store.credentials_of(player.id)
        anonymous = f"#{secrets.token_hex(4)}"  # no registered name has a "#"
        await self._store.delete_account(
            player_id=player.id, anonymous_name=anonymous, now=self._clock.now()
        )
        await self._announce([credential.id for credential in credentials])
        return anonymous
