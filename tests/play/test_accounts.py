"""Accounts: names checked, taken names refused, tokens known again, never stored."""

from __future__ import annotations

import unicodedata

import pytest

from server.play.accounts import hash_token
from server.play.errors import BadName, Refused, refusal_of
from server.play.hub import Hub
from server.protocol import ErrorCode


async def test_register_then_authenticate_and_find_by_name(hub: Hub) -> None:
    signed = await hub.accounts.register("  Alice ")
    player, token = signed.player, signed.token
    assert token is not None
    assert player.name == "Alice" and not player.bot
    assert (await hub.accounts.authenticate(token)).player.id == player.id
    assert (await hub.accounts.named("alice")).id == player.id  # names ignore case
    now = hub.now()
    assert await hub.store.signed_in_by(secret_hash=token, now=now, address="") is None
    found = await hub.store.signed_in_by(secret_hash=hash_token(token), now=now, address="")
    assert found is not None and found[1].id == signed.credential.id  # only the hash is kept


@pytest.mark.parametrize(
    ("name", "code"),
    [("a", ErrorCode.BAD_NAME), ("no spaces", ErrorCode.BAD_NAME), ("x" * 25, ErrorCode.BAD_NAME)],
)
async def test_bad_names_are_refused(hub: Hub, name: str, code: ErrorCode) -> None:
    with pytest.raises(BadName) as refused:
        await hub.accounts.register(name)
    answer = refusal_of(refused.value)
    assert answer is not None and answer.code is code


async def test_a_taken_name_an_unknown_token_and_an_unknown_name(hub: Hub) -> None:
    await hub.accounts.register("bob", bot=True)
    with pytest.raises(Refused) as taken:
        await hub.accounts.register("BOB")
    assert taken.value.code is ErrorCode.NAME_TAKEN
    with pytest.raises(Refused) as token:
        await hub.accounts.authenticate("not-a-token")
    assert token.value.code is ErrorCode.BAD_TOKEN
    with pytest.raises(Refused) as nobody:
        await hub.accounts.named("carol")
    assert nobody.value.code is ErrorCode.NOT_FOUND


@pytest.mark.parametrize("name", ["Łukasz", "Zoë", "Дмитрий", "Ελένη", "山田たろう"])
async def test_names_in_their_own_alphabet_register_in_nfc(hub: Hub, name: str) -> None:
    decomposed = unicodedata.normalize("NFD", name)
    player = (await hub.accounts.register(decomposed)).player
    assert player.name == name == unicodedata.normalize("NFC", decomposed)
    assert (await hub.accounts.named(name.upper())).id == player.id


@pytest.mark.parametrize(
    ("name", "rule"),
    [("Dmitrий", "mixed-scripts"), ("аnna", "mixed-scripts"), ("an\u200dna", "invisible")],
)
async def test_mixed_and_invisible_names_are_refused_with_their_rule(
    hub: Hub, name: str, rule: str
) -> None:
    with pytest.raises(BadName) as refused:
        await hub.accounts.register(name)
    answer = refusal_of(refused.value)
    assert answer is not None and answer.code is ErrorCode.BAD_NAME and answer.rule == rule


async def test_a_name_that_looks_like_a_taken_one_is_taken(hub: Hub) -> None:
    await hub.accounts.register("pace")
    for look_alike in ("расе", "РАСЕ", "PACE"):  # Cyrillic, Cyrillic capitals, the same
        with pytest.raises(Refused) as taken:
            await hub.accounts.register(look_alike)
        assert taken.value.code is ErrorCode.NAME_TAKEN
    assert taken.value.sentence == "the name 'PACE' is taken"  # the same name: no look-alike
    with pytest.raises(Refused) as cyrillic:
        await hub.accounts.register("расе")
    assert cyrillic.value.sentence == "the name 'расе' is taken: it looks like 'pace'"
