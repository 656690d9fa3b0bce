"""A Chromium set to Polish or Russian gets the pages in its language, and a click on the
picker changes the language of every page after it (screenshots at 1280 and 390 wide)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from selenium.webdriver.common.by import By

from tests.conftest import Backend
from tests.support.fakes import fixed_prover
from tests.support.languages import english_in
from tests.support.servers import fresh_clock, server_settings, serving
from tests.support.web import finish_daily, run, screenshot, start_chromium, wait_for


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
