"""The server's sentences in the player's language, over a real websocket and HTTP: a
connection's ``hello`` (or ``auth``) names it, a request's URL, cookie or
``Accept-Language``; codes (``code``, ``rule``) stay the same in every language."""

from __future__ import annotations

import json
from typing import Any

import pytest

from server.engine import Rule
from server.i18n import Language, translations
from server.play.errors import ERROR_CODES, RACE_REFUSALS
from tests.conftest import Backend
from tests.support.languages import english_in
from tests.support.servers import Client, server_settings, serving, unique_name
from tests.support.web import fetch

CODE = "SS1-S1-AAAAAAC"

#: Refusals of every layer: the frame (bad JSON, an unknown type, a field), the engine
#: (notation, a rule), the play layer (a room code, an unknown player), each with the
#: code it must keep.
FRAMES: list[tuple[str, str]] = [
    ("{not json", "bad-json"),
    ('{"type": "teleport", "id": 1}', "unknown-type"),
    ('{"type": "move", "id": 3, "move": 37}', "invalid-message"),
    ('{"type": "move", "id": 5, "move": "1-2", "extra": true}', "invalid-message"),
    ('{"type": "move", "id": 6, "move": "1-100"}', "bad-move"),
    ('{"type": "move", "id": 7, "move": "4-4"}', "illegal-move"),
    ('{"type": "race_join", "id": 8, "code": "??"}', "no-such-race"),
    ('{"type": "history", "id": 9, "player": "nobody-at-all-here"}', "not-found"),
]


async def _refusals(url: str, language: str | None) -> list[dict[str, Any]]:
    async with Client.connect(url) as client:
        hello: dict[str, Any] = {"type": "hello", "id": "h"}
        if language is not None:
            hello["lang"] = language
        assert (await client.request(hello))["type"] == "welcome"
        await client.request({"type": "register", "name": unique_name("lang")})
        await client.request({"type": "start", "mode": "practice", "code": CODE})
        replies = []
        for frame, _ in FRAMES:
            await client.send(frame)
            replies.append(await client.receive())
        return replies


@pytest.mark.parametrize("language", ["pl", "ru"])
async def test_a_connection_hears_every_refusal_in_its_language_with_the_same_codes(
    backend: Backend, language: str
) -> None:
    async with serving(server_settings(backend)) as server:
        english = await _refusals(server.url, None)
        spoken = await _refusals(server.url, language)
    for (frame, code), said, heard in zip(FRAMES, english, spoken, strict=True):
        assert said["code"] == heard["code"] == code, frame
        assert said.get("rule") == heard.get("rule"), frame
        assert said.get("detail") == heard.get("detail"), frame
        assert heard["message"] != said["message"], f"{frame}: {heard['message']}"
        assert english_in(heard["message"], language) == [], frame
    illegal = spoken[5]
    assert illegal["rule"] == Rule.SAME_COLUMN.value
    expected = {"pl": "Karta musi przejść do innej kolumny.", "ru": "Карту нужно переложить"}
    assert illegal["message"].startswith(expected[language])


async def test_auth_with_lang_speaks_it_from_then_on_and_a_refused_token_is_said_in_it(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend)) as server, Client.connect(server.url) as client:
        bad = await client.request({"type": "auth", "token": "nope", "lang": "ru"})
        assert bad["code"] == "bad-token" and bad["message"] == (
            "ни у одной учётной записи нет такого токена"
        )
        assert (await client.request({"type": "resign"}))["message"] == (
            "сначала войдите (auth или register)"
        )


async def test_the_json_routes_answer_in_the_language_the_request_asks_for(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend)) as server:
        url = f"{server.http_url}/leaderboard?suits=3"
        english = await fetch(url, Accept="application/json")
        polish = await fetch(url, Accept="application/json", Accept_Language="pl-PL,pl;q=0.9")
        assert english.status == polish.status == 400
        said = json.loads(english.body)["error"]
        heard = json.loads(polish.body)["error"]
        assert said["code"] == heard["code"]
        assert said["message"] == "suits must be one of [1, 2, 4]"
        assert heard["message"] == "suits musi być jednym z: [1, 2, 4]"
        missing = await fetch(
            f"{server.http_url}/history?player=nobody-at-all-here",
            Accept="application/json",
            Accept_Language="ru",
        )
        assert json.loads(missing.body)["error"]["message"] == (
            "нет игрока с именем 'nobody-at-all-here'"
        )


@pytest.mark.parametrize("language", ["pl", "ru"])
def test_every_sentence_a_refusal_table_names_is_in_the_catalog(language: Language) -> None:
    """The tables below the edge name catalog ids: each has its sentence in the language
    (an id the catalog lacks would come out in English)."""
    catalog = translations(language)
    sentences = [message for _, _, message in ERROR_CODES]
    sentences += [message for _, message in RACE_REFUSALS.values()]
    sentences += [rule.sentence for rule in Rule]
    for sentence in sentences:
        assert catalog.gettext(sentence) != sentence, sentence


async def test_the_accounts_language_is_kept_and_every_later_connection_speaks_it(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend)) as server:
        async with Client.connect(server.url) as client:
            made = await client.request({"type": "register", "name": unique_name("Łukasz")})
            assert made["player"].get("language") is None  # none chosen yet
            chosen = await client.request({"type": "set_language", "id": "l", "lang": "pl"})
            assert chosen == {"type": "language_set", "id": "l", "lang": "pl"}
            refused = await client.request({"type": "move", "move": "4-4"})
            assert refused["message"] == "najpierw zacznij grę"  # spoken at once here
        async with Client.connect(server.url) as other:  # another device, no lang of its own
            signed = await other.request({"type": "auth", "token": made["token"]})
            assert signed["player"]["language"] == "pl"
            refused = await other.request({"type": "undo"})
            assert refused["message"] == "najpierw zacznij grę"
        async with Client.connect(server.url) as asking:  # a device that asks for its own
            await asking.request({"type": "auth", "token": made["token"], "lang": "ru"})
            assert (await asking.request({"type": "undo"}))["message"] == "сначала начните игру"
        async with Client.connect(server.url) as anonymous:
            refused = await anonymous.request({"type": "set_language", "lang": "ru"})
            assert refused["code"] == "not-authenticated"
            bad = await anonymous.request({"type": "set_language", "lang": "de"})
            assert bad["code"] == "invalid-message"


async def test_before_hello_a_connection_speaks_the_language_its_handshake_asked_for(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend)) as server:
        polish_browser = {"Accept-Language": "pl-PL,pl;q=0.9,en;q=0.5"}
        async with Client.connect(server.url, additional_headers=polish_browser) as client:
            await client.send("{not json")
            polish = await client.receive()
            hello = await client.request({"type": "hello", "lang": "ru"})  # hello's wins
            assert hello["type"] == "welcome"
            await client.send("{not json")
            russian = await client.receive()
        async with Client.connect(f"{server.url}?lang=ru") as client:
            await client.send("{not json")
            by_url = await client.receive()
        async with Client.connect(server.url) as client:
            await client.send("{not json")
            english = await client.receive()
    assert polish["code"] == russian["code"] == english["code"] == by_url["code"] == "bad-json"
    assert polish["message"] == translations("pl").gettext(english["message"])
    assert russian["message"] == by_url["message"] == translations("ru").gettext(english["message"])
    assert len({polish["message"], russian["message"], english["message"]}) == 3
