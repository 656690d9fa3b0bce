"""The pages: which path shows what, read from a :class:`~server.web.source.Source`.

- ``/?board=bots``, ``/?board=new``: today's three boards (top 20), players, time left,
  yesterday's winners;
- ``/day/YYYY-MM-DD?suits=&board=&after=&limit=&player=``: a whole day's board, paged by
  cursor; ``player`` shows that player's rank and the rows around it;
- ``/day/YYYY-MM-DD/stats``: the same page for a browser (programs get the day's figures
  as JSON: server/net/http.py); a day's page draws the winners' moves as a chart;
- ``/player/NAME``: a player's figures, streak, a chart of daily scores, recent games;
- ``/replay/ID?from=N``: a public replay, a page of positions at a time, stepped through
  with the keyboard, and its review;
- ``/race?suits=``: today's daily race, as it is played;
- ``/play?race=CODE``: the game in the browser (a page whose modules do the rest);
- ``/league/CODE?month=``: a league's public page (:mod:`.league`);
- ``/live/...``: the live part of ``/``, ``/day/...`` or ``/race`` alone, which the page's
  script fetches again every few seconds;
- ``/offline``: what the service worker shows a visitor who cannot reach the server;
- ``/static/NAME?v=HASH``: the stylesheets, scripts, icons and the web app manifest
  (:mod:`.assets`), and ``/sw.js``, the service worker, from the root.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Final
from urllib.parse import unquote

from websockets.http11 import Request, Response

from server.engine import SUIT_COUNTS
from server.i18n import Language, gettext, speaking
from server.i18n.formats import review_wait
from server.kinds import named_day_board, parse_day
from server.protocol import (
    Board,
    ErrorCode,
    HistoryGame,
    LeaderboardPage,
    LeaderboardRequest,
    RoomEntry,
)

from . import assets, languages, render
from .chart import moves_chart, score_chart
from .files import service_worker, static_file
from .league import league_context
from .query import CONTROL, Query, bad
from .responses import (
    HTML,
    REVALIDATE,
    content,
    json_error,
    request_target,
    wants_json,
)
from .source import REPLAY_PAGE, PageError, Source

log = logging.getLogger(__name__)

#: Rows of each board on ``/``.
TOP_ROWS: Final = 20
#: Rows of a day's page, unless ``limit`` says otherwise (1 to 100).
DAY_ROWS: Final = 50
#: Yesterday's winners shown per board.
WINNERS: Final = 3
#: Rows either side of a player found by the search.
AROUND: Final = 10
#: Race standings shown.
RACE_ROWS: Final = 100
#: A player's games read for their page.
HISTORY_GAMES: Final = 50
#: How often a page's script fetches its live part again (seconds).
POLL_SECONDS: Final = 3
#: No board is older than this (a day page links the day before it: year 1 has none).
FIRST_DAY: Final = date(1970, 1, 1)
#: Cache-Control of a past day's board (it changes only when a review clears a result).
PAST_DAY: Final = "public, max-age=60"


@dataclass
class Page:
    template: str
    context: dict[str, Any]
    cache_control: str = REVALIDATE
    #: The path of the page's live part (``/live/...``), if it has one.
    live: str | None = None


Handler = Callable[[Source, Query, str], Awaitable[Page]]


@dataclass(frozen=True)
class BestDaily:
    """A player's best ranked daily of one suit count: the best score on any board (the
    chart shows them all), and the best rank on the public (or bots') board, or on the new
    players' board while they have no other: a rank among new players is said to be one."""

    score: int = -1
    rank: int | None = None
    new_players_rank: int | None = None

    def add(self, game: HistoryGame) -> BestDaily:
        assert game.rank is not None  # a ranked daily
        if game.board == "new":
            new_players_rank = _lowest(self.new_players_rank, game.rank)
            return BestDaily(max(self.score, game.score), self.rank, new_players_rank)
        return BestDaily(
            max(self.score, game.score), _lowest(self.rank, game.rank), self.new_players_rank
        )


def _lowest(rank: int | None, other: int) -> int:
    return other if rank is None else min(rank, other)


def _ranks(first: int, last: int, total: int) -> str:
    if first == last:
        return gettext("Rank %(first)s of %(total)s") % {"first": first, "total": total}
    return gettext("Ranks %(first)s to %(last)s of %(total)s") % {
        "first": first, "last": last, "total": total,
    }  # fmt: skip


def _board_param(board: Board) -> str | None:
    return None if board == "humans" else board


async def _newcomers(
    source: Source, day: date, board: Board, pages: list[LeaderboardPage]
) -> dict[int, int]:
    """New players' results that day, by suit count, for each empty public board of
    ``pages``: a new player's first dailies rank only on the new players' board, so an empty
    public board says where that day's results are (on a fresh install, all of them)."""
    if board != "humans":
        return {}
    return {
        page.suits: (await source.board(day=day, suits=page.suits, board="new", limit=1))[0].total
        for page in pages
        if not page.rows
    }


async def home(source: Source, query: Query, _: str) -> Page:
    board = query.board()
    daily = await source.daily()
    day = daily.day
    yesterday = day - timedelta(days=1)
    # One after the other: each is a millisecond of this process's time, and more queries
    # at once than the connection pool holds would open connections of their own.
    boards = [
        (await source.board(day=day, suits=suits, board=board, limit=TOP_ROWS))[0]
        for suits in SUIT_COUNTS
    ]
    past = [
        await source.board(day=yesterday, suits=suits, board=board, limit=WINNERS)
        for suits in SUIT_COUNTS
    ]
    deals = {deal.suits: deal for deal in daily.yesterday}
    return Page(
        "home.html",
        {
            "day": day,
            "board": board,
            "new_account_days": source.new_account_days(),
            "seconds_left": daily.seconds_left,
            "boards": boards,
            "newcomers": await _newcomers(source, day, board, boards),
            "yesterday_day": yesterday,
            "yesterday": [
                (page.suits, deals.get(page.suits), page, replays) for page, replays in past
            ],
            "yesterday_newcomers": await _newcomers(
                source, yesterday, board, [page for page, _ in past]
            ),
        },
        live="/live/",
    )


async def day_board(source: Source, query: Query, text: str) -> Page:
    try:
        day = parse_day(text)
    except ValueError:
        raise bad(gettext("the day is a date like 2026-01-31")) from None
    today = source.today()
    if day > today:
        raise PageError(
            404,
            ErrorCode.NOT_FOUND,
            gettext("the board of %(day)s opens on that day") % {"day": day},
        )
    if day < FIRST_DAY:
        raise PageError(
            404,
            ErrorCode.NOT_FOUND,
            gettext("there is no board before %(day)s") % {"day": FIRST_DAY},
        )
    asked = query.request(
        LeaderboardRequest, wholes=("suits", "limit"), texts=("after",), limit=DAY_ROWS
    )
    try:
        board = named_day_board(asked.board)
    except ValueError:
        raise bad(gettext("a friends' board is yours: ask for it over the websocket")) from None
    suits, after, limit = asked.suits, asked.after, asked.limit
    name = query.text("player", 64)
    path = f"/day/{day.isoformat()}"
    if day < today and not await source.dealt(day, suits):
        return Page(
            "day.html",
            {
                **_day_links(day, today, path, suits, board, limit),
                "dealt": False,
                "player": name,
                "notice": None,
                "live": None,
            },
            cache_control=PAST_DAY,
        )
    found = notice = None
    next_cursor = None
    if name is not None:
        ranked, replays = await source.rank(
            day=day, suits=suits, board=board, name=name, around=AROUND
        )
        if ranked.rank is not None:
            found = ranked
            rows, total = ranked.around, ranked.total
            caption = _ranks(rows[0].rank, rows[-1].rank, total)
        elif ranked.review == "held":
            notice = gettext(
                "%(player)s's result on this board that day is held for fair-play "
                "review: it is ranked once a reviewer clears it."
            ) % {"player": ranked.player}
            notice += " " + review_wait(source.review_hours())
        else:
            notice = gettext("%(player)s has no result on this board that day.") % {
                "player": ranked.player
            }
    if found is None:
        page, replays = await source.board(
            day=day, suits=suits, board=board, limit=limit, after=after
        )
        rows, total, next_cursor = page.rows, page.total, page.next
        caption = _ranks(rows[0].rank, rows[-1].rank, total) if rows else gettext("No results")
    stats = await source.day_stats(
        day=day, suits=suits, board=board, name=name if found is not None else None
    )
    live = None
    if day == today and after is None and name is None:
        live = render.url(
            f"/live{path}",
            suits=suits,
            board=_board_param(board),
            limit=None if limit == DAY_ROWS else limit,
        )
    return Page(
        "day.html",
        {
            **_day_links(day, today, path, suits, board, limit),
            "dealt": True,
            "after": after,
            "player": name,
            "found": found,
            "notice": notice,
            "rows": rows,
            "replays": replays,
            "total": total,
            "caption": caption,
            "next_cursor": next_cursor,
            "live": live,
            "stats": stats,
            "histogram": moves_chart(stats),
        },
        cache_control=REVALIDATE if day >= today - timedelta(days=1) else PAST_DAY,
        live=live,
    )


def _day_links(
    day: date, today: date, path: str, suits: int, board: Board, limit: int
) -> dict[str, Any]:
    """What a day's page links with: its other suit counts and boards, the days around it."""
    return {
        "day": day,
        "path": path,
        "suits": suits,
        "board": board,
        "board_param": _board_param(board),
        "limit": limit,
        "limit_param": None if limit == DAY_ROWS else limit,
        "previous_day": day - timedelta(days=1),
        "next_day": day + timedelta(days=1) if day < today else None,
    }


async def player(source: Source, query: Query, text: str) -> Page:
    name = unquote(text)
    if not name or len(name) > 64 or CONTROL.search(name):
        raise bad(gettext("a player's name is 1 to 64 characters"))
    found = await source.player(name)
    history, replays = await source.history(found.name, HISTORY_GAMES)
    # A daily with no rank is held for fair-play review (or not screened yet): not shown,
    # only counted, so that the figures (which count it) do not look wrong.
    shown = [
        (game, replay)
        for game, replay in zip(history.games, replays, strict=True)
        if game.day is None or game.rank is not None
    ]
    games = [game for game, _ in shown]
    held = len(history.games) - len(games)
    best: dict[int, BestDaily] = {}
    for game in games:
        if game.rank is not None:  # a daily on a board: the chart's dots
            best[game.suits] = best.get(game.suits, BestDaily()).add(game)
    return Page(
        "player.html",
        {
            "player": found,
            "history": history,
            "games": shown,
            "held": held,
            "review_wait": review_wait(source.review_hours()) if held else "",
            "best": best,
            "firsts": sum(game.rank == 1 and game.board != "new" for game in games),
            "chart": score_chart(games),
            "streak": history.streak,
        },
    )


async def race(source: Source, query: Query, _: str) -> Page:
    suits = query.suits()
    standings = await source.race(suits)
    return Page(
        "race.html",
        {
            "day": standings.day,
            "suits": suits,
            "count": standings.total,  # the race's leaders are shown, its size counted
            "players": standings.players[:RACE_ROWS],
        },
        live=render.url("/live/race", suits=suits),
    )


async def room(source: Source, query: Query, code: str) -> Page:
    """``/race/CODE``: a race room of friends, its racers as they race, its results."""
    view, replays = await source.room(code)
    return Page(
        "room.html",
        {
            "room": view,
            "racers": sorted(view.racers, key=RoomEntry.standing),
            "replays": replays,
        },
        live=render.url(f"/live/race/{view.code}"),
    )


#: The furthest a replay page starts (no game has that many actions).
REPLAY_FROM_MOST: Final = 10_000_000


def _replay_from(query: Query) -> None:
    """``from``, checked and made the start of its page (so ``?from=7`` and ``?from=0`` are
    one page, cached once); the first page's is dropped."""
    text = query.values.pop("from", None)
    if text is None:
        return
    if not (text.isascii() and text.isdigit()) or len(text) > 8:
        raise bad(gettext("from is a position: 0 to %(most)s") % {"most": REPLAY_FROM_MOST})
    first = int(text) - int(text) % REPLAY_PAGE
    if first:
        query.values["from"] = str(first)


async def replay(source: Source, query: Query, game_id: str) -> Page:
    """``/replay/ID?from=N``: a public replay, one position at a time (arrow keys step
    through it), with each move's think time, and the solver's review once one was made.
    A page holds the :data:`REPLAY_PAGE` positions from ``from`` (the deal is 0) and links
    the pages around it: what a page costs does not grow with the game."""
    if not game_id or len(game_id) > 64 or CONTROL.search(game_id):
        raise bad(gettext("a game id is 1 to 64 characters"))
    first = int(query.values.get("from", "0"))
    found, steps, review = await source.replay(unquote(game_id), first)
    judged = {position.seq: position for position in review.positions} if review else {}
    total = len(found.moves)
    last_page = total - total % REPLAY_PAGE
    return Page(
        "replay.html",
        {
            "replay": found,
            "steps": steps,
            "review": review,
            "judged": judged,
            "total": total,
            "first": first,
            "page_size": REPLAY_PAGE,
            "pages": {
                "first": 0 if first > 0 else None,
                "previous": first - REPLAY_PAGE if first > 0 else None,
                "next": first + REPLAY_PAGE if first < last_page else None,
                "last": last_page if first < last_page else None,
            },
        },
        cache_control=PAST_DAY,
    )


async def play(source: Source, query: Query, _: str) -> Page:
    """``/play``: the game itself, played over the websocket by the page's script; ``race``
    names a room to join (read by the script)."""
    query.text("race", 32)
    return Page("play.html", {"modules": [m for m in assets.PLAY_MODULES if m != "play/main.js"]})


async def league(source: Source, query: Query, code: str) -> Page:
    """``/league/CODE?month=``: a league its owner made public (:mod:`.league`)."""
    return Page("league.html", await league_context(source, query, code))


async def offline(source: Source, query: Query, _: str) -> Page:
    """``/offline``: what the service worker shows when a page cannot reach the server (it
    keeps a copy in the language of the last page read: static/sw.js)."""
    return Page("offline.html", {})


#: Makes a page's query canonical (the page's cache key) or refuses it.
Normalize = Callable[[Query], None]
#: Pages whose query is made canonical before it is read (by their handler).
_NORMALIZE: Final[dict[Handler, Normalize]] = {replay: _replay_from}
#: The pages the same for every reader of a language all day (the play page: the game is
#: the script's), compressed once at the best quality.
_FIXED: Final[frozenset[Handler]] = frozenset({play})
#: (path pattern, handler, query parameters it takes); ``{}`` is one path segment.
_ROUTES: Final[tuple[tuple[re.Pattern[str], Handler, frozenset[str]], ...]] = (
    (re.compile(r"^/$"), home, frozenset({"board"})),
    (
        re.compile(r"^/day/([^/]+)$"),
        day_board,
        frozenset({"suits", "board", "after", "limit", "player"}),
    ),
    (
        re.compile(r"^/day/([^/]+)/stats$"),
        day_board,
        frozenset({"suits", "board", "player"}),
    ),
    (re.compile(r"^/player/([^/]+)$"), player, frozenset()),
    (re.compile(r"^/replay/([^/]+)$"), replay, frozenset({"from"})),
    (re.compile(r"^/race$"), race, frozenset({"suits"})),
    (re.compile(r"^/play$"), play, frozenset({"race"})),
    (re.compile(r"^/offline$"), offline, frozenset()),
    (re.compile(r"^/race/([A-Za-z0-9-]{1,16})$"), room, frozenset()),
    (re.compile(r"^/league/([A-Za-z0-9-]{1,16})$"), league, frozenset({"month"})),
)
#: ``/live/PAGE`` answers the live part of ``/PAGE``.
_LIVE_PREFIX: Final = "/live"


def _route(path: str) -> tuple[Handler, frozenset[str], str] | None:
    for pattern, handler, allowed in _ROUTES:
        matched = pattern.match(path)
        if matched is not None:
            return handler, allowed, matched.group(1) if matched.groups() else ""
    return None


def _error_page(
    source: Source,
    request: Request,
    error: PageError,
    *,
    json_by_default: bool,
    language: Language,
    path: str,
    query: str,
) -> Response:
    if wants_json(request, default=json_by_default):
        return json_error(request, error.status, error.code.value, error.message)
    title = {
        400: gettext("Bad request"), 403: gettext("Not public"), 404: gettext("Not found")
    }.get(error.status, gettext("Unavailable"))  # fmt: skip
    # a passing refusal (deals being proven, the database down): the page asks again itself
    retry = POLL_SECONDS if error.status == 503 else None
    body = render.page(
        "error.html",
        {
            "title": title,
            "message": error.message,
            "today": source.today(),
            "poll": POLL_SECONDS,
            "retry": retry,
            **_language_context(path, query, language),
        },
    )
    return content(
        request,
        body.encode(),
        content_type=HTML,
        cache_control="no-store",
        status=error.status,
        language=language,
    )


def _language_context(path: str, query: str, language: Language) -> dict[str, Any]:
    return {"lang": language, "languages": render.language_links(path, query, language)}


async def respond(source: Source, request: Request) -> Response:
    """Answer a plain GET for a page, a live part, a static file, or with a 404."""
    url = request_target(request)
    language = languages.choose(request, url.query)
    with speaking(language):
        return await _respond(source, request, url.path, url.query, language)


async def _respond(
    source: Source, request: Request, path: str, query_text: str, language: Language
) -> Response:
    is_page = False
    try:
        if path.startswith("/static/"):
            return static_file(request, path.removeprefix("/static/"), query_text)
        if path == f"/{assets.SERVICE_WORKER}":
            return service_worker(request)
        picker = languages.PICKER.match(path)
        if picker is not None:
            return languages.pick(picker.group(1), query_text)
        live = path == _LIVE_PREFIX or path.startswith(_LIVE_PREFIX + "/")
        route = _route((path.removeprefix(_LIVE_PREFIX) or "/") if live else path)
        if route is None:
            raise PageError(
                404, ErrorCode.NOT_FOUND, gettext("no such path %(path)r") % {"path": unquote(path)}
            )
        is_page = True
        handler, allowed, argument = route
        query = Query(query_text, allowed)
        normalize = _NORMALIZE.get(handler)
        if normalize is not None:
            normalize(query)

        async def make() -> tuple[bytes, str]:
            page = await handler(source, query, argument)
            context = {
                **page.context,
                "today": source.today(),
                "poll": POLL_SECONDS,
                **_language_context(path, query_text, language),
            }
            if live:
                if page.live is None:
                    raise PageError(404, ErrorCode.NOT_FOUND, gettext("this page has no live part"))
                text = render.block(page.template, "live", context)
            else:
                text = render.page(page.template, context)
            return text.encode(), page.cache_control

        # one copy of a page a language: the language is part of what the page is
        key = f"{language} {path}{query.canonical()}"
        body, cache_control = await source.remember(key, make)
        return content(
            request,
            body,
            content_type=HTML,
            cache_control=cache_control,
            language=language,
            # a room's link varies the page: compressed for each reader, never at a cost to
            # be asked again and again
            fixed=handler in _FIXED and not query.canonical(),
        )
    except PageError as error:
        return _error_page(
            source, request, error, json_by_default=not is_page, language=language,
            path=path, query=query_text,
        )  # fmt: skip
    except Exception:
        log.exception("page %s failed", path)
        unavailable = PageError(
            503, ErrorCode.UNAVAILABLE, gettext("The server cannot answer right now.")
        )
        return _error_page(
            source, request, unavailable, json_by_default=not is_page, language=language,
            path=path, query=query_text,
        )  # fmt: skip
