"""Signing in without a token: a recovery code, or a terminal's code approved at ``/play``
(the shape of RFC 8628's device authorization, over the websocket).

A terminal asks for a code (``device_code``): it gets a secret device code to poll with and
a short user code, which its player approves at ``/play?code=...``, signed in. Polling
(``device_token``) answers ``authorization-pending`` until then, ``slow-down`` when sooner
than the interval, ``expired-token`` after ten minutes or once spent, ``access-denied`` if
the player refused; once approved, the first poll spends the code and gets a credential of
its own. Each code is for one sign-in.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from server.play.clock import Clock
from server.play.errors import Refused
from server.protocol import ErrorCode
from server.store import AccountStore, DeviceCodeRecord, PlayerRecord

from .accounts import Accounts, SignedIn
from .secrets import (
    hash_token,
    new_recovery_code,
    new_token,
    new_user_code,
    recovery_code_key,
    user_code_key,
)

#: Recovery codes made at a time.
RECOVERY_CODES = 10
#: How long a terminal's code waits for its approval.
DEVICE_CODE_SECONDS = 600
#: The least seconds between a terminal's polls; ``slow-down`` adds 5 to it (RFC 8628).
POLL_SECONDS = 5
#: The polls of this node's codes remembered (the most recent): older ones are forgotten.
_POLLS_KEPT = 10_000


@dataclass(frozen=True)
class DeviceAuthorization:
    device_code: str
    user_code: str
    expires_in: int
    interval: int


class SignIns:
    """Recovery codes, and terminals' sign-in codes."""

    def __init__(
        self,
        store: AccountStore,
        accounts: Accounts,
        clock: Clock,
    ) -> None:
        self._store = store
        self._accounts = accounts
        self._clock = clock
        #: When each device code (its hash) last polled, and its interval now.
        self._polls: dict[str, tuple[float, int]] = {}

    # -- recovery codes -------------------------------------------------------------------

    async def new_recovery_codes(self, player: PlayerRecord) -> list[str]:
        """Ten new codes, shown this once; the account's earlier ones are spent."""
        codes = [new_recovery_code() for _ in range(RECOVERY_CODES)]
        await self._store.replace_recovery_codes(
            player_id=player.id,
            code_hashes=[hash_token(recovery_code_key(code)) for code in codes],
            now=self._clock.now(),
        )
        return codes

    async def recover(self, code: str, *, device: str, address: str) -> SignedIn:
        """Sign in by a recovery code, spending it."""
        player_id = await self._store.spend_recovery_code(hash_token(recovery_code_key(code)))
        player = None if player_id is None else await self._store.player_by_id(player_id)
        if player is None:
            raise Refused(ErrorCode.BAD_CODE, "that recovery code signs nobody in")
        return await self._accounts.new_credential(
            player, kind="recovery", device=device, address=address
        )

    # -- terminals' codes -----------------------------------------------------------------

    async def start(self, *, device: str, address: str) -> DeviceAuthorization:
        device_code = new_token()
        now = self._clock.now()
        for _ in range(5):  # a user code already waiting is drawn again
            user_code = new_user_code()
            if await self._store.device_code(user_code) is None:
                break
        await self._store.add_device_code(
            device_code_hash=hash_token(device_code),
            user_code=user_code,
            label=device,
            now=now,
            address=address,
            expires_at=now + timedelta(seconds=DEVICE_CODE_SECONDS),
        )
        return DeviceAuthorization(device_code, user_code, DEVICE_CODE_SECONDS, POLL_SECONDS)

    async def waiting(self, user_code: str) -> DeviceCodeRecord:
        """The terminal waiting with ``user_code`` (to show before it is approved)."""
        found = await self._store.device_code(user_code_key(user_code))
        now = self._clock.now()
        if found is None or found.expires_at <= now or found.player_id is not None or found.denied:
            raise Refused(ErrorCode.BAD_CODE, "no terminal is waiting with that code")
        return found

    async def decide(self, player: PlayerRecord, user_code: str, *, approve: bool) -> None:
        key = user_code_key(user_code)
        if approve:
            done = await self._store.approve_device_code(
                user_code=key, player_id=player.id, now=self._clock.now()
            )
        else:
            done = await self._store.deny_device_code(key)
        if not done:
            raise Refused(ErrorCode.BAD_CODE, "no terminal is waiting with that code")

    async def poll(self, device_code: str, *, address: str) -> SignedIn:
        """The terminal's poll: its credential once approved, else a refusal saying why not."""
        key = hash_token(device_code)
        self._paced(key)
        found = await self._store.device_code_by_hash(key, claim=True)
        if found is None:
            self._polls.pop(key, None)
            raise Refused(
                ErrorCode.EXPIRED_TOKEN, "this sign-in code has expired or was used: start again"
            )
        if found.expires_at <= self._clock.now():
            self._polls.pop(key, None)
            raise Refused(
                ErrorCode.EXPIRED_TOKEN, "this sign-in code has expired or was used: start again"
            )
        if found.denied:
            self._polls.pop(key, None)
            raise Refused(ErrorCode.ACCESS_DENIED, "the sign-in was refused")
        if found.player_id is None:
            raise Refused(ErrorCode.AUTHORIZATION_PENDING, "waiting for the player's approval")
        self._polls.pop(key, None)
        player = await self._store.player_by_id(found.player_id)
        if player is None:
            raise Refused(ErrorCode.ACCESS_DENIED, "the sign-in was refused")
        return await self._accounts.new_credential(
            player, kind="terminal", device=found.label, address=address
        )

    def _paced(self, key: str) -> None:
        """Refuse ``slow-down`` a poll sooner than its interval (which grows by 5 s)."""
        now = self._clock.now().timestamp()  # the wall's, as the code's expiry
        last, interval = self._polls.get(key, (None, POLL_SECONDS))
        if last is not None and now - last < interval - 0.5:  # a little early is on time
            self._polls[key] = (now, interval + 5)
            raise Refused(
                ErrorCode.SLOW_DOWN,
                "polled too soon: wait %(seconds)s seconds between polls",
                params={"seconds": interval + 5},
                retry_after=interval + 5,
            )
        if len(self._polls) >= _POLLS_KEPT:
            self._polls.pop(next(iter(self._polls)))
        self._polls[key] = (now, interval)
