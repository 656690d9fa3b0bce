"""Credentials, passkeys, recovery codes and terminal codes in the store, on both backends:
kept as hashes, each one-time secret spent once however many ask at once."""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta

from server.store import Store
from tests.support.store import T0, new_player


async def test_credentials_are_listed_revoked_and_replaced(store: Store) -> None:
    player = await new_player(store)
    other = await new_player(store)
    made = [
        await store.add_credential(
            player_id=player.id,
            kind="terminal",
            label=f"simon {n}",
            secret_hash=uuid.uuid4().hex,
            now=T0 + timedelta(minutes=n),
            address="10.0.0.1",
        )
        for n in range(3)
    ]
    listed = await store.credentials_of(player.id)
    assert [c.id for c in listed][:3] == [c.id for c in reversed(made)]  # latest used first
    assert len(listed) == 4  # and the registration's
    # another account's credential is not this one's to revoke
    assert await store.revoke_credentials(player_id=other.id, ids=[made[0].id]) == []
    assert await store.revoke_credentials(player_id=player.id, ids=[made[0].id]) == [made[0].id]
    new_hash = uuid.uuid4().hex
    rotated = await store.replace_credential(
        player_id=player.id, credential_id=made[1].id, secret_hash=new_hash, now=T0, address="x"
    )
    assert rotated is not None and rotated.kind == "rotation" and rotated.label == "simon 1"
    assert await store.signed_in_by(secret_hash=new_hash, now=T0, address="x") is not None
    kept = await store.revoke_credentials(player_id=player.id, keep=rotated.id)
    assert len(kept) == 2 and rotated.id not in kept
    assert [c.id for c in await store.credentials_of(player.id)] == [rotated.id]


async def test_a_recovery_code_is_spent_once_whoever_asks_at_once(store: Store) -> None:
    player = await new_player(store)
    hashes = [uuid.uuid4().hex for _ in range(10)]
    await store.replace_recovery_codes(player_id=player.id, code_hashes=hashes, now=T0)
    assert await store.recovery_codes_left(player.id) == 10
    spent = await asyncio.gather(*(store.spend_recovery_code(hashes[0]) for _ in range(5)))
    assert sorted(spent, key=str) == [player.id, None, None, None, None]
    assert await store.recovery_codes_left(player.id) == 9
    await store.replace_recovery_codes(player_id=player.id, code_hashes=hashes[:2], now=T0)
    assert await store.spend_recovery_code(hashes[5]) is None  # the old set is gone


async def test_an_approved_terminal_code_is_claimed_once(store: Store) -> None:
    player = await new_player(store)
    device_hash = uuid.uuid4().hex
    user_code = uuid.uuid4().hex[:8].upper()
    await store.add_device_code(
        device_code_hash=device_hash,
        user_code=user_code,
        label="simon on a laptop",
        now=T0,
        address="10.0.0.2",
        expires_at=T0 + timedelta(minutes=10),
    )
    waiting = await store.device_code_by_hash(device_hash, claim=True)
    assert waiting is not None and waiting.player_id is None  # not approved: not spent
    late = T0 + timedelta(minutes=11)
    assert not await store.approve_device_code(user_code=user_code, player_id=player.id, now=late)
    assert await store.approve_device_code(user_code=user_code, player_id=player.id, now=T0)
    assert not await store.deny_device_code(user_code)  # decided already
    claims = await asyncio.gather(
        *(store.device_code_by_hash(device_hash, claim=True) for _ in range(4))
    )
    assert [c.player_id for c in claims if c is not None] == [player.id]


async def test_passkeys_are_kept_by_credential_id_and_removed_by_their_owner(store: Store) -> None:
    player = await new_player(store)
    other = await new_player(store)
    credential_id = uuid.uuid4().hex
    made = await store.add_passkey(
        player_id=player.id,
        credential_id=credential_id,
        public_key=b"\x01\x02",
        sign_count=0,
        name="laptop",
        now=T0,
    )
    found = await store.passkey_by_credential_id(credential_id)
    assert found == made and found.public_key == b"\x01\x02"
    await store.passkey_used(passkey_id=made.id, sign_count=7, now=T0 + timedelta(hours=1))
    used = await store.passkey_by_credential_id(credential_id)
    assert used is not None and used.sign_count == 7 and used.last_used_at is not None
    assert not await store.remove_passkey(player_id=other.id, passkey_id=made.id)
    assert await store.remove_passkey(player_id=player.id, passkey_id=made.id)
    assert await store.passkeys_of(player.id) == []


async def test_deleting_an_account_frees_its_name_and_every_way_in(store: Store) -> None:
    player = await new_player(store)
    token_hash = uuid.uuid4().hex
    await store.add_credential(
        player_id=player.id, kind="terminal", label="t", secret_hash=token_hash, now=T0, address=""
    )
    await store.replace_recovery_codes(player_id=player.id, code_hashes=["r1"], now=T0)
    await store.set_settings(player_id=player.id, settings={"sound": True})
    passkey = uuid.uuid4().hex
    await store.add_passkey(
        player_id=player.id, credential_id=passkey, public_key=b"k", sign_count=0, name="p", now=T0
    )
    data = await store.account_data(player.id)
    assert data is not None and data["account"]["name"] == player.name
    assert data["recovery_codes_left"] == 1 and len(data["credentials"]) == 2
    assert await store.delete_account(player_id=player.id, anonymous_name="#0badf00d", now=T0)
    assert not await store.delete_account(player_id=player.id, anonymous_name="#1", now=T0)
    assert await store.signed_in_by(secret_hash=token_hash, now=T0, address="") is None
    assert await store.spend_recovery_code("r1") is None
    assert await store.passkey_by_credential_id(passkey) is None  # the passkey signs nobody in
    assert await store.player_by_name(player.name) is None
    gone = await store.player_by_id(player.id)
    assert gone is not None and gone.name == "#0badf00d" and gone.settings is None
    again = await new_player(store, name=player.name)  # the name is free
    assert again.id != player.id
