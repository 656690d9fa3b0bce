"""The pages in a real headless Chromium (Debian's, through chromium-driver): a result
appears on ``/`` without a reload, a day's board pages, a player's page opens, the
keyboard reaches everything, and nothing breaks the content security policy. Screenshots
(phone width, 1920 px, dark) are saved under ``artifacts/web/``.

One backend (the embedded one) is enough here: every route is tested over plain HTTP on
both in ``test_web_http.py``.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from server.play.daily.deals import Proof
from server.web.pages import POLL_SECONDS
from tests.support.rooms import DEAL, revealed, room_clock, room_event, room_reply, signed_up
from tests.support.servers import (
    HOLD_EVERYTHING,
    Client,
    fresh_clock,
    quick_prover,
    server_settings,
    serving,
)
from tests.support.web import (
    chromium,
    embedded_backend,
    finish_daily,
    no_cache,
    run,
    screenshot,
    severe_logs,
    wait_for,
)

__all__ = ["chromium"]  # the fixture, used by name


def board_names(driver: Any, suits: int | None = None) -> list[str]:
    scope = f"#board-{suits} ~ * " if suits else ""
    rows = driver.find_elements(By.CSS_SELECTOR, f"{scope}table.board tbody th a")
    return [row.text for row in rows]


async def test_a_finished_game_appears_on_the_home_page_without_a_reload(
    chromium: Any, tmp_path: Path
) -> None:
    driver = chromium
    clock = fresh_clock()
    async with serving(server_settings(embedded_backend(tmp_path)), clock=clock) as server:
        await run(lambda: driver.set_window_size(1280, 900))
        await run(lambda: driver.get(f"{server.http_url}/"))
        heading = await run(lambda: driver.find_element(By.TAG_NAME, "h1").text)
        assert heading == "Today's daily challenge"
        assert await run(lambda: driver.title) == "Today's boards · Simple Simon Online"
        # A mark on this document: a reload would lose it.
        await run(lambda: driver.execute_script("window.stillTheSamePage = true"))
        name = await finish_daily(server.url, suits=2)
        await wait_for(
            lambda: name in driver.find_element(By.ID, "board-2").find_element(By.XPATH, "..").text,
            POLL_SECONDS * 3 + 2,
            f"{name} on the 2-suit board",
        )
        assert await run(lambda: driver.execute_script("return window.stillTheSamePage === true"))
        section_text = await wait_for(
            lambda: driver.find_element(By.ID, "board-2").find_element(By.XPATH, "..").text,
            5,
            "the 2-suit board's section",
        )
        assert "1 player" in section_text
        # The countdown runs in the browser: "11:59:5x" a moment after noon on the clock.
        countdown = await wait_for(
            lambda: driver.find_element(By.CSS_SELECTOR, "[data-countdown]").text, 5, "countdown"
        )
        assert countdown.startswith("11:59:") or countdown == "12:00:00", countdown
        status = await wait_for(
            lambda: driver.find_element(By.CSS_SELECTOR, "[data-live-status]").text, 5, "status"
        )
        assert status.startswith("Updated at")
        await run(lambda: screenshot(driver, "home-1280"))
        await run(lambda: screenshot(driver, "home-phone-390", width=390))
        await run(lambda: screenshot(driver, "home-1920", width=1920))
        # Readable at a phone's width: nothing wider than the screen but the tables' own scroll.
        await run(lambda: driver.set_window_size(390, 900))
        overflow = await run(
            lambda: driver.execute_script(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
            )
        )
        assert overflow <= 0
        assert await run(lambda: severe_logs(driver)) == []


async def test_paging_through_a_day_and_opening_a_players_page(
    chromium: Any, tmp_path: Path
) -> None:
    driver = chromium
    clock = fresh_clock()
    async with serving(server_settings(embedded_backend(tmp_path)), clock=clock) as server:
        players = {await finish_daily(server.url, suits=1) for _ in range(5)}
        day = clock.now().date().isoformat()
        await run(lambda: driver.set_window_size(1280, 900))
        await run(lambda: driver.get(f"{server.http_url}/day/{day}?suits=1&limit=2"))
        seen: list[str] = []
        for page_number in range(1, 4):
            seen += await run(lambda: board_names(driver))
            ranks = await run(
                lambda: [
                    cell.text
                    for cell in driver.find_elements(By.CSS_SELECTOR, "tbody tr td:first-child")
                ]
            )
            assert (
                ranks
                == [str(r) for r in range(2 * page_number - 1, 2 * page_number + 1)][: len(ranks)]
            )
            following = await run(lambda: driver.find_elements(By.CSS_SELECTOR, "a[rel=next]"))
            following = [link for link in following if "after=" in link.get_attribute("href")]
            if not following:
                break
            await run(following[0].click)
        assert page_number == 3 and len(seen) == 5 and set(seen) == players
        await run(lambda: screenshot(driver, "day-last-page"))

        # The search box, by keyboard: type a name, press Enter, land on the rank.
        target = seen[3]
        box = await run(lambda: driver.find_element(By.ID, "find"))
        await run(lambda: box.send_keys(target, Keys.ENTER))
        await wait_for(
            lambda: driver.find_elements(By.CSS_SELECTOR, "tr.me"), 5, "the found row highlighted"
        )
        found = await run(lambda: driver.find_element(By.CSS_SELECTOR, "tr.me").text)
        assert found.startswith(f"4 {target}")
        assert f"{target} is #4" in await run(
            lambda: driver.find_element(By.CSS_SELECTOR, ".total").text
        )

        # A player's page from the board.
        await run(lambda: driver.find_element(By.LINK_TEXT, target).click())
        await wait_for(lambda: driver.find_element(By.TAG_NAME, "h1").text == target, 5, "h1")
        chart = await run(lambda: driver.find_element(By.CSS_SELECTOR, "figure.chart svg"))
        assert await run(lambda: chart.get_attribute("role")) == "img"
        assert len(await run(lambda: chart.find_elements(By.TAG_NAME, "circle"))) == 1
        games = await run(lambda: driver.find_elements(By.CSS_SELECTOR, "table.board tbody tr"))
        assert len(games) == 1 and "#4" in await run(lambda: games[0].text)
        await run(lambda: screenshot(driver, "player"))
        await run(lambda: screenshot(driver, "player-phone-390", width=390))
        assert await run(lambda: severe_logs(driver)) == []


async def test_the_keyboard_reaches_the_boards_and_dark_mode_follows_the_system(
    chromium: Any, tmp_path: Path
) -> None:
    driver = chromium
    async with serving(server_settings(embedded_backend(tmp_path)), clock=fresh_clock()) as server:
        await finish_daily(server.url, suits=1)
        await run(lambda: driver.set_window_size(1280, 900))
        await run(lambda: driver.get(f"{server.http_url}/"))
        body = await run(lambda: driver.find_element(By.TAG_NAME, "body"))
        await run(lambda: body.send_keys(Keys.TAB))
        active = await run(lambda: driver.switch_to.active_element)
        assert await run(lambda: active.text) == "Skip to content"
        await run(lambda: active.send_keys(Keys.ENTER))
        assert await run(lambda: driver.switch_to.active_element.get_attribute("id")) == "main"
        # Tab from the main content reaches a player's link on the first board.
        for _ in range(6):
            await run(lambda: driver.switch_to.active_element.send_keys(Keys.TAB))
            href = await run(lambda: driver.switch_to.active_element.get_attribute("href")) or ""
            if "/player/" in href:
                break
        assert "/player/" in href

        def background(scheme: str) -> str:
            driver.execute_cdp_cmd(
                "Emulation.setEmulatedMedia",
                {"features": [{"name": "prefers-color-scheme", "value": scheme}]},
            )
            return str(
                driver.execute_script("return getComputedStyle(document.body).backgroundColor")
            )

        light = await run(lambda: background("light"))
        dark = await run(lambda: background("dark"))
        assert light == "rgb(246, 247, 244)" and dark == "rgb(18, 21, 19)"
        await run(lambda: screenshot(driver, "home-dark"))
        await run(lambda: background("light"))
        # Suit symbols are hidden from screen readers; the words say the same.
        hidden = await run(
            lambda: driver.find_elements(By.CSS_SELECTOR, "h2 .suits[aria-hidden=true]")
        )
        assert len(hidden) == 3
        assert await run(lambda: severe_logs(driver)) == []


async def test_a_race_rooms_page_in_each_state_of_its_room(chromium: Any, tmp_path: Path) -> None:
    """``/race/CODE`` open, counting down (the clock runs in the browser), racing, over with
    its results, and expired: each says what the room is doing, and only an open room
    invites racers to join."""
    driver = chromium
    clock = room_clock()
    settings = server_settings(embedded_backend(tmp_path))
    async with (
        serving(settings, clock=clock) as server,
        Client.connect(server.url) as alice,
        Client.connect(server.url) as bob,
    ):
        no_cache(server)
        ann = (await signed_up(alice, "ann"))["player"]["name"]
        ben = (await signed_up(bob, "ben"))["player"]["name"]
        code = (await room_reply(alice, {"type": "race_new", "code": DEAL}))["code"]
        idle = (await room_reply(bob, {"type": "race_new"}))["code"]
        await room_reply(bob, {"type": "race_join", "code": code})
        await run(lambda: driver.set_window_size(1280, 900))

        def shown(room: str) -> tuple[str, str, list[str]]:
            """The room's page, loaded afresh: its state line, all its text, the racers'
            state column."""
            driver.get(f"{server.http_url}/race/{room}")
            cells = driver.find_elements(By.CSS_SELECTOR, "tbody tr td:nth-child(3)")
            text = driver.find_element(By.TAG_NAME, "main").text
            line = driver.find_element(By.CSS_SELECTOR, ".total").text
            return line, text, [cell.text for cell in cells]

        line, text, states = await run(lambda: shown(code))
        assert line.startswith("Waiting for the start: 2 of 10 racers in.")
        assert f"simon race join {code}" in line and states == ["waiting", "waiting"]

        await run(lambda: driver.execute_script("window.stillTheSamePage = true"))
        await room_reply(alice, {"type": "race_start", "code": code})
        # the open page turns to the countdown by itself, and its clock runs
        await wait_for(
            lambda: (
                {"0:09", "0:08"}
                & {clock.text for clock in driver.find_elements(By.CSS_SELECTOR, ".total time")}
            ),
            POLL_SECONDS * 3 + 5,
            "the countdown, live, ticking",
        )
        assert await run(lambda: driver.execute_script("return window.stillTheSamePage === true"))
        line, text, states = await run(lambda: shown(code))
        assert line.startswith("The countdown is on: the deal is revealed to every racer at once")
        # the server's 10 s, as the browser's clock reads it a moment after the load
        assert re.search(r" in 0:(10|0[5-9])\. It is too late to join\.", line), line
        assert "expired" not in text
        assert DEAL not in text and states == ["waiting", "waiting"]
        # the countdown runs in the browser, while the server's clock stands still
        await wait_for(
            lambda: driver.find_element(By.CSS_SELECTOR, ".total time").text in ("0:09", "0:08"),
            5,
            "the countdown ticking",
        )
        await run(lambda: screenshot(driver, "room-countdown"))

        clock.advance(seconds=10)
        await revealed(alice)
        await revealed(bob)
        line, text, states = await run(lambda: shown(code))
        assert line.startswith(f"Racing on {DEAL}, until ") and "UTC at the latest." in line
        assert "expired" not in text and "Join it" not in text
        assert "Racers take their race up again in the browser" in line  # after a drop
        assert states == ["playing", "playing"]
        await run(lambda: screenshot(driver, "room-racing"))
        await run(lambda: screenshot(driver, "room-racing-phone-390", width=390))
        standings = await run(lambda: driver.find_element(By.CSS_SELECTOR, ".scroll"))
        sideways = await run(
            lambda: driver.execute_script(
                "return arguments[0].scrollWidth - arguments[0].clientWidth", standings
            )
        )
        assert sideways <= 0  # at a phone's width the standings fit, the moves column dropped

        for racer in (alice, bob):
            resigned = await racer.request({"type": "resign"})
            assert resigned["type"] == "state", resigned
        await room_event(alice, "over", code)
        await run(lambda: driver.set_window_size(1280, 900))
        line, text, states = await run(lambda: shown(code))
        assert line == f"This race is over: the deal was {DEAL}; the results are below."
        assert "Join it from the terminal" not in text and "simon race join" not in text
        caption = await run(lambda: driver.find_element(By.CSS_SELECTOR, "caption").text)
        assert caption == "Results" and states == ["resigned replay", "resigned replay"]
        names = await run(lambda: board_names(driver))
        assert sorted(names) == sorted([ann, ben])
        await run(lambda: screenshot(driver, "room-over"))

        clock.advance(minutes=61)  # an hour since the idle room opened, nobody started it
        await server.hub.rooms.sweep()
        line, text, _ = await run(lambda: shown(idle))
        assert line == "This room expired before its race started."
        assert "simon race join" not in text
        assert await run(lambda: severe_logs(driver)) == []


async def test_a_held_daily_is_told_as_held_on_the_player_and_day_pages(
    chromium: Any, tmp_path: Path
) -> None:
    """A first daily held for review: the player's page counts it as held beside the
    figures that count it (it used to say "No finished games yet" beside "Games finished
    1"), and the day's board says so when the player is looked up, without the result."""
    driver = chromium
    clock = fresh_clock()
    settings = server_settings(embedded_backend(tmp_path), fairplay=HOLD_EVERYTHING)
    async with serving(settings, clock=clock) as server:
        no_cache(server)
        name = await finish_daily(server.url, suits=1)
        day = clock.now().date().isoformat()
        await run(lambda: driver.set_window_size(1280, 900))
        await run(lambda: driver.get(f"{server.http_url}/player/{name}"))
        figures = await run(lambda: driver.find_element(By.CSS_SELECTOR, "dl.figures").text)
        assert "Games finished\n1" in figures
        games = await run(lambda: driver.find_element(By.ID, "games").find_element(By.XPATH, ".."))
        text = await run(lambda: games.text)
        assert "1 daily result is held for fair-play review" in text
        assert "No finished games yet" not in text and "500" not in text  # not the result
        await run(lambda: screenshot(driver, "player-held"))
        await run(lambda: screenshot(driver, "player-held-phone-390", width=390))

        await run(lambda: driver.set_window_size(1280, 900))
        await run(lambda: driver.get(f"{server.http_url}/day/{day}?suits=1&player={name}"))
        notice = await run(lambda: driver.find_element(By.CSS_SELECTOR, ".notice").text)
        assert notice.startswith(f"{name}'s result on this board that day is held for fair-play")
        assert name not in await run(lambda: " ".join(board_names(driver)))
        await run(lambda: screenshot(driver, "day-held"))
        footer = await run(lambda: driver.find_element(By.TAG_NAME, "footer").text)
        # a player's words: where to play, never how to install from a copy of the source
        assert "in a terminal with the simon client" in footer and "pip" not in footer
        assert await run(lambda: severe_logs(driver)) == []


async def test_while_the_deals_are_proven_the_boards_are_served_empty(
    chromium: Any, tmp_path: Path
) -> None:
    """A fresh server's first start: the boards' page is served at once while today's
    deals are proven, today's boards empty (nobody can have played them yet)."""
    driver = chromium
    proven = asyncio.Event()

    async def slow_prover(code: str) -> Proof:
        await proven.wait()
        return await quick_prover(code)

    settings = server_settings(embedded_backend(tmp_path))
    async with serving(settings, clock=fresh_clock(), prover=slow_prover, ready=False) as server:
        no_cache(server)
        await run(lambda: driver.set_window_size(1280, 900))
        await run(lambda: driver.get(f"{server.http_url}/"))
        h1 = await run(lambda: driver.find_element(By.TAG_NAME, "h1").text)
        assert h1 == "Today's daily challenge"
        assert not server.hub.daily.ready(server.hub.today())  # still proving
        proven.set()
