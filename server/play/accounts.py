"""Accounts: names, secret tokens and their hashes.

A name is 2 to 24 characters in NFC: the letters of one alphabet, digits, ``_`` and ``-``
(:mod:`server.names`); names are unique regardless of case, and a name that looks like
another's is taken too (the store enforces both). A token is 256 random bits, shown once at
registration; the store keeps only its SHA-256, so a leaked database reveals no token
and changing the server secret logs nobody out.
"""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
from collections.abc import Mapping

from server.i18n import Language
from server.names import name_fault, name_key, normal_name
from server.play.clock import Clock
from server.play.errors import BadName, Refused
from server.protocol import ErrorCode
from server.store import NameTaken, PlayerRecord, PlayerStore


def check_name(name: str) -> str:
    """Return ``name`` as it is kept (stripped of surrounding spaces, in NFC), or raise
    :class:`BadName` with the rule it breaks."""
    name = normal_name(name)
    fault = name_fault(name)
    if fault is not None:
        raise BadName(fault.message, rule=fault.rule, params=fault.params)
    return name


def new_token() -> str:
    """A fresh secret token: 256 random bits, URL-safe text."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Accounts:
    """Registering players and knowing them again by token or by name."""

    def __init__(self, store: PlayerStore, clock: Clock) -> None:
        self._store = store
        self._clock = clock

    async def register(self, name: str, *, bot: bool = False) -> tuple[PlayerRecord, str]:
        """A new account and its token (shown this once)."""
        name = check_name(name)
        token = new_token()
        try:
            player = await self._store.create_player(
                name=name, token_hash=hash_token(token), now=self._clock.now(), bot=bot
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
        return player, token

    async def authenticate(self, token: str) -> PlayerRecord:
        player = await self._store.player_by_token_hash(hash_token(token))
        if player is None:
            raise Refused(ErrorCode.BAD_TOKEN, "no account has that token")
        return player

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
