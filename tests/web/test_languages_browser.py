"""A Chromium set to Polish or Russian gets the pages in its language, and a click on the
picker changes the language of every page after it; a player with only that browser
registers under a name in their own alphabet, plays with real pointer input, reads a refused
drag's rule, resigns and opens the boards without one English sentence (screenshots at 1280
and 390 wide)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from selenium.webdriver.common.by import By

from server.engine import Game, IllegalMoveError, Move
from server.i18n.speaking import translations
from tests.conftest import Backend
from tests.support.fakes import fixed_prover
from tests.support.languages import english_in
from tests.support.play import DESKTOP, PHONE, PlayPage, SolvingProver
from tests.support.servers import Client, fresh_clock, server_settings, serving, unique_name
from tests.support.web import (
    chromium,
    embedded_backend,
    finish_daily,
    run,
    screenshot,
    severe_logs,
    start_chromium,
    wait_for,
)

#: Who registers in each language: a name in the language's own alphabet.
NAMES = {"pl": "Łukasz", "ru": "Дмитрий"}

__all__ = ["chromium"]  # the fixture, used by name


@pytest.fixture(params=["pl", "ru"])
def speaking_chromium(request: pytest.FixtureRequest) -> Iterator[tuple[str, Any]]:
    driver = start_chromium(request.param)
    try:
        yield request.param, driver
    finally:
        driver.quit()


def _lang(driver: Any) -> str:
    return str(driver.find_element(By.TAG_NAME, "html").get_attribute("lang"))


async def test_a_browser_in_polish_or_russian_reads_the_pages_in_it_and_can_switch(
    backend: Backend, speaking_chromium: tuple[str, Any]
) -> None:
    language, driver = speaking_chromium
    async with serving(
        server_settings(backend), clock=fresh_clock(), prover=fixed_prover(42)
    ) as server:
        name = await finish_daily(server.url, name="Łukasz_" + language, suits=2)
        day = server.hub.clock.now().date().isoformat()
        for path, shot in ((f"/day/{day}?suits=2", "day"), ("/", "home")):
            await run(lambda: driver.get(server.http_url + path))  # noqa: B023
            assert await run(lambda: _lang(driver)) == language
            page = await run(lambda: driver.page_source)
            assert english_in(page, language) == [], path
            assert name in page  # the player, under a name in their own alphabet
            for width in (1280, 390):
                await run(lambda: screenshot(driver, f"{shot}-{language}-{width}", width=width))  # noqa: B023
                scroll = await run(
                    lambda: driver.execute_script(
                        "return document.documentElement.scrollWidth - innerWidth"
                    )
                )
                assert scroll <= 0, f"{path} at {width} scrolls sideways by {scroll}px"

        # the picker: a real click; the choice holds on the next page too
        other = "ru" if language == "pl" else "pl"
        await run(lambda: driver.set_window_size(1280, 900))
        link = await run(
            lambda: driver.find_element(By.CSS_SELECTOR, f'.languages a[hreflang="{other}"]')
        )
        await run(link.click)
        await wait_for(lambda: _lang(driver) == other, 10, f"the page in {other}")
        await run(lambda: driver.get(f"{server.http_url}/day/{day}?suits=2"))
        assert await run(lambda: _lang(driver)) == other
        assert english_in(await run(lambda: driver.page_source), other) == []


def _refused_drag(game: Game) -> tuple[int, int, int, str]:
    """A drag the rules refuse, and the catalog id of the rule's sentence."""
    for source in range(10):
        count = game.movable_count(source)
        for target in range(10) if count else ():
            if target == source or not game.column(target):
                continue
            try:
                game.resolve(Move(source, target, count))
            except IllegalMoveError as error:
                return source + 1, count, target + 1, error.rule.sentence
    raise AssertionError("no illegal drag on this deal")


async def _reads_only(play: PlayPage, language: str, what: str) -> None:
    """The page as it stands (every view, hidden ones too, with accessible names) holds no
    English sentence, and says it is in ``language``."""
    assert await run(lambda: _lang(play.driver)) == language, what
    source = await run(lambda: play.driver.page_source)
    assert english_in(source, language) == [], what


async def _both_widths(play: PlayPage, name: str) -> None:
    """Screenshots at a desktop's and a phone's width; nothing scrolls sideways."""
    for metrics, width in ((DESKTOP, 1280), (PHONE, 390)):
        await play.viewport(metrics)
        await play.snapshot(f"{name}-{width}")
        assert await run(play.sideways_overflow) <= 0, f"{name} at {width} scrolls sideways"
    await play.viewport(DESKTOP)


