"""Every page over plain HTTP, on both backends (the ``backend`` fixture): what it shows,
its headers (type and charset, validators, caching, gzip, security policy), its errors in
HTML for browsers and JSON for JSON clients, and names escaped wherever they appear."""

from __future__ import annotations

import dataclasses
import gzip
import html
import re
from datetime import timedelta
from urllib.parse import quote

import brotli
from markupsafe import escape

from server.play.fairplay.evidence import Thresholds
from server.web.assets import PLAY_LATER, PLAY_TYPES, STATIC
from server.web.responses import CONTENT_SECURITY_POLICY
from tests.conftest import Backend
from tests.support.fakes import fixed_prover
from tests.support.rooms import DEAL, revealed, room_clock, room_event, room_reply, signed_up
from tests.support.servers import (
    HOLD_EVERYTHING,
    Client,
    fresh_clock,
    server_settings,
    serving,
    unique_name,
)
from tests.support.web import fetch, finish_daily, no_cache, page, player_named

NEXT_LINK = re.compile(r'<a href="([^"]+)" rel="next">Next')
ROW_NAME = re.compile(r'<th scope="row"><a [^>]*>([^<]*)</a>')
RACE_ROW = re.compile(r">([\w-]+)</a>(?: <abbr[^>]*>BOT</abbr>)?</th>\s*<td>(\w+)")
BADGE = '<abbr class="badge" title="a declared bot account">BOT</abbr>'


def names_in(text: str) -> list[str]:
    """The players of a page's board rows, in order."""
    return [html.unescape(name) for name in ROW_NAME.findall(text)]


async def test_home_shows_todays_boards_and_a_new_result_without_a_reload(
    backend: Backend,
) -> None:
    clock = fresh_clock()
    async with serving(server_settings(backend), clock=clock, prover=fixed_prover(42)) as server:
        no_cache(server)
        base = server.http_url
        empty = await page(f"{base}/")
        assert empty.status == 200
        assert empty.headers["Content-Type"] == "text/html; charset=utf-8"
        assert empty.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
        assert empty.headers["Cache-Control"] == "no-cache"
        assert empty.headers["X-Content-Type-Options"] == "nosniff"
        for label in ("1 suit", "2 suits", "4 suits", "No one has finished yet today."):
            assert label in empty.text
        assert f'datetime="{clock.now().date().isoformat()}"' in empty.text
        assert 'data-countdown="43200"' in empty.text and ">12:00:00<" in empty.text
        assert 'data-live="/live/"' in empty.text
        assert "<script>" not in empty.text and "style=" not in empty.text  # CSP: files only

        first = await finish_daily(server.url, suits=4)
        second = await finish_daily(server.url, suits=4)
        live = await page(f"{base}/live/")
        assert live.status == 200 and "<html" not in live.text
        assert set(names_in(live.text)) == {first, second}
        assert ">2</span> players" in live.text
        whole = await page(f"{base}/")
        assert set(names_in(whole.text)) == {first, second}

        # Validators: the same page again is a 304; a new result changes it.
        etag = whole.headers["ETag"]
        again = await page(f"{base}/", If_None_Match=etag)
        assert again.status == 304 and again.raw == b"" and again.headers["ETag"] == etag
        zipped = await page(f"{base}/", Accept_Encoding="gzip, deflate")
        assert zipped.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(zipped.raw) == whole.body and zipped.headers["ETag"] == etag
        assert len(zipped.raw) < len(whole.body) / 3
        packed = await page(f"{base}/", Accept_Encoding="gzip, deflate, br")
        assert packed.headers["Content-Encoding"] == "br"
        assert brotli.decompress(packed.raw) == whole.body and packed.headers["ETag"] == etag
        assert len(packed.raw) < len(zipped.raw)
        third = await finish_daily(server.url, suits=1)
        changed = await page(f"{base}/", If_None_Match=etag)
        assert changed.status == 200 and third in changed.text

        # The next day: yesterday's winners, the deals' codes and par.
        clock.advance(days=1)
        assert await server.hub.days.check_day()
        today = await page(f"{base}/")
        codes = [(await server.hub.daily.deal(clock.now().date() - timedelta(days=1), s)).code
                 for s in (1, 2, 4)]  # fmt: skip
        assert all(code in today.text for code in codes)
        assert "par 42 moves" in today.text
        yesterday = today.text.split("Yesterday's winners", 1)[1]
        assert {first, second, third} <= set(re.findall(r">([\w-]+)</a>:", yesterday))
        assert names_in(today.text) == []  # nobody has played the new day


