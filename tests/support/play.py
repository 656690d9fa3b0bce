"""The play page (``/play``) in a real Chromium, played with real input: mouse and touch
events from Chromium's DevTools protocol (``Input.dispatchMouseEvent`` and
``Input.dispatchTouchEvent``), the same events a person's mouse or finger makes. The page
is only read here (its hooks: ``[data-column]``, ``[data-card]``, ``[data-moves]``, ...),
never called into.

::

    table = PlayPage(driver)
    await table.open(f"{server.http_url}/play")
    await table.register(unique_name("ann"))
    await table.drag(3, 1, 7)            # the last card of column 3 onto column 7
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By

from server.engine import Game
from server.play.daily.deals import Proof
from server.solver import solve
from tests.support.servers import quick_prover
from tests.support.web import ARTIFACTS, run, severe_logs, wait_for

#: Viewports the page must fit with no sideways scrolling.
DESKTOP = {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False}
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True}

_READ_COLUMNS = """
return Array.from(document.querySelectorAll('[data-column]')).map(
  (column) => Array.from(column.querySelectorAll('[data-card]')).map((card) => card.dataset.card));
"""
#: Whether a card is on its way (the page's glides, motion.js, or a drop's drawing put off
#: until its answer, table.js): read, never changed.
_GLIDING = """
return document.querySelector('[data-board][data-put-off]') !== null
  || document.getAnimations().some((a) => a.id === 'glide' && a.playState === 'running');
"""
_RECT = """
const r = arguments[0].getBoundingClientRect();
return [r.left, r.top, r.width, r.height];
"""


class SolvingProver:
    """Proves 1-suit deals with the solver (in a thread) and keeps their solutions, so a
    test can play today's 1-suit deal or a room's fresh deal to the end; other suit counts
    get the quick prover (a legal first move is enough)."""

    def __init__(self) -> None:
        self.solutions: dict[str, list[str]] = {}

    async def __call__(self, code: str) -> Proof:
        if not code.startswith("SS1-S1-"):
            return await quick_prover(code)
        moves = await asyncio.to_thread(self.solution, code)
        return Proof(bool(moves), len(moves) or None)

    def solution(self, code: str) -> list[str]:
        """The moves that win ``code`` (explicit counts), solved once."""
        if code not in self.solutions:
            found = solve(Game.from_code(code), shorten=False)
            self.solutions[code] = [move.text() for move in found.moves]
        return self.solutions[code]


def board_of(game: Game) -> list[list[str]]:
    """The columns as the page's hooks hold them: card texts, deepest first."""
    return [line.split() for line in game.board_text().split("\n")[:10]]


