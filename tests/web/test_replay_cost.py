"""What a long game's replay costs, through a real server on both backends: its page holds
a page of positions whatever the game's length, junk in the query string shares one cached
page, the page cache keeps a bounded number of bytes and drops what expired, a replay
costs more of the address's HTTP budget than a light request, over HTTP and over the
websocket, and a finished game's replay is read from the store once.

Long games are written through the store (a move and its undo, again and again): playing
thousands of actions over the websocket would take the test minutes.

Each client address is a loopback address of its own (127.0.0.2, ...), so the server counts
them apart with no proxy in between.
"""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from server.net import RunningServer
from server.net.limits import REPLAY_COST
from server.web.source import REPLAY_PAGE, Source
from tests.conftest import Backend
from tests.support.raw import get_from
from tests.support.servers import (
    Client,
    fresh_clock,
    server_settings,
    serving,
    store_of,
)
from tests.support.store import resigned_long_daily
from tests.support.web import (
    chromium,
    embedded_backend,
    no_cache,
    page,
    run,
    severe_logs,
    wait_for,
)

__all__ = ["chromium"]  # the fixture, used by name

REPLAYER = "127.0.0.2"
LIGHT = "127.0.0.3"
STEP = re.compile(r'data-step="(\d+)"')


async def long_game(server: RunningServer, actions: int) -> str:
    """A public replay (yesterday's ranked daily) of ``actions`` actions and its end: the
    game's id."""
    game = await resigned_long_daily(
        store_of(server),
        day=server.hub.today() - timedelta(days=1),
        actions=actions,
        finished_at=server.hub.now() - timedelta(days=1),
    )
    return game.id


async def test_a_long_games_replay_page_holds_a_page_of_positions(backend: Backend) -> None:
    async with serving(server_settings(backend)) as server:
        base = server.http_url
        sizes = []
        for actions in (600, 2400):
            game = await long_game(server, actions)
            shown = await page(f"{base}/replay/{game}")
            assert shown.status == 200, shown.text
            steps = [int(n) for n in STEP.findall(shown.text)]
            assert steps == list(range(REPLAY_PAGE))  # not every position of the game
            assert f"{actions + 1} actions as the server applied them" in shown.text
            assert f'href="/replay/{game}?from={REPLAY_PAGE}#step-{REPLAY_PAGE}"' in shown.text
            sizes.append(len(shown.body))
            # a page further on: its positions, the ones around it linked
            later = await page(f"{base}/replay/{game}?from={3 * REPLAY_PAGE + 7}")
            assert [int(n) for n in STEP.findall(later.text)] == list(
                range(3 * REPLAY_PAGE, 4 * REPLAY_PAGE)
            )
            assert f"#step-{3 * REPLAY_PAGE - 1}" in later.text  # the previous page's last
            assert 'data-page="first"' in later.text
            # the last page: up to the end, and nothing later
            last = await page(f"{base}/replay/{game}?from={actions + 1}")
            steps = [int(n) for n in STEP.findall(last.text)]
            assert steps[-1] == actions + 1 and 'data-page="next"' not in last.text
        # four times the game, the same page: only the digits of its numbers differ
        assert abs(sizes[1] - sizes[0]) < sizes[0] // 20, sizes

        past = await page(f"{base}/replay/{game}?from={actions + 1 + REPLAY_PAGE}")
        assert past.status == 404 and f"positions 0 to {actions + 1}" in past.text
        bad = await page(f"{base}/replay/{game}?from=-1")
        assert bad.status == 400 and "from is a position" in bad.text


async def test_junk_in_the_query_shares_one_cached_page_within_the_byte_bound(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend)) as server:
        base = server.http_url
        source = Source.of(server.hub)
        source.cache_seconds = 600.0  # nothing expires during the test
        game = await long_game(server, 1000)
        first = await page(f"{base}/replay/{game}")
        assert source.cached_pages == 1
        for n in range(20):
            again = await page(f"{base}/replay/{game}?utm_source={n}&fbclid=x{n}")
            assert again.status == 200 and again.body == first.body
        assert source.cached_pages == 1  # one page, however its links were decorated
        same = await page(f"{base}/replay/{game}?from=0&utm_source=2")
        assert same.body == first.body and source.cached_pages == 1

        # bounded in bytes: room for two pages, five asked for; the oldest went
        source.cache_bytes = 2 * len(first.body) + len(first.body) // 2
        for n in range(1, 6):
            shown = await page(f"{base}/replay/{game}?from={n * REPLAY_PAGE}")
            assert shown.status == 200
            assert source.cached_bytes <= source.cache_bytes
        assert source.cached_pages == 2
        # a page larger than the whole bound is answered, never kept
        source.cache_bytes = len(first.body) // 2
        kept = source.cached_bytes
        assert (await page(f"{base}/replay/{game}?from={6 * REPLAY_PAGE}")).status == 200
        assert source.cached_pages == 2 and source.cached_bytes == kept


async def test_expired_pages_are_dropped_from_the_cache(backend: Backend) -> None:
    clock = fresh_clock(real_intervals=False)
    async with serving(server_settings(backend), clock=clock) as server:
        base = server.http_url
        source = Source.of(server.hub)
        game = await long_game(server, 300)
        for n in range(3):
            assert (await page(f"{base}/replay/{game}?from={n * REPLAY_PAGE}")).status == 200
        assert source.cached_pages == 3
        clock.advance(seconds=source.cache_seconds + 1)
        assert (await page(f"{base}/player/{'nobody-here'}")).status == 404  # not kept
        assert (await page(f"{base}/race")).status == 200
        assert source.cached_pages == 1  # the race's page alone: the replay's expired ones went
        held = source.cached_bytes
        assert 0 < held < 100_000