async def test_a_day_pages_with_the_protocols_cursors_and_finds_a_player(
    backend: Backend,
) -> None:
    clock = fresh_clock()
    async with serving(server_settings(backend), clock=clock) as server:
        no_cache(server)
        base = server.http_url
        day = clock.now().date().isoformat()
        players = [await finish_daily(server.url, suits=2) for _ in range(5)]
        _, board = await _json(f"{base}/leaderboard?day={day}&suits=2&limit=100")
        order = [row["player"] for row in board["rows"]]
        assert sorted(order) == sorted(players)

        seen: list[str] = []
        url = f"{base}/day/{day}?suits=2&limit=2"
        pages = 0
        while True:
            reply = await page(url)
            assert reply.status == 200, reply.text
            seen += names_in(reply.text)
            pages += 1
            found = NEXT_LINK.search(reply.text)
            if found is None:
                break
            url = base + html.unescape(found.group(1))
            assert "after=" in url
            cursor = url.split("after=", 1)[1].split("&", 1)[0]
            # The same cursor works on the JSON route: it is the protocol's.
            status, json_page = await _json(
                f"{base}/leaderboard?day={day}&suits=2&limit=2&after={cursor}"
            )
            assert status == 200 and json_page["rows"]
        assert seen == order and pages == 3
        first_page = await page(f"{base}/day/{day}?suits=2&limit=2")
        assert 'data-live="/live/day/' in first_page.text  # today's first page stays live
        deeper = await page(url)
        assert "data-live=" not in deeper.text and "First page" in deeper.text

        target = order[3]
        found_page = await page(f"{base}/day/{day}?suits=2&player={target.upper()}")
        assert found_page.status == 200
        assert f"{target} is <strong>#4</strong>" in found_page.text
        assert re.search(
            r'<tr class="me" aria-current="true">\s*<td class="num">4</td>', found_page.text
        )
        assert names_in(found_page.text) == order  # 10 either side: the whole board
        elsewhere = await page(f"{base}/day/{day}?suits=1&player={target}")
        assert "has no result on this board that day" in elsewhere.text

        for query, status in [
            (f"/day/{day}?suits=3", 400),
            (f"/day/{day}?limit=0", 400),
            (f"/day/{day}?after=not-a-cursor", 400),
            (f"/day/{day}?suits=1&suits=2", 400),
            (f"/day/{day}?player=%00x", 400),
            ("/day/yesterday", 400),
            ("/day/2026-02-30", 400),
            (f"/day/{day}?player={unique_name()}", 404),
            (f"/day/{(clock.now().date() + timedelta(days=1)).isoformat()}", 404),
        ]:
            as_html = await page(base + query)
            assert as_html.status == status, (query, as_html.text)
            assert as_html.headers["Content-Type"] == "text/html; charset=utf-8", query
            assert "<h1>" in as_html.text and "Today's boards</a>" in as_html.text
            as_json = await fetch(base + query, Accept="application/json")
            assert (
                as_json.status == status and as_json.headers["Content-Type"] == "application/json"
            )
            assert as_json.text.startswith('{"error":{"code":'), query
        # a link shared on another site comes back with its parameters: the same page
        shared = await page(f"{base}/day/{day}?suits=2&utm_source=chat&fbclid=x1")
        assert shared.status == 200 and names_in(shared.text) == names_in(
            (await page(f"{base}/day/{day}?suits=2")).text
        )
        bad_cursor = await fetch(f"{base}/day/{day}?after=nope", Accept="application/json")
        assert '"code":"bad-cursor"' in bad_cursor.text