class PlayPage:
    """One browser tab on ``/play``: reads its hooks, plays with real pointer input."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver

    # -- the browser ------------------------------------------------------------------

    async def viewport(self, metrics: dict[str, Any], *, touch: bool = False) -> None:
        """Emulate a screen (``DESKTOP``, ``PHONE``), with a touch screen or not."""
        await run(
            lambda: self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
        )
        await run(
            lambda: self.driver.execute_cdp_cmd(
                "Emulation.setTouchEmulationEnabled", {"enabled": touch, "maxTouchPoints": 5}
            )
        )

    async def plain(self) -> None:
        """Back to the browser's own window and mouse (for the other tests of the session)."""
        await run(lambda: self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {}))
        await run(
            lambda: self.driver.execute_cdp_cmd(
                "Emulation.setTouchEmulationEnabled", {"enabled": False}
            )
        )

    async def open(self, url: str) -> None:
        await run(lambda: self.driver.get(url))

    def find(self, selector: str) -> Any:
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def text(self, selector: str) -> str:
        return str(self.driver.find_element(By.CSS_SELECTOR, selector).text)

    async def click(self, selector: str) -> None:
        """A real click (WebDriver moves the mouse there and clicks)."""
        await run(lambda: self.find(selector).click())

    async def type_keys(self, *keys: str) -> None:
        """Keys typed to the page (to the element that has the focus)."""
        from selenium.webdriver.common.action_chains import ActionChains

        await run(lambda: ActionChains(self.driver).send_keys(*keys).perform())

    async def register(self, name: str, *, then: str = "lobby") -> None:
        """Sign up as ``name`` on the welcome form; wait for the view ``then``."""
        await wait_for(
            lambda: self.find('form[data-form="register"]').is_displayed(), 10, "the form"
        )
        field = await run(lambda: self.find('form[data-form="register"] input[name="name"]'))
        await run(lambda: field.send_keys(name))
        await self.click('form[data-form="register"] button[type="submit"]')
        await wait_for(
            lambda: any(self.find(f'[data-view="{view}"]').is_displayed() for view in then.split()),
            10,
            f"the {then} view",
        )

    async def snapshot(self, name: str) -> Path:
        """The viewport as ``artifacts/web/NAME.png``."""
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        assert await run(lambda: self.driver.save_screenshot(str(path))), path
        return path

    async def start(self, mode: str, suits: int) -> str:
        """Press a start button; returns the dealt game's code once its table shows."""
        await wait_for(
            lambda: self.find(f'[data-start="{mode}"][data-suits="{suits}"]').is_displayed(),
            10,
            "the start button",
        )
        await self.click(f'[data-start="{mode}"][data-suits="{suits}"]')
        return await self.dealt()

    async def practice(self, code: str) -> str:
        """Type a deal's code in the lobby's practice form and play it."""
        await self.practice_code(code)
        return await self.dealt()

    async def practice_code(self, code: str) -> None:
        """Type ``code`` in the lobby's practice form (in place of what it held) and send it."""
        field = await run(lambda: self.find('form[data-form="practice-code"] input[name="code"]'))
        await run(field.clear)
        await run(lambda: field.send_keys(code))
        await self.click('form[data-form="practice-code"] button[type="submit"]')

    async def dealt(self) -> str:
        """The code of the game on the table, once it shows."""
        await wait_for(lambda: self.find('[data-view="game"]').is_displayed(), 15, "the table")
        code = await wait_for(
            lambda: self.find('[data-view="game"]').get_attribute("data-code"), 5, "the code"
        )
        return str(code)

    # -- reading the table ------------------------------------------------------------

    def columns(self) -> list[list[str]]:
        return list(self.driver.execute_script(_READ_COLUMNS))

    async def shows(self, game: Game, what: str, timeout: float = 10) -> None:
        """Wait until the table shows ``game``'s board."""
        expected = board_of(game)
        await wait_for(lambda: self.columns() == expected, timeout, what)

    async def settled(self, timeout: float = 10) -> None:
        """Wait until no move is on its way (every one answered by the server)."""
        await wait_for(
            lambda: self.find("[data-board]").get_attribute("data-pending") == "0",
            timeout,
            "every move answered",
        )

    async def landed(self, timeout: float = 5) -> None:
        """Wait until no card glides (a card read mid-flight is not where it lies)."""
        await run(partial(self._landed, timeout))

    def result(self) -> str | None:
        """``[data-result]`` once a game is finished (``won``, ``resigned``, ...), else None."""
        found = self.driver.find_elements(By.CSS_SELECTOR, "[data-result]")
        return str(found[0].get_attribute("data-result")) if found else None

    def figure(self, hook: str) -> int:
        return int(self.text(f"[{hook}]"))

    def legal_columns(self) -> list[int]:
        found = self.driver.find_elements(By.CSS_SELECTOR, '[data-column][data-legal="true"]')
        return [int(column.get_attribute("data-column")) for column in found]

    def _rect(self, selector: str, index: int = -1) -> tuple[float, float, float, float]:
        elements = self.driver.find_elements(By.CSS_SELECTOR, selector)
        left, top, width, height = self.driver.execute_script(_RECT, elements[index])
        return left, top, width, height

    def card_point(self, column: int, count: int) -> tuple[float, float]:
        """A point on the visible strip of the card ``count`` from the end of ``column``."""
        left, top, width, _ = self._rect(f'[data-column="{column}"] [data-card]', -count)
        return left + width / 2, top + 6

    def column_point(self, column: int) -> tuple[float, float]:
        """The middle of the exposed card of ``column`` (or of its empty place)."""
        cards = self.driver.find_elements(By.CSS_SELECTOR, f'[data-column="{column}"] [data-card]')
        if cards:
            left, top, width, height = self._rect(f'[data-column="{column}"] [data-card]')
        else:
            left, top, width, height = self._rect(f'[data-column="{column}"]', 0)
            height = min(height, 80)
        return left + width / 2, top + height / 2

    # -- real input -------------------------------------------------------------------

    def _landed(self, timeout: float = 2.0) -> None:
        """Wait while a card glides (as a person waits to see where it lands): a point read
        on a moving card is not where the card is when the press comes."""
        deadline = time.monotonic() + timeout
        while self.driver.execute_script(_GLIDING) and time.monotonic() < deadline:
            time.sleep(0.02)

    def _mouse(self, kind: str, x: float, y: float, *, buttons: int, clicks: int = 1) -> None:
        event = {"type": kind, "x": x, "y": y, "button": "left", "buttons": buttons}
        if kind != "mouseMoved":
            event["clickCount"] = clicks
        else:
            event["button"] = "left" if buttons else "none"
        self.driver.execute_cdp_cmd("Input.dispatchMouseEvent", event)

    def _drag(self, start: tuple[float, float], end: tuple[float, float], steps: int) -> None:
        (x0, y0), (x1, y1) = start, end
        self._mouse("mouseMoved", x0, y0, buttons=0)
        self._mouse("mousePressed", x0, y0, buttons=1)
        for step in range(1, steps + 1):
            self._mouse(
                "mouseMoved",
                x0 + (x1 - x0) * step / steps,
                y0 + (y1 - y0) * step / steps,
                buttons=1,
            )
        self._mouse("mouseReleased", x1, y1, buttons=0)

    async def drag(self, source: int, count: int, target: int, steps: int = 8) -> None:
        """Press on the group's first card, move to the target column, release."""

        def go() -> None:
            self._landed()
            self._drag(self.card_point(source, count), self.column_point(target), steps)

        await run(go)

    async def press_and_hold(self, source: int, count: int, towards: int) -> None:
        """Press on a group and move half way to a column, without releasing."""

        def go() -> None:
            self._landed()
            x0, y0 = self.card_point(source, count)
            x1, y1 = self.column_point(towards)
            self._mouse("mousePressed", x0, y0, buttons=1)
            for step in range(1, 5):
                self._mouse(
                    "mouseMoved", x0 + (x1 - x0) * step / 8, y0 + (y1 - y0) * step / 8, buttons=1
                )

        await run(go)

    async def release_on(self, column: int) -> None:
        def go() -> None:
            x, y = self.column_point(column)
            self._mouse("mouseMoved", x, y, buttons=1)
            self._mouse("mouseReleased", x, y, buttons=0)

        await run(go)

    async def double_click(self, column: int, count: int) -> None:
        def go() -> None:
            self._landed()
            x, y = self.card_point(column, count)
            self._mouse("mouseMoved", x, y, buttons=0)
            for clicks in (1, 2):
                self._mouse("mousePressed", x, y, buttons=1, clicks=clicks)
                self._mouse("mouseReleased", x, y, buttons=0, clicks=clicks)

        await run(go)

    def _touch(self, kind: str, points: list[tuple[float, float]]) -> None:
        self.driver.execute_cdp_cmd(
            "Input.dispatchTouchEvent",
            {"type": kind, "touchPoints": [{"x": x, "y": y, "id": 1} for x, y in points]},
        )

    async def touch_drag(self, source: int, count: int, target: int, steps: int = 8) -> None:
        def go() -> None:
            self._landed()
            (x0, y0), (x1, y1) = self.card_point(source, count), self.column_point(target)
            self._touch("touchStart", [(x0, y0)])
            for step in range(1, steps + 1):
                self._touch(
                    "touchMove", [(x0 + (x1 - x0) * step / steps, y0 + (y1 - y0) * step / steps)]
                )
            self._touch("touchEnd", [])

        await run(go)

    async def double_tap(self, column: int, count: int) -> None:
        def go() -> None:
            self._landed()
            x, y = self.card_point(column, count)
            for _ in range(2):
                self._touch("touchStart", [(x, y)])
                self._touch("touchEnd", [])

        await run(go)

    def sideways_overflow(self) -> int:
        """How many pixels the page is wider than the viewport (0: no sideways scrolling)."""
        return int(
            self.driver.execute_script(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
        )


def shown(play: PlayPage, selector: str) -> bool:
    """Whether the page shows the first element ``selector`` finds (there is one, displayed)."""
    found = play.driver.find_elements("css selector", selector)
    return bool(found) and bool(found[0].is_displayed())


@asynccontextmanager
async def fresh_table(driver: Any, origin: str) -> AsyncIterator[PlayPage]:
    """A tab at 1280x800 on ``origin`` with nothing stored for it (a new visitor), the console
    read of what earlier tests left; afterwards no error may be in the console, and the screen
    and media a test emulated are the browser's own again."""
    table = PlayPage(driver)
    await table.viewport(DESKTOP)
    await table.open(f"{origin}/healthz")
    await run(
        lambda: driver.execute_cdp_cmd(
            "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"}
        )
    )
    await run(lambda: driver.get_log("browser"))
    yield table
    errors = await run(lambda: severe_logs(driver))
    await run(lambda: driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []}))
    await table.plain()
    assert errors == []
