"""The day's chart of everyone's results, the replay page and a player's streak, over plain
HTTP on both backends; the replay page stepped through with real keys in Chromium."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from server.net import RunningServer
from tests.conftest import Backend
from tests.support.play import PlayPage
from tests.support.players import SolvingProver, finished_of, registered
from tests.support.servers import (
    HOLD_NOTHING,
    Client,
    fresh_clock,
    server_settings,
    serving,
    unique_name,
)
from tests.support.web import (
    chromium,
    embedded_backend,
    fetch,
    finish_daily,
    no_cache,
    page,
    run,
    screenshot,
    severe_logs,
    wait_for,
)

__all__ = ["chromium"]  # the fixture, used by name


async def won_daily(url: str, prover: SolvingProver, name: str) -> dict[str, Any]:
    """``name`` wins today's 1-suit daily with the solver's line: its ``finished``."""
    async with Client.connect(url) as client:
        await registered(client, name)
        state = (await client.request({"type": "start", "suits": 1}))["state"]
        for text in prover.solutions[state["code"]]:
            assert (await client.request({"type": "move", "move": text}))["type"] == "moved"
        return await finished_of(client, state["game"])


async def test_the_day_page_charts_the_winners_and_a_public_replay_steps_through(
    backend: Backend,
) -> None:
    prover, clock = SolvingProver(), fresh_clock()
    settings = server_settings(backend, fairplay=HOLD_NOTHING)
    async with serving(settings, clock=clock, prover=prover) as server:
        no_cache(server)
        base = server.http_url
        winner = unique_name("Win")
        finished = await won_daily(server.url, prover, winner)
        await finish_daily(server.url, suits=1)
        day = clock.now().date().isoformat()

        reply = await page(f"{base}/day/{day}?suits=1&player={winner}")
        assert reply.status == 200
        text = reply.text
        assert "Everyone&#39;s results" in text or "Everyone's results" in text
        assert "<dt>Finished</dt><dd>2</dd>" in text and "<dt>Won</dt><dd>1</dd>" in text
        svg = text.split('class="chart histogram"', 1)[1].split("</svg>", 1)[0]
        assert svg.count("<rect") == 1 and 'class="bar mine"' in svg
        assert "Not won: 1 with 0 runs removed." in text
        assert "<dt>Par</dt>" not in text  # the day is not over
        as_page = await page(f"{base}/day/{day}/stats?suits=1")
        assert as_page.status == 200 and 'class="chart histogram"' in as_page.text
        as_json = await fetch(f"{base}/day/{day}/stats?suits=1", Accept="application/json")
        assert as_json.status == 200 and json.loads(as_json.text)["won"] == 1
        streak = await page(f"{base}/player/{winner}")
        assert "<dt>Days in a row</dt><dd>1 <small>best 1</small></dd>" in streak.text

        hidden = await page(f"{base}/replay/{finished['game']}")
        assert hidden.status == 403 and "not public" in hidden.text
        as_json = await fetch(f"{base}/replay/{finished['game']}", Accept="application/json")
        assert as_json.status == 403 and '"code":"not-visible"' in as_json.text  # docs/web.md
        clock.advance(days=1)
        shown = await page(f"{base}/replay/{finished['game']}")
        assert shown.status == 200, shown.text
        moves = len(prover.solutions[finished["code"]])
        assert shown.text.count("data-step=") == moves + 2  # the deal, the moves, the win
        assert "The deal" in shown.text and "No solver review yet" in shown.text
        # the deal as cards (rank and suit, coloured by suit), its board text beside them
        deal = shown.text.split('data-step="0"', 1)[1].split("</section>", 1)[0]
        assert deal.count("<li") == 52 and '<li class="S">' in deal and "♠</li>" in deal
        assert deal.count('class="pile') == 10 and "Board as text" in deal
        assert shown.text.count('aria-current="step"') == 1
        assert shown.text.count("data-goto=") == moves + 2
        past = await page(f"{base}/day/{day}?suits=1")
        assert f"<dt>Par</dt><dd>{moves} moves</dd>" in past.text


@asynccontextmanager
async def a_public_replay(
    tmp_path: Path, prefix: str
) -> AsyncIterator[tuple[RunningServer, SolvingProver, dict[str, Any]]]:
    """A server (embedded) whose yesterday's 1-suit daily ``prefix``'s player won with the
    solver's line: its replay is public; the server, the prover and the ``finished``."""
    prover, clock = SolvingProver(), fresh_clock()
    settings = server_settings(embedded_backend(tmp_path), fairplay=HOLD_NOTHING)
    async with serving(settings, clock=clock, prover=prover) as server:
        finished = await won_daily(server.url, prover, unique_name(prefix))
        clock.advance(days=1)
        yield server, prover, finished