async def test_a_players_page_shows_history_figures_and_a_chart(backend: Backend) -> None:
    clock = fresh_clock()
    async with serving(server_settings(backend), clock=clock) as server:
        no_cache(server)
        base = server.http_url
        async with Client.connect(server.url) as client:
            registered = await client.request({"type": "register", "name": unique_name("Pia")})
        name, token = registered["player"]["name"], registered["token"]
        await finish_daily(server.url, token=token, suits=1)
        await finish_daily(server.url, token=token, suits=4)
        clock.advance(days=1)
        await finish_daily(server.url, token=token, suits=1)
        reply = await page(f"{base}/player/{name}")
        assert reply.status == 200 and reply.headers["Cache-Control"] == "no-cache"
        text = reply.text
        assert f"<h1>{name}</h1>" in text
        assert re.search(r"<dt>Games finished</dt><dd>3</dd>", text)
        assert re.search(r"<dt>Daily wins \(rank 1\)</dt><dd>3</dd>", text)
        svg = text.split("<svg", 1)[1].split("</svg>", 1)[0]
        assert 'role="img"' in svg and "Daily scores from" in svg
        assert svg.count("<circle") == 3 and svg.count("<polyline") == 1  # two 1-suit days
        assert text.count('class="num">#1</td>') == 3
        day_link = f"/day/{clock.now().date().isoformat()}?suits=1&amp;player={name}"
        assert day_link in text
        lower = await page(f"{base}/player/{name.lower()}")
        assert lower.status == 200 and f"<h1>{name}</h1>" in lower.text

        missing = await page(f"{base}/player/{unique_name()}")
        assert missing.status == 404 and "Not found" in missing.text
        assert missing.headers["Content-Type"] == "text/html; charset=utf-8"
        as_json = await fetch(f"{base}/player/{unique_name()}", Accept="application/json")
        assert as_json.status == 404 and '"code":"not-found"' in as_json.text
        assert (await page(f"{base}/player/{name}?tab=games")).status == 200  # let be
        assert (await page(f"{base}/player/a%01b")).status == 400


async def test_todays_race_live_and_the_bots_board(backend: Backend) -> None:
    clock = fresh_clock()
    async with serving(server_settings(backend), clock=clock) as server:
        no_cache(server)
        base = server.http_url
        robot = await finish_daily(server.url, suits=2, bot=True)
        person = await finish_daily(server.url, suits=2)
        async with Client.connect(server.url) as client:
            playing = await client.request({"type": "register", "name": unique_name()})
            await client.request({"type": "start", "suits": 2})
            race = await page(f"{base}/race?suits=2")
            assert race.status == 200 and 'data-live="/live/race?suits=2"' in race.text
            assert ">3</span> in the race" in race.text
            live = await page(f"{base}/live/race?suits=2")
            rows = dict(RACE_ROW.findall(live.text))
            assert rows == {
                robot: "resigned",
                person: "resigned",
                playing["player"]["name"]: "playing",
            }
            assert (
                f'{robot}</a> <abbr class="badge" title="a declared bot account">BOT</abbr>'
                in live.text
            )
        humans = await page(f"{base}/")
        assert names_in(humans.text) == [person]
        bots = await page(f"{base}/?board=bots")
        assert names_in(bots.text) == [robot] and "Today's bot boards" in html.unescape(bots.text)
        assert 'data-live="/live/?board=bots"' in bots.text
        assert names_in((await page(f"{base}/live/?board=bots")).text) == [robot]
        day = clock.now().date().isoformat()
        bot_day = await page(f"{base}/day/{day}?suits=2&board=bots")
        assert names_in(bot_day.text) == [robot]
        assert (await page(f"{base}/race?suits=5")).status == 400
        assert (await page(f"{base}/?board=robots")).status == 400
        assert (await page(f"{base}/live/player/{person}")).status == 404


async def test_results_held_for_review_appear_on_no_page(backend: Backend) -> None:
    clock = fresh_clock()
    settings = server_settings(backend, fairplay=HOLD_EVERYTHING, held_review_hours=36)
    async with serving(settings, clock=clock) as server:
        no_cache(server)
        base = server.http_url
        held = await finish_daily(server.url, suits=1)
        robot = await finish_daily(server.url, suits=1, bot=True)  # bots are not screened
        day = clock.now().date().isoformat()
        for path in ("/", "/live/", f"/day/{day}?suits=1", "/race?suits=1"):
            assert held not in (await page(base + path)).text, path
        assert robot in (await page(f"{base}/?board=bots")).text
        player = await page(f"{base}/player/{held}")
        assert player.status == 200 and "No ranked daily results yet." in player.text
        # counted, as its figures count it, but not shown
        assert "1 daily result is held for fair-play review" in player.text
        # and how long a review usually takes here (SIMON_HELD_REVIEW_HOURS)
        assert "A review usually takes about 36 hours." in player.text
        assert "No finished games yet." not in player.text
        found = await page(f"{base}/day/{day}?suits=1&player={held}")
        assert "result on this board that day is held for fair-play review" in found.text
        assert "A review usually takes about 36 hours." in found.text


