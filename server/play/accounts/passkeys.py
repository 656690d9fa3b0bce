"""Passkeys (WebAuthn), through the ``webauthn`` library: added to an account signed in,
then signing it in on any device, even after the browser's data is cleared.

The relying party is the server's public host: ``SIMON_PUBLIC_URL``'s when it is set, else
the origin of the page that opened the websocket (which the handshake has checked is the
server's own). Browsers take passkeys only on ``https`` pages or ``localhost``, and never
for an IP address. Each ceremony's challenge is the connection's, good for five minutes and
for one answer. Passkeys are discoverable (resident): signing in asks for no name.
"""

from __future__ import annotations

import base64
import contextlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

import webauthn
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from server.play.clock import Clock
from server.play.errors import Refused
from server.protocol import ErrorCode
from server.store import AccountStore, PasskeyRecord, PlayerRecord

from .accounts import Accounts, SignedIn

#: What a browser shows as the passkey's site.
RP_NAME = "Simple Simon Online"
#: How long a ceremony's challenge is good for.
CHALLENGE_SECONDS = 300.0
#: The most passkeys an account keeps.
MAX_PASSKEYS = 20
#: The most characters of a credential's JSON taken (a passkey's answer is about 1-2 KB).
MAX_CREDENTIAL_JSON = 16_384

Purpose = Literal["add", "sign_in"]


@dataclass(frozen=True)
class Challenge:
    """A ceremony under way on one connection."""

    purpose: Purpose
    challenge: bytes
    origin: str
    rp_id: str
    expires: float  # time.monotonic()


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


class Passkeys:
    def __init__(
        self,
        store: AccountStore,
        accounts: Accounts,
        clock: Clock,
        public_url: str = "",
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._accounts = accounts
        self._clock = clock
        self._public = public_url.strip()
        self._monotonic = monotonic

    def _party(self, page_origin: str | None) -> tuple[str, str]:
        """The expected origin and relying party id, or refused where passkeys cannot be."""
        origin = self._public or (page_origin or "")
        parts = urlsplit(origin)
        host = parts.hostname or ""
        if not host or host.replace(".", "").isdigit() or ":" in host:
            raise Refused(
                ErrorCode.PASSKEY_FAILED,
                "passkeys work on the server's named address (https, or localhost), not from here",
            )
        return f"{parts.scheme}://{parts.netloc}", host

    async def options(
        self, purpose: Purpose, player: PlayerRecord | None, page_origin: str | None
    ) -> tuple[dict[str, Any], Challenge]:
        origin, rp_id = self._party(page_origin)
        if purpose == "add":
            assert player is not None
            kept = await self._store.passkeys_of(player.id)
            if len(kept) >= MAX_PASSKEYS:
                raise Refused(
                    ErrorCode.PASSKEY_FAILED,
                    "an account keeps at most %(count)s passkeys: remove one first",
                    params={"count": MAX_PASSKEYS},
                )
            options: Any = webauthn.generate_registration_options(
                rp_id=rp_id,
                rp_name=RP_NAME,
                user_id=str(player.id).encode(),
                user_name=player.name,
                user_display_name=player.name,
                authenticator_selection=AuthenticatorSelectionCriteria(
                    resident_key=ResidentKeyRequirement.REQUIRED,
                    user_verification=UserVerificationRequirement.PREFERRED,
                ),
                exclude_credentials=[
                    PublicKeyCredentialDescriptor(id=webauthn.base64url_to_bytes(p.credential_id))
                    for p in kept
                ],
            )
        else:
            options = webauthn.generate_authentication_options(
                rp_id=rp_id, user_verification=UserVerificationRequirement.PREFERRED
            )
        challenge = Challenge(
            purpose, options.challenge, origin, rp_id, self._monotonic() + CHALLENGE_SECONDS
        )
        return json.loads(webauthn.options_to_json(options)), challenge

    def _fresh(self, challenge: Challenge | None, purpose: Purpose) -> Challenge:
        if (
            challenge is None
            or challenge.purpose != purpose
            or challenge.expires <= self._monotonic()
        ):
            raise Refused(ErrorCode.PASSKEY_FAILED, "the passkey's request expired: try again")
        return challenge

    async def add(
        self,
        player: PlayerRecord,
        name: str,
        credential: dict[str, Any],
        challenge: Challenge | None,
    ) -> PasskeyRecord:
        asked = self._fresh(challenge, "add")
        _check_size(credential)
        with _verifying():
            verified = webauthn.verify_registration_response(
                credential=credential,
                expected_challenge=asked.challenge,
                expected_rp_id=asked.rp_id,
                expected_origin=asked.origin,
            )
        credential_id = _b64url(verified.credential_id)
        if await self._store.passkey_by_credential_id(credential_id) is not None:
            raise Refused(ErrorCode.PASSKEY_FAILED, "this passkey is on an account already")
        return await self._store.add_passkey(
            player_id=player.id,
            credential_id=credential_id,
            public_key=verified.credential_public_key,
            sign_count=verified.sign_count,
            name=name,
            now=self._clock.now(),
        )

    async def sign_in(
        self,
        credential: dict[str, Any],
        challenge: Challenge | None,
        *,
        device: str,
        address: str,
    ) -> SignedIn:
        asked = self._fresh(challenge, "sign_in")
        _check_size(credential)
        raw_id = credential.get("rawId") or credential.get("id")
        passkey = (
            await self._store.passkey_by_credential_id(raw_id) if isinstance(raw_id, str) else None
        )
        if passkey is None:
            raise Refused(ErrorCode.PASSKEY_FAILED, "this passkey signs nobody in here")
        with _verifying():
            verified = webauthn.verify_authentication_response(
                credential=credential,
                expected_challenge=asked.challenge,
                expected_rp_id=asked.rp_id,
                expected_origin=asked.origin,
                credential_public_key=passkey.public_key,
                credential_current_sign_count=passkey.sign_count,
            )
        now = self._clock.now()
        await self._store.passkey_used(
            passkey_id=passkey.id, sign_count=verified.new_sign_count, now=now
        )
        player = await self._store.player_by_id(passkey.player_id)
        if player is None:
            raise Refused(ErrorCode.PASSKEY_FAILED, "this passkey signs nobody in here")
        return await self._accounts.new_credential(
            player, kind="passkey", device=device or passkey.name, address=address
        )

    async def remove(self, player: PlayerRecord, passkey_id: int) -> None:
        if not await self._store.remove_passkey(player_id=player.id, passkey_id=passkey_id):
            raise Refused(ErrorCode.NOT_FOUND, "the account has no such passkey")


@contextlib.contextmanager
def _verifying() -> Iterator[None]:
    """The library's refusal of a passkey's answer, as ours (``passkey-failed``, saying why)."""
    try:
        yield
    except (WebAuthnException, ValueError, KeyError, TypeError) as error:
        raise Refused(
            ErrorCode.PASSKEY_FAILED,
            "the passkey did not verify: %(why)s",
            params={"why": str(error)[:200]},
        ) from None


def _check_size(credential: dict[str, Any]) -> None:
    if len(json.dumps(credential)) > MAX_CREDENTIAL_JSON:
        raise Refused(ErrorCode.PASSKEY_FAILED, "the passkey's answer is too long")