async def test_a_player_in_polish_or_russian_plays_a_whole_daily_in_their_language(
    speaking_chromium: tuple[str, Any], tmp_path: Path
) -> None:
    language, driver = speaking_chromium
    name = NAMES[language]
    said = translations(language)
    settings = server_settings(embedded_backend(tmp_path))
    async with serving(settings, clock=fresh_clock(), prover=SolvingProver()) as server:
        play = PlayPage(driver)
        await play.viewport(DESKTOP)
        await play.open(f"{server.http_url}/play")  # no ?lang: the browser's language
        await play.register(name)
        assert await run(lambda: play.text("[data-account] [data-player-name]")) == name
        await _reads_only(play, language, "the lobby")
        await _both_widths(play, f"play-lobby-{language}")

        code = await play.start("daily", 1)
        game = Game.from_code(code)
        await _reads_only(play, language, "the table")
        source, count, target, rule = _refused_drag(game)
        await play.drag(source, count, target)
        alert = await wait_for(lambda: play.text('[role="alert"]'), 10, "the rule")
        assert said.gettext(rule) != rule and said.gettext(rule) in alert
        await play.settled()
        await _both_widths(play, f"play-table-{language}")

        await play.click('[data-action="resign"]')  # asks first
        await play.click('[data-action="resign"]')
        assert await wait_for(play.result, 15, "the result") == "resigned"
        await _reads_only(play, language, "the result")
        await _both_widths(play, f"play-resigned-{language}")

        # a race room of one's own: its waiting room, as the page draws it
        await play.click('[data-result-box] [data-action="lobby"]')
        await wait_for(lambda: play.find('[data-view="lobby"]').is_displayed(), 10, "the lobby")
        await play.click('[data-action="race-new"]')
        await wait_for(lambda: play.find('[data-view="room"]').is_displayed(), 10, "the room")
        await wait_for(lambda: play.text("[data-room-code]") != "", 10, "the room's code")
        await _reads_only(play, language, "the race room")
        await _both_widths(play, f"play-room-{language}")
        assert await run(lambda: severe_logs(driver)) == []

        day = server.hub.today().isoformat()
        for path, what, shot in (
            (f"/day/{day}?suits=1", "the day's board", "day-played"),
            (f"/player/{quote(name)}", "the player's page", "player"),
        ):
            await play.open(server.http_url + path)
            await _reads_only(play, language, what)
            await _both_widths(play, f"{shot}-{language}")
        assert name in await run(lambda: play.text("h1"))


async def test_a_device_follows_the_accounts_language_and_a_choice_made_on_it_is_kept(
    chromium: Any, tmp_path: Path
) -> None:
    settings = server_settings(embedded_backend(tmp_path))
    async with serving(settings, clock=fresh_clock(), prover=SolvingProver()) as server:
        async with Client.connect(server.url) as client:  # the account, made in Russian elsewhere
            made = await client.request({"type": "register", "name": unique_name("follow")})
            said = await client.request({"type": "set_language", "lang": "ru"})
            assert said == {"type": "language_set", "id": said["id"], "lang": "ru"}
        play = PlayPage(chromium)  # a browser in English, with nothing stored for the site
        await play.viewport(DESKTOP)
        assert await run(lambda: chromium.get_cookies()) == []
        await play.open(f"{server.http_url}/healthz")
        origin = server.http_url
        await run(
            lambda: chromium.execute_cdp_cmd(
                "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"}
            )
        )
        await run(lambda: chromium.get_log("browser"))  # the bare route's missing favicon
        await play.open(f"{server.http_url}/play")
        assert await run(lambda: _lang(chromium)) == "en"
        await play.click('[data-view="welcome"] summary')
        field = await run(lambda: play.find('form[data-form="sign-in"] input[name="token"]'))
        await run(lambda: field.send_keys(made["token"]))
        await play.click('form[data-form="sign-in"] button[type="submit"]')
        # signed in, the page takes the account's language: once, and stays in it
        await wait_for(lambda: _lang(chromium) == "ru", 10, "the page in Russian")
        await wait_for(lambda: play.find('[data-view="lobby"]').is_displayed(), 10, "the lobby")
        await _reads_only(play, "ru", "the lobby after following the account")
        await play.open(f"{server.http_url}/play")
        await wait_for(lambda: play.find('[data-view="lobby"]').is_displayed(), 10, "the lobby")
        assert await run(lambda: _lang(chromium)) == "ru"

        async def accounts_language() -> str | None:
            async with Client.connect(server.url) as client:
                reply = await client.request({"type": "auth", "token": made["token"]})
                return reply["player"].get("language")  # type: ignore[no-any-return]

        # another device changes the account's language: this one, which only followed,
        # follows again (its own cookie was no choice of the player's)
        async with Client.connect(server.url) as client:
            await client.request({"type": "auth", "token": made["token"]})
            await client.request({"type": "set_language", "lang": "pl"})
        await play.open(f"{server.http_url}/play")
        await wait_for(lambda: _lang(chromium) == "pl", 10, "the page in Polish")
        await wait_for(lambda: play.find('[data-view="lobby"]').is_displayed(), 10, "the lobby")
        assert await accounts_language() == "pl"

        # the picker on this device: Russian from now on, and kept on the account
        await play.click('.languages a[hreflang="ru"]')
        await wait_for(lambda: _lang(chromium) == "ru", 10, "the page in Russian")
        await wait_for(lambda: play.find('[data-view="lobby"]').is_displayed(), 10, "the lobby")
        for _ in range(50):
            if await accounts_language() == "ru":
                break
            await asyncio.sleep(0.1)
        assert await accounts_language() == "ru"
        await play.open(f"{server.http_url}/play")
        await wait_for(lambda: play.find('[data-view="lobby"]').is_displayed(), 10, "the lobby")
        assert await run(lambda: _lang(chromium)) == "ru"
        assert await run(lambda: severe_logs(chromium)) == []