EVIL = [
    '<script>alert("x")</script>',
    "</td><img src=x onerror=alert(1)>",
    "a&b \"q\" 'z' <b>",
]


async def test_every_name_is_html_escaped(backend: Backend) -> None:
    clock = fresh_clock()
    async with serving(server_settings(backend), clock=clock) as server:
        no_cache(server)
        base = server.http_url
        day = clock.now().date().isoformat()
        for name in EVIL:
            await finish_daily(server.url, token=await player_named(server, name), suits=1)
        async with Client.connect(server.url) as client:  # one still playing: in the race
            await client.request({"type": "auth", "token": await player_named(server, "<i>x</i>")})
            await client.request({"type": "start", "suits": 1})
            pages = [
                "/", "/live/", f"/day/{day}?suits=1", f"/live/day/{day}?suits=1",
                "/race?suits=1", "/live/race?suits=1",
            ]  # fmt: skip
            replies = [await page(base + path) for path in pages]
        for path, reply in zip(pages, replies, strict=True):
            assert reply.status == 200, path
            assert "<script>alert" not in reply.text and "<img src=x" not in reply.text, path
            assert "<b>" not in reply.text and "<i>x" not in reply.text, path
        assert set(names_in(replies[2].text)) == set(EVIL)
        assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in replies[0].text
        assert "&lt;i&gt;x&lt;/i&gt;" in replies[4].text
        for name in EVIL:
            own = await page(f"{base}/player/{quote(name, safe='')}")
            assert own.status == 200 and f"<h1>{escape(name)}</h1>" in own.text
            assert "<script>alert" not in own.text and "<img src=x" not in own.text
            found = await page(f"{base}/day/{day}?suits=1&player={quote(name, safe='')}")
            assert found.status == 200 and "<script>alert" not in found.text
            assert f'value="{escape(name)}"' in found.text
        for path in ("/player/%3Cscript%3Ealert(1)%3C%2Fscript%3E", "/%3Cscript%3Ealert(1)"):
            missing = await page(base + path)
            assert missing.status == 404 and "<script>alert" not in missing.text
            assert "&lt;script&gt;" in missing.text


async def test_static_files_are_versioned_and_cached_for_a_year(backend: Backend) -> None:
    async with serving(server_settings(backend)) as server:
        base = server.http_url
        home = await page(f"{base}/")
        links = re.findall(r'(?:href|src)="(/static/[^"]+)"', home.text)
        assert sorted(link.split("?")[0] for link in links) == [
            "/static/app.js", "/static/icon.svg", "/static/icons/icon-192.png",
            "/static/manifest.webmanifest",
            "/static/play/i18n/en.json", "/static/style.css",
        ]  # fmt: skip
        types = {
            "css": "text/css; charset=utf-8",
            "js": "text/javascript",
            "svg": "image/svg+xml; charset=utf-8",
            "png": "image/png",
            "webmanifest": "application/manifest+json; charset=utf-8",
            "json": "application/json",
        }
        for link in links:
            name = link.split("?")[0].removeprefix("/static/")
            reply = await fetch(base + html.unescape(link), Accept_Encoding="gzip")
            assert reply.status == 200 and reply.body == STATIC[name].body
            assert reply.headers["Content-Type"] == types[name.rsplit(".", 1)[1]]
            assert reply.headers["Cache-Control"] == "max-age=31536000, immutable"
            assert "Content-Security-Policy" not in reply.headers
            assert "ETag" not in reply.headers  # never asked again: no validator to send
        unversioned = await fetch(f"{base}/static/app.js")
        assert unversioned.status == 200 and unversioned.headers["Cache-Control"] == "no-cache"
        etag = unversioned.headers["ETag"]
        assert (await fetch(f"{base}/static/app.js", If_None_Match=etag)).status == 304
        assert (await fetch(f"{base}/static/nothing.js")).status == 404
        zipped = await fetch(f"{base}/static/style.css", Accept_Encoding="gzip")
        assert zipped.headers["Content-Encoding"] == "gzip"
        plain = await fetch(f"{base}/static/style.css", Accept_Encoding="gzip;q=0, identity")
        assert plain.headers["Content-Encoding"] is None