def _statuses(server: RunningServer, path: str, source: str, count: int) -> list[int]:
    return [get_from(server.host, server.port, path, source=source)[0] for _ in range(count)]


async def test_a_replay_costs_more_of_the_addresss_http_budget(backend: Backend) -> None:
    budget = 20
    settings = server_settings(
        backend, limits_exempt="", http_requests_per_address=budget, http_window_seconds=3600
    )
    async with serving(settings) as server:
        game = await long_game(server, 300)
        path = f"/replay/{game}"
        heavy = await asyncio.to_thread(_statuses, server, path, REPLAYER, budget)
        light = await asyncio.to_thread(_statuses, server, "/daily", LIGHT, budget)
        assert light == [200] * budget  # a light request costs one
        answered = heavy.count(200)
        assert answered == budget // REPLAY_COST and set(heavy[answered:]) == {429}, heavy
        # the replay's actions as JSON cost the same as its page
        status, headers, _ = await asyncio.to_thread(
            get_from, server.host, server.port, path, source=LIGHT
        )
        assert status == 429 and int(headers["Retry-After"]) >= 1
        # and so does its page asked as a live part (it has none, but it is made first)
        other = "127.0.0.4"
        live = await asyncio.to_thread(_statuses, server, f"/live{path}", other, budget)
        answered = budget - live.count(429)
        assert answered == budget // REPLAY_COST, live


async def test_websocket_replays_and_reviews_are_refused_past_the_read_budget(
    backend: Backend,
) -> None:
    budget = 12
    settings = server_settings(
        backend, limits_exempt="", http_requests_per_address=budget, http_window_seconds=3600
    )
    async with serving(settings) as server:
        game = await long_game(server, 300)
        async with Client.connect(server.url, local_addr=(REPLAYER, 0)) as client:
            replies = [await client.request({"type": "replay", "game": game}) for _ in range(4)]
            answered = budget // REPLAY_COST
            assert [r["type"] for r in replies[:answered]] == ["replay"] * answered
            assert all(len(r["moves"]) == 301 for r in replies[:answered])
            refused = replies[answered:]
            assert {(r["type"], r["code"]) for r in refused} == {("error", "rate-limited")}
            assert all(r["detail"]["retry_after"] >= 1 for r in refused)
            # what is left of the budget: a review costs one (this one refused otherwise)
            left = budget - answered * REPLAY_COST
            reviews = [
                await client.request({"type": "review", "game": game}) for _ in range(left + 2)
            ]
            assert all(r.get("code") != "rate-limited" for r in reviews[:left]), reviews
            assert {r.get("code") for r in reviews[left:]} == {"rate-limited"}, reviews


async def test_a_finished_games_replay_is_read_from_the_store_once(backend: Backend) -> None:
    async with serving(server_settings(backend)) as server:
        game = await long_game(server, 300)
        after = server.hub.after
        loads = after.replay_loads
        async with Client.connect(server.url) as client:
            first = await client.request({"type": "replay", "game": game})
            second = await client.request({"type": "replay", "game": game})
        assert first["type"] == second["type"] == "replay"
        assert second["moves"] == first["moves"] and len(first["moves"]) == 301
        no_cache(server)
        assert (await page(f"{server.http_url}/replay/{game}")).status == 200
        assert after.replay_loads == loads + 1  # the second replay and the page: kept
        # who may see it is still asked each time: an unknown game is not found
        async with Client.connect(server.url) as client:
            missing = await client.request({"type": "replay", "game": "nope"})
        assert missing["code"] == "not-found"


async def test_stepping_past_a_page_opens_the_next_in_chromium(
    chromium: Any, tmp_path: Path
) -> None:
    driver = chromium
    async with serving(server_settings(embedded_backend(tmp_path))) as server:
        game = await long_game(server, 2 * REPLAY_PAGE + 10)
        base = f"{server.http_url}/replay/{game}"
        await run(lambda: driver.get(f"{base}#step-{REPLAY_PAGE - 1}"))

        def shown() -> list[str]:
            found = driver.find_elements(By.CSS_SELECTOR, "[data-step]")
            return [e.get_attribute("data-step") for e in found if e.is_displayed()]

        assert await run(shown) == [str(REPLAY_PAGE - 1)]
        body = await run(lambda: driver.find_element(By.TAG_NAME, "body"))
        await run(lambda: body.send_keys(Keys.ARROW_RIGHT))
        await wait_for(lambda: "?from=" in driver.current_url and shown(), 30, "the next page")
        assert (await run(lambda: driver.current_url)).endswith(
            f"?from={REPLAY_PAGE}#step-{REPLAY_PAGE}"
        )
        assert await run(shown) == [str(REPLAY_PAGE)]
        body = await run(lambda: driver.find_element(By.TAG_NAME, "body"))
        await run(lambda: body.send_keys(Keys.ARROW_LEFT))  # back to the page before
        await wait_for(lambda: "?from=" not in driver.current_url and shown(), 30, "the first")
        assert await run(shown) == [str(REPLAY_PAGE - 1)]
        body = await run(lambda: driver.find_element(By.TAG_NAME, "body"))
        await run(lambda: body.send_keys(Keys.END))  # the last position, on the last page
        last = 2 * REPLAY_PAGE + 11
        await wait_for(lambda: shown() == [str(last)], 30, "the last position")
        at = await run(lambda: driver.find_element(By.CSS_SELECTOR, "[data-step-at]").text)
        assert at == str(last)
        assert await run(lambda: severe_logs(driver)) == []
