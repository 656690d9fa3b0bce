"""The pages in Polish, Russian and English: chosen by the URL, the picker's cookie and the
browser's Accept-Language; said in the answer's headers and ``<html lang>``; and no English
sentence left on a Polish or Russian page."""

from __future__ import annotations

import asyncio
import http.client
import re
from urllib.parse import quote, urlsplit

import pytest

from tests.conftest import Backend
from tests.support.fakes import fixed_prover
from tests.support.languages import english_in
from tests.support.rooms import DEAL, room_reply, signed_up
from tests.support.servers import Client, fresh_clock, server_settings, serving
from tests.support.web import finish_daily, no_cache, page

HTML_LANG = re.compile(r'<html lang="([a-z]+)">')


def _raw_get(url: str, headers: dict[str, str]) -> tuple[int, dict[str, str]]:
    """One GET, its redirect not followed."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=10)
    try:
        connection.request("GET", parts.path + (f"?{parts.query}" if parts.query else ""),
                           headers=headers)  # fmt: skip
        response = connection.getresponse()
        response.read()
        return response.status, dict(response.getheaders())
    finally:
        connection.close()


async def test_a_page_speaks_the_url_s_then_the_cookie_s_then_the_browser_s_language(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend), clock=fresh_clock()) as server:
        base = server.http_url
        plain = await page(f"{base}/")
        assert HTML_LANG.search(plain.text)[1] == "en"  # type: ignore[index]
        assert plain.headers["Content-Language"] == "en"
        assert "Accept-Language" in plain.headers["Vary"] and "Cookie" in plain.headers["Vary"]

        polish = await page(f"{base}/", Accept_Language="de-DE, pl;q=0.9, en;q=0.5")
        assert HTML_LANG.search(polish.text)[1] == "pl"  # type: ignore[index]
        assert polish.headers["Content-Language"] == "pl"
        assert "Dzisiejsze wyzwanie dnia" in polish.text and "Łatwy" in polish.text
        assert "1 kolor" in polish.text and "2 kolory" in polish.text

        by_cookie = await page(f"{base}/", Accept_Language="pl", Cookie="lang=ru")
        assert HTML_LANG.search(by_cookie.text)[1] == "ru"  # type: ignore[index]
        assert "Партия дня" in by_cookie.text and "4 масти" in by_cookie.text
        by_url = await page(f"{base}/?lang=pl", Cookie="lang=ru")
        assert HTML_LANG.search(by_url.text)[1] == "pl"  # type: ignore[index]
        # the page cache keeps one copy of a page a language
        assert (await page(f"{base}/", Cookie="lang=ru")).headers["Content-Language"] == "ru"
        assert (await page(f"{base}/", Cookie="lang=xx; other=1")).headers[
            "Content-Language"
        ] == "en"

        # each page links itself in every language, and the picker names each in itself
        assert '<link rel="alternate" hreflang="ru" href="/?lang=ru">' in polish.text
        assert 'lang="ru">Русский</a>' in polish.text and 'aria-current="true">Polski' in (
            polish.text
        )


async def test_the_picker_remembers_the_choice_and_goes_back_to_its_page(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend), clock=fresh_clock()) as server:
        base = server.http_url
        back = "/day/2026-01-02?suits=2"
        status, headers = await asyncio.to_thread(
            _raw_get, f"{base}/language/pl?next={quote(back)}", {}
        )
        assert status == 303 and headers["Location"] == back
        assert headers["Set-Cookie"].startswith("lang=pl; Path=/;")
        assert "Max-Age=31536000" in headers["Set-Cookie"]
        for elsewhere in ("//evil.example/", "https://evil.example/", "/\\evil"):
            status, headers = await asyncio.to_thread(
                _raw_get, f"{base}/language/ru?next={quote(elsewhere)}", {}
            )
            assert status == 303 and headers["Location"] == "/", elsewhere
        missing = await page(f"{base}/language/de", Accept_Language="pl")
        assert missing.status == 404 and "Nie ma takiego języka." in missing.text
        assert HTML_LANG.search(missing.text)[1] == "pl"  # type: ignore[index]


@pytest.mark.parametrize("language", ["pl", "ru"])
async def test_no_page_in_polish_or_russian_shows_an_english_sentence(
    backend: Backend, language: str
) -> None:
    clock = fresh_clock()
    async with serving(server_settings(backend), clock=clock, prover=fixed_prover(42)) as server:
        no_cache(server)
        base = server.http_url
        name = await finish_daily(server.url, suits=2)
        day = clock.now().date().isoformat()
        async with Client.connect(server.url) as client:
            await signed_up(client, "Words")
            started = await client.request({"type": "start", "suits": 1})
            assert (await client.request({"type": "resign"}))["type"] == "state"
            room = await room_reply(client, {"type": "race_new", "code": DEAL})
        paths = [
            "/", "/?board=bots", "/?board=new", f"/day/{day}?suits=2", f"/day/{day}?suits=4",
            f"/day/{day}?suits=2&player={quote(name)}", f"/player/{quote(name)}",
            "/race?suits=2", f"/race/{room['code']}", "/play", f"/play?race={room['code']}",
            "/offline", "/day/1969-01-01", "/no/such/page",
        ]  # fmt: skip
        english = await page(f"{base}/day/{day}?suits=2", Accept_Language="en")
        assert "No one has finished yet today" not in english_in(english.text, language)
        assert {"Everyone's results", "Find a player"} <= set(english_in(english.text, language))
        for path in paths:
            shown = await page(f"{base}{path}", Accept_Language=language)
            assert HTML_LANG.search(shown.text)[1] == language, path  # type: ignore[index]
            assert english_in(shown.text, language) == [], path
        # the next day: yesterday's deals with their par, and a daily's replay made public
        clock.advance(days=1)
        replay = f"/replay/{quote(started['state']['game'], safe='')}"
        for path in ("/", replay):
            shown = await page(f"{base}{path}", Accept_Language=language)
            assert shown.status == 200, shown.text
            assert HTML_LANG.search(shown.text)[1] == language, path  # type: ignore[index]
            assert english_in(shown.text, language) == [], path
        par = {"pl": "norma 42 ruchy", "ru": "норма 42 хода"}[language]
        assert par in (await page(f"{base}/", Accept_Language=language)).text


async def test_a_refusal_from_below_the_edge_is_said_on_the_page_with_its_values(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend), clock=fresh_clock()) as server:
        base = server.http_url
        polish = await page(f"{base}/player/Nikt_taki?lang=pl")
        assert polish.status == 404
        assert "żaden gracz nie nazywa się &#39;Nikt_taki&#39;" in polish.text
        english = await page(f"{base}/player/Nobody_here")
        assert "no player is called &#39;Nobody_here&#39;" in english.text
        assert "%(name)" not in polish.text + english.text