async def test_json_clients_see_what_they_saw_before(backend: Backend) -> None:
    async with serving(server_settings(backend)) as server:
        base = server.http_url
        status, body = await _json(f"{base}/nowhere")
        assert status == 404 and body == {
            "error": {"code": "not-found", "message": "no such path '/nowhere'"}
        }
        # a path that starts with two slashes is a path, not a host name
        status, body = await _json(f"{base}//healthz")
        assert status == 404 and body["error"]["message"] == "no such path '//healthz'"
        browser = await page(f"{base}/nowhere")
        assert browser.status == 404 and browser.headers["Content-Type"].startswith("text/html")
        status, daily = await _json(f"{base}/daily")
        assert status == 200 and daily["type"] == "daily"
        healthz = await fetch(f"{base}/healthz", Accept="text/html")
        assert healthz.headers["Content-Type"] == "application/json"


async def _json(url: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    import json

    reply = await fetch(url)
    return reply.status, json.loads(reply.body)


async def test_a_race_rooms_page_for_browsers_and_its_json_for_programs(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend), clock=room_clock()) as server:
        no_cache(server)
        async with Client.connect(server.url) as alice, Client.connect(server.url) as bob:
            owner = (await signed_up(alice, "owner"))["player"]["name"]
            await signed_up(bob, "racer")
            room = await room_reply(alice, {"type": "race_new", "code": DEAL})
            await room_reply(bob, {"type": "race_join", "code": room["code"]})
            shown = await page(f"{server.http_url}/race/{room['code']}")
            assert shown.status == 200 and shown.headers["Content-Type"].startswith("text/html")
            assert (
                f"Race room {room['code']}" in shown.text and "Waiting for the start" in shown.text
            )
            assert f'data-live="/live/race/{room["code"]}"' in shown.text
            assert f'href="/player/{owner}"' in shown.text
            assert f'href="/play?race={room["code"]}"' in shown.text  # join in the browser
            live = await page(f"{server.http_url}/live/race/{room['code']}")
            assert live.status == 200 and live.text.count("<tr>") == 3  # the head and 2 racers
            data = await fetch(f"{server.http_url}/race/{room['code']}")  # no Accept: JSON
            assert data.status == 200 and data.headers["Content-Type"].startswith(
                "application/json"
            )
            missing = await page(f"{server.http_url}/race/ZZZZZ")
            assert missing.status == 404 and "Not found" in missing.text


async def test_the_play_page_and_its_modules_come_from_the_package_under_the_policy(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend)) as server:
        base = server.http_url
        shown = await page(f"{base}/play?race=ABCDE")
        assert shown.status == 200
        assert shown.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
        assert "<script>" not in shown.text and "style=" not in shown.text  # CSP: files only
        entry = re.search(
            r'<script type="module" src="(/static/play/main\.js\?v=\w+)">', shown.text
        )
        assert entry is not None
        preloaded = re.findall(
            r'<link rel="modulepreload" href="(/static/play/[\w.]+)\?v=\w+">', shown.text
        )
        modules = sorted(
            name
            for name in STATIC
            if name.startswith("play/") and name.endswith(".js") and name != PLAY_TYPES
        )
        # what is loaded only when needed is not preloaded, and is served all the same
        assert set(modules) >= PLAY_LATER
        modules = [name for name in modules if name not in PLAY_LATER]
        assert sorted(f"/static/{name}" for name in modules) == sorted(
            [*preloaded, entry[1].split("?")[0]]
        )
        for path in [entry[1], *preloaded]:
            reply = await fetch(base + path, Accept_Encoding="gzip")
            assert reply.status == 200 and reply.headers["Content-Type"] == "text/javascript"
            assert reply.body == STATIC[path.split("?")[0].removeprefix("/static/")].body
            # every module names its imports relatively, inside the package
            imports = re.findall(r'from "([^"]+)"', reply.body.decode())
            for imported in imports:
                assert imported.startswith("./") and f"play/{imported[2:]}" in STATIC
            # the types are named in comments only (import("./messages.js")): never loaded
            assert "./messages.js" not in imports
        zipped = await fetch(f"{base}/static/play/main.js", Accept_Encoding="gzip")
        assert zipped.headers["Content-Encoding"] == "gzip"
        for hook in (
            'form data-form="register"',
            'data-start="daily" data-suits="4"',
            'data-start="practice" data-suits="1"',
            'data-action="undo"',
        ):
            assert hook in shown.text
        assert (await page(f"{base}/play?utm_source=chat")).status == 200  # let be


