"""The replay page's "Ask the solver" shows how far the solver has got while it makes the
review (a ``<progress>`` with its accessible name, and the position judged), and says so
when the server expects the review to take long; once the review comes, the bar goes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By

from server.play.after.judging import judge_part, judge_path_reporting, part_cuts
from server.play.after.progress import reporter
from tests.support.play import PlayPage
from tests.support.servers import unique_name
from tests.support.web import chromium, run, screenshot, severe_logs, wait_for
from tests.web.test_web_after_day import a_public_replay

__all__ = ["chromium"]  # the fixture, used by name

#: Positions the held worker says it has judged.
JUDGED = 5


class HalfwayHeld:
    """The review worker: writes that it has judged :data:`JUDGED` positions into the
    server's shared meter (as the real worker does as it goes), then holds the review until
    :attr:`release` is set, and answers it with the real worker."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.asked = asyncio.Event()
        self.release = asyncio.Event()

    async def run(self, task: Any, code: str, actions: list[str], *rest: Any) -> Any:
        if task is part_cuts:  # where the parts are cut: not a judging, not held
            return await self.real.run(task, code, actions, *rest)
        if task is judge_path_reporting or (task is judge_part and rest[-1] == 0):
            # the meter's name (and a part's slot): the first part tells it all
            report = reporter(*rest[-1:]) if task is judge_path_reporting else reporter(*rest[-2:])
            assert report is not None
            report(JUDGED)
        self.asked.set()
        await self.release.wait()
        return await self.real.run(task, code, actions, *rest)

    def close(self) -> None:
        self.real.close()


async def test_the_replay_page_shows_the_solvers_progress_and_a_long_reviews_warning(
    chromium: Any, tmp_path: Path
) -> None:
    driver = chromium
    async with a_public_replay(tmp_path, "Prog") as (server, prover, finished):
        reviews = server.hub.reviews
        held = HalfwayHeld(reviews._worker)
        reviews._worker = held  # type: ignore[assignment]
        reviews._pace.add(60.0, 10)  # recent reviews took 6 s a position: this one is long
        positions = len(prover.solutions[finished["code"]]) + 1

        play = PlayPage(driver)
        await play.open(f"{server.http_url}/play")
        await play.register(unique_name("Asks"))
        await run(lambda: driver.get(f"{server.http_url}/replay/{finished['game']}"))
        assert not await run(lambda: play.find("[data-review-progress]").is_displayed())
        await play.click('[data-review][type="button"]')
        await asyncio.wait_for(held.asked.wait(), 60)
        line = f"Judging position {JUDGED + 1} of {positions}"
        await wait_for(
            lambda: play.text("[data-review-progress-text]") == line, 30, "the position judged"
        )
        bar = await run(lambda: play.find("[data-review-progress] progress"))
        assert await run(lambda: bar.get_attribute("value")) == str(JUDGED)
        assert await run(lambda: bar.get_attribute("max")) == str(positions)
        assert await run(lambda: bar.accessible_name) == "Positions the solver has judged"
        status = await run(lambda: play.text("[data-review-status]"))
        # the budget's 20 s of CPU caps the recent reviews' pace (6 s a position)
        assert status == (
            f"The solver is judging {positions} positions… "
            "This review will take a while: about 20 seconds."
        ), status
        await run(lambda: screenshot(driver, "replay-review-progress", width=900))

        held.release.set()
        said = await wait_for(
            lambda: (text := play.text("[data-review-total]")).startswith("Solver review") and text,
            120,
            "the review",
        )
        assert said.startswith("Solver review: won in ")
        found = await run(lambda: driver.find_elements(By.CSS_SELECTOR, "[data-review-progress]"))
        assert not await run(lambda: found[0].is_displayed())  # the bar went with the wait
        assert await run(lambda: severe_logs(driver)) == []
