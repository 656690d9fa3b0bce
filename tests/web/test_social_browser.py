"""Friends and leagues in the play page, in a real headless Chromium with real input
(WebDriver clicks and keys), beside other accounts over the websocket: a player follows
another from the Friends panel, is told when they finish today's daily, sees only who
finished before their own daily is done, then the friends' board after it; a league made
in the page, its invitation opened by a second account in the browser and joined, today's
places and points and the season's table. The league's public web page: a 404 while it is
private, the table once its owner made it public.

Screenshots of the Friends panel and a league's page at 1280x800 and 390x844 go to
artifacts/web/.
"""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.net import RunningServer
from tests.support.play import DESKTOP, PHONE, PlayPage, fresh_table, shown
from tests.support.servers import Client, fresh_clock, server_settings, serving, unique_name
from tests.support.web import chromium, embedded_backend, run, wait_for

__all__ = ["chromium"]  # the fixture, used by name

HELLO = {"type": "hello", "version": 1, "client": "test", "legal": True}


@pytest.fixture(scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[RunningServer]:
    settings = server_settings(embedded_backend(tmp_path_factory.mktemp("social")))
    async with serving(settings, clock=fresh_clock()) as server:
        yield server


def site(server: RunningServer) -> str:
    return f"http://127.0.0.1:{server.port}"


@pytest.fixture
async def play(chromium: Any, served: RunningServer) -> AsyncIterator[PlayPage]:
    async with fresh_table(chromium, site(served)) as table:
        yield table


def texts(play: PlayPage, selector: str) -> list[str]:
    return [str(e.text) for e in play.driver.find_elements("css selector", selector)]


async def typed(play: PlayPage, selector: str, text: str) -> None:
    field = await run(lambda: play.find(selector))
    await run(field.clear)
    await run(lambda: field.send_keys(text))


async def open_panel(play: PlayPage, name: str) -> None:
    await play.click('[data-action="account"]')
    await wait_for(lambda: shown(play, f'#account-menu [data-panel="{name}"]'), 5, "the menu")
    await play.click(f'#account-menu [data-panel="{name}"]')
    await wait_for(lambda: shown(play, f'[data-panel-content="{name}"]'), 5, f"the {name} panel")


async def close_panel(play: PlayPage) -> None:
    await play.click('[data-action="close-panel"]')
    await wait_for(lambda: not shown(play, "[data-panel-box]"), 5, "the panel closed")


async def pictures(play: PlayPage, name: str) -> None:
    await play.snapshot(f"social-{name}-desktop")
    await play.viewport(PHONE)
    await play.snapshot(f"social-{name}-phone")
    await play.viewport(DESKTOP)


async def player(client: Client, name: str) -> str:
    await client.request(HELLO)
    reply = await client.request({"type": "register", "name": name})
    assert reply["type"] == "registered", reply
    return str(reply["token"])


async def resign_daily(client: Client, suits: int) -> None:
    started = await client.request({"type": "start", "mode": "daily", "suits": suits})
    assert started["type"] == "state", started
    resigned = await client.request({"type": "resign"})
    assert resigned["type"] in ("finished", "moved", "state"), resigned


async def resign_in_page(play: PlayPage, suits: int) -> None:
    await play.start("daily", suits)
    await play.click('[data-action="resign"]')
    await play.click('[data-action="resign"]')
    assert await wait_for(play.result, 15, "the result") == "resigned"


async def test_friends_follow_each_other_and_see_the_board_only_after_their_own_daily(
    play: PlayPage, served: RunningServer
) -> None:
    me, friend = unique_name("ann"), unique_name("bob")
    await play.open(f"{site(served)}/play")
    await play.register(me)
    async with Client.connect(served.url) as bob:
        await player(bob, friend)
        assert (await bob.request({"type": "follow", "name": me}))["type"] == "following"
        # the lobby has its friends' part, the menu its Friends panel
        await wait_for(lambda: shown(play, "[data-lobby-friends]"), 10, "the lobby's friends")
        await open_panel(play, "friends")
        await wait_for(
            lambda: friend in " ".join(texts(play, '[data-list="followers"] li')), 5, "a follower"
        )
        await typed(play, "#follow-name", friend)
        await play.click('form[data-form="follow"] button[type="submit"]')
        await wait_for(
            lambda: friend in " ".join(texts(play, '[data-list="following"] li')), 5, "followed"
        )
        assert not play.driver.find_elements(
            "css selector", '[data-list="followers"] [data-do="follow"]'
        )
        await pictures(play, "friends")
        # Bob finishes his daily: told at once, and before mine only that he finished
        await resign_daily(bob, 1)
        await wait_for(lambda: friend in play.text("[data-toast]"), 10, "the toast")
        assert "1-suit daily" in play.text("[data-toast]")
        await close_panel(play)
        await play.open(f"{site(served)}/play")
        finished = '[data-friends-boards] [data-friends-board="1"] [data-finished]'
        await wait_for(lambda: shown(play, finished), 10, "who finished")
        assert friend in play.text(finished)
        assert not play.driver.find_elements("css selector", "[data-friends-boards] table")
        await play.snapshot("social-lobby-desktop")
        # my own daily done: the board with both of us, ranked
        await resign_in_page(play, 1)
        rows = "[data-result-friends] tbody tr"
        await wait_for(lambda: len(texts(play, rows)) == 2, 10, "the friends' board")
        names = {
            row.get_attribute("data-player")
            for row in play.driver.find_elements("css selector", rows)
        }
        assert names == {me, friend}
        await play.snapshot("social-result-desktop")
        # unfollow from the panel
        await play.click('[data-action="close-result"]')
        await open_panel(play, "friends")
        await wait_for(
            lambda: shown(
                play, f'[data-list="following"] [data-do="unfollow"][data-name="{friend}"]'
            ),
            5,
            "unfollow",
        )
        await play.click(f'[data-list="following"] [data-do="unfollow"][data-name="{friend}"]')
        await wait_for(
            lambda: friend not in " ".join(texts(play, '[data-list="following"] li')),
            5,
            "unfollowed",
        )


async def test_a_league_is_made_joined_by_its_link_and_scores_the_day(
    play: PlayPage, served: RunningServer
) -> None:
    owner, guest = unique_name("own"), unique_name("gus")
    await play.open(f"{site(served)}/play")
    await play.register(owner)
    await wait_for(
        lambda: shown(play, '[data-lobby-friends] [data-panel="leagues"]'), 10, "leagues"
    )
    await play.click('[data-lobby-friends] [data-panel="leagues"]')
    await wait_for(lambda: shown(play, "#league-name"), 5, "the leagues panel")
    await typed(play, "#league-name", "Tuesday club")
    await play.click('form[data-form="league-new"] button[type="submit"]')
    await wait_for(lambda: shown(play, "[data-invite]"), 5, "the league's page")
    invite = play.text("[data-invite]")
    code = invite.rsplit("=", 1)[1]
    assert invite.endswith(f"/play?league={code}")
    token = await run(
        lambda: play.driver.execute_script("return localStorage.getItem('simon.token')")
    )
    # a second account opens the invitation: not signed in, told to sign in first
    await run(
        lambda: play.driver.execute_cdp_cmd(
            "Storage.clearDataForOrigin", {"origin": site(served), "storageTypes": "all"}
        )
    )
    await play.open(f"{site(served)}/play?league={code}")
    await wait_for(lambda: shown(play, "[data-welcome-notice]"), 10, "the notice")
    assert "league" in play.text("[data-welcome-notice]")
    await play.register(guest)
    await wait_for(lambda: shown(play, "[data-invitation]"), 10, "the invitation")
    assert code in play.text("[data-invitation]")
    await play.click('[data-action="join-league"]')
    await wait_for(lambda: shown(play, "[data-members]"), 5, "the league joined")
    assert {owner, guest} <= {
        m.get_attribute("data-member")
        for m in play.driver.find_elements("css selector", "[data-member]")
    }
    # the owner plays today's daily: before mine, only that they finished
    async with Client.connect(served.url) as client:
        await client.request(HELLO)
        assert (await client.request({"type": "auth", "token": token}))["type"] == "authenticated"
        await resign_daily(client, 1)
    await wait_for(lambda: shown(play, "[data-toast]"), 10, "the owner's finish told")
    await close_panel(play)
    await resign_in_page(play, 1)
    await play.click('[data-action="close-result"]')
    await open_panel(play, "leagues")
    await wait_for(lambda: shown(play, f'[data-league="{code}"]'), 5, "the league listed")
    await play.click(f'[data-league="{code}"]')
    await wait_for(lambda: shown(play, "[data-league-today]"), 5, "today's places")
    today = texts(play, "[data-league-today] tbody tr")
    assert len(today) == 2 and all(any(n in row for n in (owner, guest)) for row in today)
    points = sorted(
        int(row.find_elements("css selector", "td")[2].text)
        for row in play.driver.find_elements("css selector", "[data-league-today] tbody tr")
    )
    assert points == [1, 2]
    assert len(texts(play, "[data-season] tbody tr")) == 2
    await pictures(play, "league")
    # the season switcher: last month has no points
    await play.click("[data-month]")
    await wait_for(
        lambda: not play.driver.find_elements("css selector", "[data-season]"), 5, "last month"
    )


def _status(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


async def test_a_leagues_public_page_is_there_only_once_its_owner_made_it_public(
    play: PlayPage, served: RunningServer
) -> None:
    owner = unique_name("pub")
    async with Client.connect(served.url) as client:
        await player(client, owner)
        made = await client.request({"type": "league_new", "name": "Open table", "suits": 2})
        assert made["type"] == "league", made
        page = f"{site(served)}/league/{made['code']}"
        status, _ = await asyncio.to_thread(_status, page)
        assert status == 404
        assert (await asyncio.to_thread(_status, f"{site(served)}/league/NOPE-NOPE"))[0] == 404
        made = await client.request({"type": "league_public", "code": made["code"], "public": True})
        assert made["public"] is True
        await resign_daily(client, 2)
        status, body = await asyncio.to_thread(_status, page)
        assert status == 200
        assert "Open table" in body and owner in body
        assert "data-season" in body and "data-finished-today" in body
        # no scores for a visitor: the day's points are not on the page
        assert "data-league-today" not in body
        status, _ = await asyncio.to_thread(_status, f"{page}?month=2026-13")
        assert status == 400
        # in the page's languages: the months by CLDR, the plurals of each
        status, body = await asyncio.to_thread(_status, f"{page}?lang=pl")
        assert status == 200 and "Liga z 1 graczem" in body and "Sezon:" in body
        status, body = await asyncio.to_thread(_status, f"{page}?lang=ru")
        assert status == 200 and "Лига из 1 игрока" in body and "Прошлые победители" in body
    await play.open(page)
    await wait_for(lambda: shown(play, "[data-season]"), 5, "the season's table")
    await pictures(play, "public-league")
    await play.open(f"{page}?lang=pl")
    await wait_for(lambda: shown(play, "[data-season]"), 5, "the table in Polish")
    await play.snapshot("social-public-league-pl-desktop")