REPLAY_LINK = re.compile(r'<a class="replay-link" href="(/replay/[^"]+)"')


async def public_replays(base: str, text: str) -> list[str]:
    """The replay links of a page, each checked to answer anyone (never a 403)."""
    links = REPLAY_LINK.findall(text)
    for link in links:
        assert (await page(base + link)).status == 200, link
    return links


async def test_finished_games_link_their_replays_where_anyone_may_see_them(
    backend: Backend,
) -> None:
    clock = room_clock()
    async with serving(server_settings(backend), clock=clock) as server:
        no_cache(server)
        base = server.http_url
        async with Client.connect(server.url) as alice, Client.connect(server.url) as bob:
            registered = await signed_up(alice, "owner")
            owner, token = registered["player"]["name"], registered["token"]
            racer = (await signed_up(bob, "racer"))["player"]["name"]
            room = await room_reply(alice, {"type": "race_new", "code": DEAL})
            code = room["code"]
            await room_reply(bob, {"type": "race_join", "code": code})
            await room_reply(alice, {"type": "race_start", "code": code})
            clock.advance(seconds=10)
            await revealed(alice)
            await revealed(bob)
            assert await public_replays(base, (await page(f"{base}/race/{code}")).text) == []
            for client in (alice, bob):
                assert (await client.request({"type": "resign"}))["type"] == "state"
            await room_event(alice, "over", code)
            practice = await alice.request({"type": "start", "mode": "practice", "suits": 1})
            assert practice["type"] == "state"
            assert (await alice.request({"type": "resign"}))["type"] == "state"
        over = (await page(f"{base}/race/{code}")).text
        assert len(await public_replays(base, over)) == 2  # both racers' games, once it is over
        await finish_daily(server.url, token=token, suits=1)
        yesterday = clock.now().date().isoformat()

        today = (await page(f"{base}/player/{owner}")).text
        assert f'race <a href="/race/{code}">{code}</a> <small>place ' in today
        assert today.count(" practice") == 1  # the practice game alone is called one
        race_replay = await public_replays(base, today)  # not today's daily, not practice
        assert len(race_replay) == 1
        assert await public_replays(base, (await page(f"{base}/day/{yesterday}")).text) == []

        clock.advance(days=1)
        after = (await page(f"{base}/player/{owner}")).text
        assert len(await public_replays(base, after)) == 2  # and the daily, its day over
        board = (await page(f"{base}/day/{yesterday}")).text
        assert names_in(board) == [owner] and len(await public_replays(base, board)) == 1
        found = (await page(f"{base}/day/{yesterday}?player={owner}")).text
        assert len(await public_replays(base, found)) == 1
        home = (await page(f"{base}/")).text  # yesterday's winners
        assert len(await public_replays(base, home)) == 1
        assert racer not in board


async def test_a_new_players_best_daily_is_the_one_its_chart_plots(backend: Backend) -> None:
    new_players_board = Thresholds(max_agreement=2.0, min_decisions=2**31, new_account_days=2)
    async with serving(server_settings(backend, fairplay=new_players_board)) as server:
        no_cache(server)
        name = await finish_daily(server.url, suits=4)
        text = (await page(f"{server.http_url}/player/{name}")).text
        assert "new players&#39; board" in text or "new players' board" in text
        svg = text.split("<svg", 1)[1].split("</svg>", 1)[0]
        assert svg.count("<circle") == 1 and ": 500, rank 1 on the new players" in svg
        best = re.search(r"<dt>Best daily, .{0,200}4 suits</dt><dd>([^\n]*?)</dd>", text, re.S)
        assert best is not None
        assert best.group(1).startswith("500 <small>best rank #1 on the new players")


