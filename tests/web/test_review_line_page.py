"""The replay page's "Ask the solver" says where its review stands while the solver's
worker makes another's first (the ``queued`` message), then shows the review."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.support.play import PlayPage
from tests.support.players import registered, resigned_practice_games
from tests.support.servers import Client, unique_name
from tests.support.web import chromium, run, severe_logs, wait_for
from tests.web.test_web_after_day import a_public_replay

__all__ = ["chromium"]  # the fixture, used by name


class FirstHeld:
    """The review worker, its first review held until :attr:`release` is set (then answered
    as unknown); the others made by the real worker."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.asked = asyncio.Event()
        self.release = asyncio.Event()

    async def run(self, task: Any, code: str, actions: list[str], *rest: Any) -> Any:
        if self.asked.is_set():
            return await self.real.run(task, code, actions, *rest)
        self.asked.set()
        await self.release.wait()
        return [(None, None)] * (len(actions) + 1)

    def close(self) -> None:
        self.real.close()


async def test_the_replay_page_says_its_place_in_line_for_the_solver(
    chromium: Any, tmp_path: Path
) -> None:
    driver = chromium
    async with a_public_replay(tmp_path, "Line") as (server, _prover, finished):
        reviews = server.hub.reviews
        held = FirstHeld(reviews._worker)
        reviews._worker = held  # type: ignore[assignment]
        async with Client.connect(server.url) as other:
            await registered(other, unique_name("first"))
            [game] = await resigned_practice_games(other, 1)
            await other.send({"id": "review", "type": "review", "game": game})
            await asyncio.wait_for(held.asked.wait(), 30)  # the worker is busy with it

            play = PlayPage(driver)
            await play.open(f"{server.http_url}/play")
            await play.register(unique_name("Ask"))
            await run(lambda: driver.get(f"{server.http_url}/replay/{finished['game']}"))
            await play.click('[data-review][type="button"]')
            waiting = "Waiting for the solver: next in line…"
            await wait_for(
                lambda: play.text("[data-review-status]") == waiting,
                60,
                "the place in line",
            )
            held.release.set()
            assert (await other.reply_to("review", 60))["type"] == "review"
            said = await wait_for(
                lambda: (
                    (text := play.text("[data-review-total]")).startswith("Solver review") and text
                ),
                120,
                "the review",
            )
            assert said.startswith("Solver review: won in ")
            assert await run(lambda: play.text("[data-review-status]")) == ""
            assert await run(lambda: severe_logs(driver)) == []
