"""Names in their own alphabet through the whole server over real websockets and HTTP, on
both backends: taken in NFC, refused with their rule when mixed or invisible, a look-alike
refused as taken, and a player's page found by its quoted address."""

from __future__ import annotations

import unicodedata
import uuid
from urllib.parse import quote

from tests.conftest import Backend
from tests.support.fakes import fixed_prover
from tests.support.servers import Client, server_settings, serving
from tests.support.web import finish_daily, no_cache, page


def digits() -> str:
    """A suffix no other test uses, of digits (hex letters would be Latin)."""
    return str(uuid.uuid4().int)[:8]


async def test_names_in_their_own_alphabet_register_and_sign_in(backend: Backend) -> None:
    suffix = digits()
    async with serving(server_settings(backend)) as server:
        for name in (f"Łukasz{suffix}", f"Zoë{suffix}", f"Дмитрий{suffix}"):
            async with Client.connect(server.url) as client:
                decomposed = unicodedata.normalize("NFD", name)
                registered = await client.request({"type": "register", "name": decomposed})
                assert registered["type"] == "registered", registered
                assert registered["player"]["name"] == name  # kept in NFC
            async with Client.connect(server.url) as again:
                taken = await again.request({"type": "register", "name": name.upper()})
                assert taken["code"] == "name-taken"
                authenticated = await again.request({"type": "auth", "token": registered["token"]})
                assert authenticated["player"]["name"] == name


async def test_mixed_and_invisible_names_are_refused_with_their_rule(backend: Backend) -> None:
    suffix = digits()
    async with serving(server_settings(backend)) as server, Client.connect(server.url) as client:
        for name, rule in [
            (f"Dmitrий{suffix}", "mixed-scripts"),
            (f"аnna{suffix}", "mixed-scripts"),  # a Cyrillic а among Latin letters
            (f"an\u200dna{suffix}", "invisible"),  # zero width joiner
            (f"\u202eanna{suffix}", "invisible"),  # right-to-left override
        ]:
            refused = await client.request({"type": "register", "name": name})
            assert (refused["type"], refused["code"], refused["rule"]) == (
                "error",
                "bad-name",
                rule,
            ), name
            assert refused["message"]


async def test_a_look_alike_of_a_taken_name_is_taken(backend: Backend) -> None:
    suffix = digits()
    async with serving(server_settings(backend)) as server, Client.connect(server.url) as client:
        anna = await client.request({"type": "register", "name": f"anna{suffix}"})
        assert anna["type"] == "registered"
        async with Client.connect(server.url) as other:
            first = await other.request({"type": "register", "name": f"pace{suffix}"})
            assert first["type"] == "registered"
        for look_alike, holder in [
            (f"аnna{suffix}", None),  # mixed: refused by the rule before the store
            (f"ΑΝΝΑ{suffix}", f"anna{suffix}"),  # Greek capitals
            (f"расе{suffix}", f"pace{suffix}"),  # Cyrillic letters
            (f"РАСЕ{suffix}", f"pace{suffix}"),
        ]:
            async with Client.connect(server.url) as poser:
                refused = await poser.request({"type": "register", "name": look_alike})
            if holder is None:
                assert refused["code"] == "bad-name"
                continue
            assert refused["code"] == "name-taken", look_alike
            assert refused["message"].endswith(f"it looks like {holder!r}")


async def test_a_players_page_is_found_by_its_quoted_name(backend: Backend) -> None:
    suffix = digits()
    name = f"Łukasz{suffix}"
    async with serving(server_settings(backend), prover=fixed_prover(42)) as server:
        no_cache(server)
        base = server.http_url
        assert await finish_daily(server.url, name=name) == name
        link = f'href="/player/{quote(name, safe="")}"'
        assert link in (await page(f"{base}/")).text  # today's boards link to the page
        found = await page(f"{base}/player/{quote(name, safe='')}")
        assert found.status == 200 and f"<h1>{name}" in found.text
        decomposed = quote(unicodedata.normalize("NFD", name.upper()), safe="")
        assert (await page(f"{base}/player/{decomposed}")).status == 200
        look_alike = await page(f"{base}/player/{quote(name.replace('a', 'а'), safe='')}")
        assert look_alike.status == 404  # a look-alike is no name
        day = server.hub.today().isoformat()
        ranked = await page(f"{base}/day/{day}?suits=1&player={quote(name.lower())}")
        assert ranked.status == 200 and link in ranked.text
