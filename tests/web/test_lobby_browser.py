"""The lobby of a fresh server still proving today's deals, in a real headless Chromium with
real input: each suit count shows its own state, the dailies proven already open while the
4-suit one says it is being proven, and that one opens by itself when the server tells the
page its deal is ready (pushed: well before the page would ask again). A screenshot of each
goes to ``artifacts/web/``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.support.fakes import FourSuitsHeld
from tests.support.play import PlayPage, fresh_table
from tests.support.servers import fresh_clock, quick_prover, server_settings, serving, unique_name
from tests.support.web import chromium, embedded_backend, run, wait_for

__all__ = ["chromium"]  # the fixture, used by name

BEING_PROVEN = "Being proven · opens by itself in a moment"


def daily_button(play: PlayPage, suits: int) -> Any:
    return play.find(f'[data-start="daily"][data-suits="{suits}"]')


def states(play: PlayPage) -> dict[int, tuple[str, bool]]:
    """Each daily's button: its state's words, and whether it can be pressed."""
    return {
        suits: (
            play.text(f'[data-start="daily"][data-suits="{suits}"] [data-state]'),
            bool(daily_button(play, suits).is_enabled()),
        )
        for suits in (1, 2, 4)
    }


async def test_the_lobby_opens_each_daily_as_soon_as_its_deal_is_proven(
    chromium: Any, tmp_path: Path
) -> None:
    prover = FourSuitsHeld(quick_prover)  # the longest proof, held

    settings = server_settings(embedded_backend(tmp_path))
    async with (
        serving(settings, clock=fresh_clock(), prover=prover, ready=False) as server,
        fresh_table(chromium, server.http_url) as play,
    ):
        today = server.hub.today()
        await asyncio.gather(server.hub.daily.deal(today, 1), server.hub.daily.deal(today, 2))
        await play.open(f"{server.http_url}/play")
        await play.register(unique_name())
        await wait_for(lambda: states(play)[4][0] == BEING_PROVEN, 10, "the 4-suit state")
        assert states(play) == {1: ("Play", True), 2: ("Play", True), 4: (BEING_PROVEN, False)}
        await play.click('[data-start="daily"][data-suits="4"]')  # pressed: nothing starts
        await asyncio.sleep(0.3)
        assert await run(lambda: play.find('[data-view="lobby"]').is_displayed())
        await play.snapshot("lobby-being-proven")

        prover.release.set()  # told by a push: the page asks again by itself only after 15 s
        await wait_for(lambda: states(play)[4] == ("Play", True), 5, "the 4-suit daily open")
        await play.snapshot("lobby-all-proven")
        code = await play.start("daily", 4)
        assert code.startswith("SS1-S4-")
        assert code == (await server.hub.daily.deal(today, 4)).code