async def test_an_empty_public_board_points_to_the_new_players_board_that_has_results(
    backend: Backend,
) -> None:
    new_players_board = Thresholds(max_agreement=2.0, min_decisions=2**31, new_account_days=2)
    clock = fresh_clock()
    async with serving(server_settings(backend, fairplay=new_players_board), clock=clock) as server:
        no_cache(server)
        base, today = server.http_url, clock.now().date().isoformat()
        newcomer = await finish_daily(server.url, suits=4)
        await finish_daily(server.url, suits=1)
        await finish_daily(server.url, suits=1)

        def hints(text: str) -> dict[int, str]:
            """Each board's pointer to the new players' board, by suit count."""
            found = re.findall(r'<p class="empty" data-new-players="\d+">(.*?)</p>', text, re.S)
            links = re.findall(r'href="/day/[^"?]+\?suits=(\d)&amp;board=new"', "".join(found))
            return dict(zip(map(int, links), found, strict=True))

        for part in ("/", "/live/"):  # the live part the page's script fetches says the same
            text = (await page(f"{base}{part}")).text
            assert names_in(text) == []  # no new player's row on the public boards
            pointers = hints(text)
            assert set(pointers) == {1, 4}  # 2 suits: no one at all
            assert pointers[4].startswith("No one has finished on this board yet today; ")
            assert "; 1 new player has: see the " in pointers[4]
            assert "; 2 new players have: see the " in pointers[1]
            assert f'<a href="/day/{today}?suits=4&amp;board=new">' in pointers[4]
            assert text.count("No one has finished yet today.") == 1  # the 2 suits board
        on_new = (await page(f"{base}/day/{today}?suits=4&board=new")).text
        assert names_in(on_new) == [newcomer]

        # A public result on the 4 suits board: its rows, not the pointer.
        server.hub.screening.thresholds = dataclasses.replace(new_players_board, new_account_days=0)
        public = await finish_daily(server.url, suits=4)
        for part in ("/", "/live/"):
            text = (await page(f"{base}{part}")).text
            assert names_in(text) == [public]
            assert set(hints(text)) == {1}
        # The bots' and new players' own boards never point anywhere.
        for board in ("bots", "new"):
            assert hints((await page(f"{base}/?board={board}")).text) == {}

        # The next day, yesterday's winners point the same way where the public board is
        # empty: 1 suit (two new players), not 4 (a public result) nor 2 (no one).
        clock.advance(days=1)
        text = (await page(f"{base}/")).text
        assert hints(text) == {}  # today: no one at all
        found = re.findall(r'<p class="empty" data-new-players-yesterday="(\d+)">(.*?)</p>', text)
        assert [count for count, _ in found] == ["2"]
        assert found[0][1].startswith("No results on this board; 2 new players finished: see ")
        assert f'<a href="/day/{today}?suits=1&amp;board=new">' in found[0][1]
        winners = text.split('id="yesterday"', 1)[1]
        assert f">{public}</a>" in winners and f">{newcomer}</a>" not in winners
        assert text.count("No results.") == 1  # the 2 suits board
        for board in ("bots", "new"):
            assert "data-new-players-yesterday" not in (await page(f"{base}/?board={board}")).text


async def test_a_day_with_no_deal_says_there_was_no_daily(backend: Backend) -> None:
    clock = fresh_clock()
    async with serving(server_settings(backend), clock=clock) as server:
        no_cache(server)
        first = clock.now().date()
        await finish_daily(server.url, suits=4)
        clock.advance(days=1)
        before = (first - timedelta(days=1)).isoformat()  # the day before the server's first
        undealt = await page(f"{server.http_url}/day/{before}?suits=4")
        assert undealt.status == 200 and "data-no-deal" in undealt.text
        assert "There was no 4 suits daily on " in undealt.text
        assert "stats-title" not in undealt.text and "No results" not in undealt.text
        assert f'href="/day/{first.isoformat()}?suits=4" rel="next"' in undealt.text
        dealt = await page(f"{server.http_url}/day/{first.isoformat()}?suits=4")
        assert "data-no-deal" not in dealt.text and names_in(dealt.text)