async def test_the_replay_page_steps_with_the_arrow_keys_in_chromium(
    chromium: Any, tmp_path: Path
) -> None:
    driver = chromium
    async with a_public_replay(tmp_path, "Key") as (server, prover, finished):
        await run(lambda: driver.get(f"{server.http_url}/replay/{finished['game']}"))

        def shown() -> list[str]:
            found = driver.find_elements(By.CSS_SELECTOR, "[data-step]")
            return [e.get_attribute("data-step") for e in found if e.is_displayed()]

        assert await run(shown) == ["0"]
        body = await run(lambda: driver.find_element(By.TAG_NAME, "body"))
        await run(lambda: body.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT))
        assert await run(shown) == ["2"]
        heading = await run(lambda: driver.find_element(By.CSS_SELECTOR, "[data-step='2'] h2").text)
        assert heading.startswith("2. ") and " s" in heading  # the move and its think time
        await run(lambda: body.send_keys(Keys.END))
        last = len(prover.solutions[finished["code"]]) + 1
        assert await run(shown) == [str(last)]
        await run(lambda: body.send_keys(Keys.ARROW_LEFT))
        assert await run(shown) == [str(last - 1)]

        def marked() -> list[str]:
            found = driver.find_elements(By.CSS_SELECTOR, "[data-goto][aria-current='step']")
            return [e.get_attribute("data-goto") for e in found]

        assert await run(marked) == [str(last - 1)]  # the list marks the action shown
        action = await run(lambda: driver.find_element(By.CSS_SELECTOR, "[data-goto='3']"))
        await run(action.click)
        assert await run(shown) == ["3"] and await run(marked) == ["3"]
        assert (await run(lambda: driver.current_url)).endswith("#step-3")
        cards = await run(lambda: driver.find_elements(By.CSS_SELECTOR, "[data-step='3'] .pile li"))
        assert len(cards) > 0 and all(card.text for card in cards)  # rank and suit on each
        await run(lambda: screenshot(driver, "replay-1280"))
        await run(lambda: driver.get(f"{server.http_url}/replay/{finished['game']}#step-5"))
        assert await run(shown) == ["5"]  # a position's address opens it
        await run(lambda: screenshot(driver, "replay-phone-390", width=390))
        assert await run(lambda: severe_logs(driver)) == []


async def test_a_player_signed_in_on_the_site_asks_the_solver_from_the_replay_page(
    chromium: Any, tmp_path: Path
) -> None:
    driver = chromium
    async with a_public_replay(tmp_path, "Rev") as (server, prover, finished):
        moves = len(prover.solutions[finished["code"]])
        replay_url = f"{server.http_url}/replay/{finished['game']}"
        ask = '[data-review][type="button"]'

        # no account in this browser: the terminal's command only
        await run(lambda: driver.get(replay_url))
        assert not await run(lambda: driver.find_element(By.CSS_SELECTOR, ask).is_displayed())

        # signed up on the play page, another player asks for the review of this public replay
        play = PlayPage(driver)
        await play.open(f"{server.http_url}/play")
        await play.register(unique_name("Ask"))
        await run(lambda: driver.get(replay_url))
        total = await run(lambda: driver.find_element(By.CSS_SELECTOR, "[data-review-total]").text)
        assert total.startswith("No solver review yet")
        await play.click(ask)
        said = await wait_for(
            lambda: (text := play.text("[data-review-total]")).startswith("Solver review") and text,
            120,
            "the review",
        )
        # the solver's own line: the daily's par, nothing over it
        line = f"won in {moves} moves, 0 over the solver's line of {moves}, 0 over par"
        assert said == f"Solver review: {line}."
        assert await run(lambda: driver.find_elements(By.CSS_SELECTOR, ask)) == []
        body = await run(lambda: driver.find_element(By.TAG_NAME, "body"))
        await run(lambda: body.send_keys(Keys.ARROW_RIGHT))
        first = await run(lambda: play.text('[data-judged="1"]'))
        assert first.endswith(f"; winnable, the solver's line {moves - 1}, cost 0"), first
        assert await run(lambda: play.text("[data-review-status]")) == ""

        # the page made again by the server says the same (the review is kept)
        await run(driver.refresh)
        assert await run(lambda: play.text("[data-review-total]")) == said
        assert (await run(lambda: driver.current_url)).endswith("#step-1")  # still shown
        assert await run(lambda: play.text('[data-judged="1"]')) == first
        assert await run(lambda: severe_logs(driver)) == []
