"""The play page fits its screen, in a real headless Chromium with real input: a fresh 4-suit
deal fills a 390x844 phone and a 1280x800 window down to three quarters of their height with
nothing to scroll, a column grown long by many moves compresses its overlap rather than
scroll, and the lobby takes the width it has. Its list of games in progress takes a player
back to a practice game they left for another. Screenshots of each go to ``artifacts/web/``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.engine import Game, Move
from server.net import RunningServer
from tests.support.play import DESKTOP, PHONE, PlayPage, fresh_table
from tests.support.servers import server_settings, serving, unique_name
from tests.support.web import chromium, embedded_backend, run, wait_for

__all__ = ["chromium"]  # the fixture, used by name

#: A 4-suit deal as it lies: its deepest column holds 8 cards.
FOUR_SUITS = "SS1-S4-AAAAABD"
#: A 2-suit deal, and moves that grow its column 2 to 18 cards (found by the engine: each
#: move the one that leaves the longest column).
GROWING = "SS1-S2-AAAAABD"
GROWTH = [
    "3-10x1",
    "3-2x1",
    "10-9x2",
    "7-10x1",
    "7-2x1",
    "8-2x1",
    "9-2x2",
    "3-2x1",
    "6-2x1",
    "7-2x1",
    "7-2x1",
    "4-2x1",
]

_MEASURE = """
const root = document.documentElement;
const columns = Array.from(document.querySelectorAll('[data-column]'));
const bottoms = columns.map((column) => {
  const cards = column.querySelectorAll('[data-card]');
  const last = cards.length ? cards[cards.length - 1] : column;
  return last.getBoundingClientRect().bottom;
});
const card = document.querySelector('[data-card]').getBoundingClientRect();
return {
  bottom: Math.max(...bottoms),
  height: innerHeight,
  width: innerWidth,
  // what the page would scroll by (a scrollbar's gutter kept aside makes these negative)
  down: root.scrollHeight - root.clientHeight,
  sideways: root.scrollWidth - root.clientWidth,
  card: [card.width, card.height],
};
"""


#: How far across the lobby's panels reach: the leftmost left edge and the rightmost right.
_LOBBY_SPAN = """
const boxes = Array.from(document.querySelectorAll('[data-view="lobby"] .panel, [data-daily]'))
  .filter((element) => element.offsetParent)
  .map((element) => element.getBoundingClientRect());
return [Math.min(...boxes.map((box) => box.left)), Math.max(...boxes.map((box) => box.right))];
"""


@pytest.fixture(scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[RunningServer]:
    settings = server_settings(embedded_backend(tmp_path_factory.mktemp("fit")))
    async with serving(settings) as server:
        yield server


@pytest.fixture
async def play(chromium: Any, served: RunningServer) -> AsyncIterator[PlayPage]:
    """A tab for a new visitor (:func:`fresh_table`)."""
    async with fresh_table(chromium, served.http_url) as table:
        yield table


async def measured(play: PlayPage) -> dict[str, Any]:
    """Where the deepest card ends, the viewport, and what would scroll (after the table
    settled into its size, its cards landed)."""
    await play.landed()
    await wait_for(
        lambda: play.driver.execute_script("return document.fonts.status") == "loaded", 5, "fonts"
    )
    found: dict[str, Any] = await run(lambda: play.driver.execute_script(_MEASURE))
    return found


@pytest.mark.parametrize(("metrics", "label"), [(PHONE, "390"), (DESKTOP, "1280")])
async def test_a_fresh_deal_fills_the_screen_and_a_long_column_never_scrolls(
    play: PlayPage, served: RunningServer, metrics: dict[str, Any], label: str
) -> None:
    phone = metrics is PHONE
    await play.viewport(metrics, touch=phone)
    await play.open(f"{served.http_url}/play")
    await play.register(unique_name("fit"))
    await play.snapshot(f"fit-lobby-{label}")
    left, right = await run(lambda: play.driver.execute_script(_LOBBY_SPAN))
    if not phone:  # the lobby takes the width it has
        assert right - left >= 0.85 * metrics["width"], (left, right)
    assert await run(play.sideways_overflow) == 0

    assert await play.practice(FOUR_SUITS) == FOUR_SUITS
    await play.shows(Game.from_code(FOUR_SUITS), "the deal")
    fresh = await measured(play)
    await play.snapshot(f"fit-deal-{label}")
    assert fresh["bottom"] >= 0.75 * fresh["height"], fresh
    assert fresh["bottom"] <= fresh["height"], fresh
    assert fresh["down"] <= 0 and fresh["sideways"] <= 0, fresh

    # a column grown long by many moves: the overlap gives way, nothing scrolls
    await play.click('[data-action="lobby"]')
    assert await play.practice(GROWING) == GROWING
    game = Game.from_code(GROWING)
    await play.shows(game, "the 2-suit deal")
    for text in GROWTH:
        move = Move.from_text(text)
        assert move.count is not None
        await play.drag(move.source + 1, move.count, move.target + 1)
        game.play(text)
        await play.shows(game, f"the move {text}")
        await play.settled()
    assert len(game.column(1)) >= 18
    grown = await measured(play)
    await play.snapshot(f"fit-grown-{label}")
    assert grown["bottom"] <= grown["height"], grown
    assert grown["down"] <= 0 and grown["sideways"] <= 0, grown
    # the cards kept their size: the overlap gave way, not the cards
    assert grown["card"] == fresh["card"], (grown, fresh)


def _listed(play: PlayPage) -> dict[str, str]:
    """The lobby's games in progress: each button's text, by the game id it resumes."""
    buttons = play.driver.find_elements("css selector", "[data-games] [data-resume]")
    return {str(b.get_attribute("data-resume")): str(b.text) for b in buttons}


@pytest.mark.parametrize(("metrics", "label"), [(DESKTOP, "1280"), (PHONE, "390")])
async def test_the_lobby_lists_your_games_in_progress_and_takes_one_up_again(
    play: PlayPage, served: RunningServer, metrics: dict[str, Any], label: str
) -> None:
    await play.viewport(metrics, touch=metrics is PHONE)
    await play.open(f"{served.http_url}/play")
    await play.register(unique_name("back"))
    assert not await run(lambda: play.find("[data-games]").is_displayed())  # none yet

    # a practice game, two moves in
    assert await play.practice(FOUR_SUITS) == FOUR_SUITS
    first = Game.from_code(FOUR_SUITS)
    for _ in range(2):
        move = first.resolve(next(first.legal_moves()))
        assert move.count is not None
        if metrics is PHONE:
            await play.touch_drag(move.source + 1, move.count, move.target + 1)
        else:
            await play.drag(move.source + 1, move.count, move.target + 1)
        first.push(move)
        await play.shows(first, f"the move {move.text()}")
        await play.settled()
    # to the lobby, and another practice game
    await play.click('[data-view="game"] [data-action="lobby"]')
    await wait_for(lambda: play.find("[data-games]").is_displayed(), 10, "your games")
    assert await run(lambda: len(_listed(play))) == 1
    second = await play.start("practice", 2)
    assert second != FOUR_SUITS
    await play.click('[data-view="game"] [data-action="lobby"]')
    listed = await wait_for(
        lambda: (found := _listed(play)) and len(found) == 2 and found, 10, "both"
    )
    await play.snapshot(f"fit-your-games-{label}")
    assert await run(play.sideways_overflow) == 0
    (wanted,) = [game for game, text in listed.items() if FOUR_SUITS in text]
    assert "2 moves" in listed[wanted] and "Practice · 4 suits" in listed[wanted]
    (other,) = [text for game, text in listed.items() if game != wanted]
    assert second in other and "0 moves" in other

    # the first is taken up again, with its moves
    await play.click(f'[data-resume="{wanted}"]')
    assert await play.dealt() == FOUR_SUITS
    await play.shows(first, "the first game, as it was left")
    assert await run(lambda: play.figure("data-moves")) == 2
