"""The JSON routes of the one port (:mod:`server.net.http`) on a stand-in hub: which path
goes where, what each route reads from its parameters, how refusals and bugs are answered,
and what every answer carries as it leaves. The routes' replies themselves are the play
layer's (tests/play); the same answers through a real server are in
tests/net/test_http_edges.py and tests/web/test_web_http.py."""

from __future__ import annotations

import json
import logging
from datetime import date
from types import SimpleNamespace
from typing import Any, cast

import pytest
from pydantic import BaseModel
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server import web
from server.net import http
from server.net.health import Health
from server.net.limits import Gate, Limits
from server.net.metrics import CONTENT_TYPE, Metrics
from server.play.errors import Refused
from server.play.hub import Hub
from server.protocol import ErrorCode


class Echo(BaseModel):
    """A reply that shows what a route asked the hub for (``id`` as the protocol's)."""

    id: str | None = None
    type: str = "echo"
    asked: str
    arguments: dict[str, Any]
    nothing: str | None = None


class StandIn:
    """The parts of a hub the routes use: each records what it was asked and answers an
    :class:`Echo`, or raises ``failure`` when one is set."""

    def __init__(self) -> None:
        self.failure: Exception | None = None
        self.asked: list[tuple[str, dict[str, Any]]] = []
        self.ready = True
        self.queries = SimpleNamespace(
            daily_info=self._answer("daily_info"),
            leaderboard=self._answer("leaderboard"),
            rank=self._answer("rank"),
            history=self._answer("history"),
        )
        self.after = SimpleNamespace(
            day_stats=self._answer("day_stats"), replay=self._answer("replay")
        )
        self.accounts = SimpleNamespace(named=self._named, authenticate=self._authenticate)
        self.rooms = SimpleNamespace(
            record=self._answer("record"), reply=self._answer("reply"), follower_count=3
        )
        self.daily = SimpleNamespace(
            ready=lambda day: self.ready, known=lambda day: {1, 2, 4} if self.ready else {1}
        )
        self.days = SimpleNamespace(listener_count=7)
        self.standings = SimpleNamespace(follower_count=2)
        self.live = {"g1": None, "g2": None}

    def today(self) -> date:
        return date(2026, 3, 1)

    def _answer(self, name: str) -> Any:
        async def answer(*args: Any, **keywords: Any) -> Echo:
            if self.failure is not None:
                raise self.failure
            arguments = {str(i): a for i, a in enumerate(args)} | keywords
            self.asked.append((name, arguments))
            return Echo(asked=name, arguments={k: str(v) for k, v in arguments.items()})

        return answer

    async def _named(self, name: str) -> str:
        return f"player:{name}"

    async def _authenticate(self, token: str, *, address: str = "") -> SimpleNamespace:
        self.asked.append(("authenticate", {"token": token}))
        if token.startswith("bad"):
            raise Refused(ErrorCode.BAD_TOKEN, "no account has that token")
        return SimpleNamespace(player=f"account:{token}")


@pytest.fixture
def stand_in() -> StandIn:
    return StandIn()


@pytest.fixture
def pages(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths handed over to the web pages (a stand-in that names the path)."""
    handed: list[str] = []

    async def respond(hub: Hub, request: Request) -> Response:
        handed.append(request.path)
        return http.json_response(200, {"page": request.path})

    monkeypatch.setattr(web, "respond", respond)
    return handed


def request(path: str, method: str = "GET", **headers: str) -> Request:
    return Request(path, Headers({k.replace("_", "-"): v for k, v in headers.items()}), method)


async def get(
    stand_in: StandIn, path: str, sign_ins: http.SignIns | None = None, **headers: str
) -> tuple[int, Any, Response]:
    response = await http.respond(cast(Hub, stand_in), request(path, **headers), sign_ins=sign_ins)
    return response.status_code, json.loads(response.body), response


def error_of(body: Any) -> tuple[str, str]:
    return body["error"]["code"], body["error"]["message"]


# -- routes and their parameters ----------------------------------------------------------------


async def test_the_leaderboard_reads_its_parameters_with_their_defaults(
    stand_in: StandIn, pages: list[str]
) -> None:
    status, body, _ = await get(stand_in, "/leaderboard")
    assert status == 200 and body["asked"] == "leaderboard" and "id" not in body
    assert "nothing" not in body  # the protocol's replies leave out what is None
    assert stand_in.asked[-1][1] == {
        "day": None, "suits": 1, "limit": 20, "after": None, "board": "humans",
    }  # fmt: skip
    await get(stand_in, "/leaderboard?day=2026-02-28&suits=4&limit=100&after=abc&board=bots")
    assert stand_in.asked[-1][1] == {
        "day": date(2026, 2, 28), "suits": 4, "limit": 100, "after": "abc", "board": "bots",
    }  # fmt: skip
    assert pages == []


async def test_rank_history_and_daily_ask_for_what_their_parameters_name(
    stand_in: StandIn,
) -> None:
    await get(stand_in, "/rank?player=Ivy&around=0&suits=2")
    assert stand_in.asked[-1] == (
        "rank",
        {"day": None, "suits": 2, "player": "player:Ivy", "around": 0, "board": "humans"},
    )
    await get(stand_in, "/history?player=Ivy&limit=1")
    assert stand_in.asked[-1] == ("history", {"0": "player:Ivy", "1": 1})
    status, body, _ = await get(stand_in, "/daily")
    assert status == 200 and body["asked"] == "daily_info"


async def test_a_days_stats_and_a_replay_as_json(stand_in: StandIn) -> None:
    status, _, _ = await get(stand_in, "/day/2026-02-27/stats?suits=2&player=Ivy&board=bots")
    assert status == 200
    assert stand_in.asked[-1] == (
        "day_stats",
        {"day": date(2026, 2, 27), "suits": 2, "board": "bots", "player": "player:Ivy"},
    )
    await get(stand_in, "/day/2026-02-27/stats")
    assert stand_in.asked[-1][1]["player"] is None
    status, body, _ = await get(stand_in, "/replay/game-1")
    assert status == 200 and body["asked"] == "replay"
    assert stand_in.asked[-1] == ("replay", {"0": None, "1": "game-1"})  # nobody signed in
    await get(stand_in, "/replay/game%2D1")  # percent-encoded, as a link may be
    assert stand_in.asked[-1] == ("replay", {"0": None, "1": "game-1"})


@pytest.mark.parametrize(
    ("authorization", "token"),
    [("Bearer tok", "tok"), ("bearer  tok ", "tok"), ("BEARER tok", "tok")],
)
async def test_a_replay_signs_in_with_a_bearer_token(
    stand_in: StandIn, authorization: str, token: str
) -> None:
    status, _, _ = await get(stand_in, "/replay/game-1", Authorization=authorization)
    assert status == 200
    assert stand_in.asked[-2:] == [
        ("authenticate", {"token": token}),
        ("replay", {"0": f"account:{token}", "1": "game-1"}),
    ]


@pytest.mark.parametrize("authorization", ["Basic dXNlcg==", "Bearer", "Bearer   ", "Bearer a\tb"])
async def test_any_other_authorization_is_refused(stand_in: StandIn, authorization: str) -> None:
    status, body, response = await get(stand_in, "/replay/game-1", Authorization=authorization)
    assert status == 401 and response.headers["WWW-Authenticate"] == "Bearer"
    assert error_of(body) == ("bad-token", "Authorization is Bearer and the account's token")
    assert stand_in.asked == []


class Ticker:
    """A monotonic clock moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_bad_bearer_token_is_401_and_counts_toward_the_sign_in_back_off(
    stand_in: StandIn,
) -> None:
    clock = Ticker()
    gate = Gate(Limits(auth_failures_free=2, auth_backoff=4.0), monotonic=clock)
    sign_ins = http.SignIns(gate, "198.51.100.7")
    for _ in range(3):  # two free, the third starts a lockout
        status, body, response = await get(
            stand_in, "/replay/game-1", sign_ins, Authorization="Bearer bad-guess"
        )
        assert status == 401 and response.headers["WWW-Authenticate"] == "Bearer"
        assert error_of(body) == ("bad-token", "no account has that token")
    stand_in.asked.clear()
    status, body, response = await get(
        stand_in, "/replay/game-1", sign_ins, Authorization="Bearer tok"
    )
    assert status == 429 and error_of(body)[0] == "rate-limited"
    assert response.headers["Retry-After"] == "4"
    assert stand_in.asked == []  # not even checked while locked out
    assert gate.sign_in("198.51.100.7") is not None  # the websocket's auth is locked out too
    status, _, _ = await get(stand_in, "/replay/game-1", sign_ins)  # no token: no sign-in
    assert status == 200
    clock.now += 4
    status, _, _ = await get(stand_in, "/replay/game-1", sign_ins, Authorization="Bearer tok")
    assert status == 200


async def test_a_race_rooms_json_for_programs_and_its_page_for_browsers(
    stand_in: StandIn, pages: list[str]
) -> None:
    status, body, _ = await get(stand_in, "/race/ABCDE")
    assert status == 200 and body["asked"] == "reply"
    [(_, looked_up), (_, replied)] = stand_in.asked
    assert looked_up == {"0": "ABCDE"} and replied["0"] is None  # the room as anyone sees it
    assert replied["1"].asked == "record"
    stand_in.asked.clear()
    await get(stand_in, "/race/AB%43DE")  # percent-encoded, as a link may be
    assert stand_in.asked[0] == ("record", {"0": "ABCDE"})
    stand_in.asked.clear()
    status, body, _ = await get(stand_in, "/race/ABCDE?x=1")
    assert status == 400 and error_of(body)[1] == "a race room's path takes no parameters"
    browser = "text/html,application/xhtml+xml,*/*;q=0.8"
    for path in ("/race/ABCDE", "/day/2026-02-27/stats", "/replay/game-1"):
        await get(stand_in, path, Accept=browser)
    assert pages == ["/race/ABCDE", "/day/2026-02-27/stats", "/replay/game-1"]
    assert stand_in.asked == []


@pytest.mark.parametrize(
    "path",
    [
        "/", "/nowhere", "/leaderboard/", "/Leaderboard", "/healthz/x", "/day/2026-02-27",
        "/day//stats", "/day/2026-02-27/stats/more", "/replay/", "/replay/a/b",
    ],
)  # fmt: skip
async def test_every_other_path_goes_to_the_pages(
    stand_in: StandIn, pages: list[str], path: str
) -> None:
    status, body, _ = await get(stand_in, path)
    assert (status, body) == (200, {"page": path}) and pages == [path]
    assert stand_in.asked == []


async def test_the_longest_replay_id_is_still_a_route(stand_in: StandIn, pages: list[str]) -> None:
    status, _, _ = await get(stand_in, "/replay/" + "x" * 64)
    assert status == 200 and pages == []


async def test_a_replay_id_too_long_for_any_game_is_the_routes_404(
    stand_in: StandIn, pages: list[str]
) -> None:
    status, body, _ = await get(stand_in, "/replay/" + "x" * 65)
    assert status == 404 and error_of(body) == (
        "not-found", "no finished game has an id that long"
    )  # fmt: skip
    assert pages == [] and stand_in.asked == []  # neither the pages nor the database


# -- parameters refused -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/leaderboard?colour=blue", "unknown parameter 'colour'"),
        ("/leaderboard?b=1&a=2", "unknown parameter 'a'"),
        ("/daily?day=2026-02-28", "unknown parameter 'day'"),
        ("/leaderboard?suits=1&suits=2", "suits is given twice"),
        ("/leaderboard?after=a%00b", "after: control characters are not allowed"),
        ("/leaderboard?day=2026-03-01%00", "day: control characters are not allowed"),
        ("/rank?player=bob%0A", "player: control characters are not allowed"),
        ("/history?player=%00", "player: control characters are not allowed"),
        ("/history?player=bob%C2%85", "player: control characters are not allowed"),  # C1
        ("/leaderboard?day=yesterday", "day is a date like 2026-01-31"),
        ("/leaderboard?day=2026-02-30", "day is a date like 2026-01-31"),
        ("/leaderboard?day=2026-W09-5", "day is a date like 2026-01-31"),
        ("/leaderboard?day=20260227", "day is a date like 2026-01-31"),
        ("/leaderboard?suits=3", "suits must be one of [1, 2, 4]"),
        ("/leaderboard?suits=", "suits is a whole number"),
        ("/leaderboard?suits=1.0", "suits is a whole number"),
        ("/leaderboard?limit=0", "limit is 1 to 100"),
        ("/leaderboard?limit=101", "limit is 1 to 100"),
        ("/leaderboard?limit=%2B1", "limit is a whole number"),
        ("/leaderboard?limit=%201", "limit is a whole number"),
        ("/leaderboard?limit=1_0", "limit is a whole number"),
        ("/leaderboard?limit=%D9%A1", "limit is a whole number"),  # an Arabic-Indic 1
        ("/leaderboard?limit=0000001", "limit is a whole number"),  # 7 digits
        ("/leaderboard?after=", "after is 1 to 256 characters"),
        ("/leaderboard?after=" + "a" * 257, "after is 1 to 256 characters"),
        ("/leaderboard?board=robots", "board must be one of ['humans', 'bots', 'new']"),
        ("/rank", "player is required"),
        ("/rank?player=Ivy&around=26", "around is 0 to 25"),
        ("/rank?player=Ivy&around=99999999999999999999", "around is a whole number"),
        ("/history?player=" + "p" * 65, "player is 1 to 64 characters"),
        ("/day/2026-02-27/stats?limit=5", "unknown parameter 'limit'"),
        ("/day/2026-02-27/stats?suits=1&suits=2",
         "a parameter is given twice or holds a control character"),
        ("/day/2026-02-27/stats?player=a%01b",
         "a parameter is given twice or holds a control character"),
        ("/day/2026-02-31/stats", "day is a date like 2026-01-31"),
        ("/day/2026-02-2\x017/stats", "the path holds a control character"),
        ("/replay/game-1?player=Ivy", "unknown parameter 'player'"),
        ("/replay/ga\x00me", "the path holds a control character"),
        ("/replay/ga%00me", "the path holds a control character"),
    ],
)  # fmt: skip
async def test_bad_parameters_are_answered_400_with_what_is_wrong(
    stand_in: StandIn, path: str, message: str
) -> None:
    status, body, response = await get(stand_in, path)
    assert status == 400 and error_of(body) == ("invalid-message", message)
    assert response.headers["Content-Type"] == "application/json"
    assert stand_in.asked == []


async def test_a_limit_of_six_digits_is_read(stand_in: StandIn) -> None:
    status, _, _ = await get(stand_in, "/leaderboard?limit=000100")
    assert status == 200 and stand_in.asked[-1][1]["limit"] == 100


# -- refusals and bugs --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "status"),
    [
        (ErrorCode.NOT_FOUND, 404),
        (ErrorCode.NO_SUCH_RACE, 404),
        (ErrorCode.NOT_VISIBLE, 403),
        (ErrorCode.RATE_LIMITED, 429),
        (ErrorCode.BAD_CURSOR, 400),  # what no status names is the client's error
        (ErrorCode.PROVING, 503),
        (ErrorCode.UNAVAILABLE, 503),
    ],
)
async def test_a_refusal_is_answered_with_its_status_and_its_code(
    stand_in: StandIn, code: ErrorCode, status: int
) -> None:
    stand_in.failure = Refused(code, "as the play layer says")
    got, body, response = await get(stand_in, "/leaderboard")
    assert got == status and error_of(body) == (code.value, "as the play layer says")
    # a refusal of the moment says when to ask again; any other does not
    assert response.headers.get("Retry-After") == ("5" if status == 503 else None)


async def test_a_bug_is_a_plain_500_and_a_logged_traceback(
    stand_in: StandIn, caplog: pytest.LogCaptureFixture
) -> None:
    stand_in.failure = KeyError("a secret detail")
    with caplog.at_level(logging.ERROR, logger=http.__name__):
        status, body, _ = await get(stand_in, "/history?player=Ivy")
    assert status == 500 and error_of(body) == ("internal", "the server failed to answer")
    assert "secret" not in json.dumps(body)
    [record] = caplog.records
    assert record.getMessage() == "HTTP /history failed" and record.exc_info is not None


# -- health and metrics -------------------------------------------------------------------------


class FakeHealth:
    def __init__(self, database: bool) -> None:
        self.services = {
            "database": {"ok": database, "ms": 1.0},
            "redis": {"ok": False, "ms": 2.0},
        }

    async def check(self) -> dict[str, dict[str, Any]]:
        return self.services


async def test_healthz_counts_this_nodes_connections_games_and_followers(
    stand_in: StandIn,
) -> None:
    status, body, _ = await get(stand_in, "/healthz")
    assert status == 200
    assert body == {
        "ok": True, "daily": "ready", "dailies": {"1": "ready", "2": "ready", "4": "ready"},
        "protocol": body["protocol"], "connections": 7, "games": 2, "race_followers": 2,
        "room_followers": 3,
    }  # fmt: skip
    stand_in.ready = False  # a fresh server still proving today's deals: it serves all else
    status, body, _ = await get(stand_in, "/healthz")
    assert status == 200 and body["ok"] is True and body["daily"] == "proving"
    assert body["dailies"] == {"1": "ready", "2": "proving", "4": "proving"}  # each its own


@pytest.mark.parametrize(("database", "status"), [(True, 200), (False, 503)])
async def test_healthz_is_down_with_the_database_not_with_redis(
    stand_in: StandIn, database: bool, status: int
) -> None:
    health = FakeHealth(database)
    response = await http.respond(
        cast(Hub, stand_in), request("/healthz"), health=cast(Health, health)
    )
    body = json.loads(response.body)
    assert response.status_code == status and body["ok"] is database
    assert body["database"] == health.services["database"]
    assert body["redis"] == {"ok": False, "ms": 2.0}


class FakeMetrics:
    async def render(self) -> bytes:
        return b"simon_connections 7\n"


async def test_metrics_only_where_they_are_served(stand_in: StandIn, pages: list[str]) -> None:
    served = await http.respond(
        cast(Hub, stand_in), request("/metrics"), metrics=cast(Metrics, FakeMetrics())
    )
    assert served.status_code == 200 and served.body == b"simon_connections 7\n"
    assert served.headers["Content-Type"] == CONTENT_TYPE
    assert served.headers["Content-Length"] == "20"
    assert pages == []
    await http.respond(cast(Hub, stand_in), request("/metrics"))  # none here: a page's path
    assert pages == ["/metrics"]


def test_a_health_check_is_its_path_whatever_the_query() -> None:
    assert http.is_health_check(request("/healthz"))
    assert http.is_health_check(request("/healthz?verbose=1"))
    assert not http.is_health_check(request("/healthz/"))
    assert not http.is_health_check(request("/daily"))


# -- every answer as it leaves -------------------------------------------------------------------


def test_a_json_answer_is_compact_dated_sized_and_never_cached() -> None:
    response = http.json_response(404, {"a": [1, 2], "b": "é"})
    assert response.status_code == 404 and response.reason_phrase == "Not Found"
    assert response.body == b'{"a":[1,2],"b":"\\u00e9"}'
    assert response.headers["Content-Length"] == str(len(response.body))
    assert response.headers["Cache-Control"] == "no-store"
    assert response.headers["Date"].endswith(" GMT")


def test_an_error_answer_has_the_protocols_shape() -> None:
    response = http.error_response(429, ErrorCode.RATE_LIMITED, "slow down")
    assert response.status_code == 429 and response.reason_phrase == "Too Many Requests"
    assert json.loads(response.body) == {"error": {"code": "rate-limited", "message": "slow down"}}


def test_every_answer_leaves_with_nosniff_and_head_without_its_body() -> None:
    got = http.finished(request("/daily"), http.json_response(200, {"x": 1}))
    assert got.headers["X-Content-Type-Options"] == "nosniff" and got.body == b'{"x":1}'
    headed = http.finished(request("/daily", "HEAD"), http.json_response(200, {"x": 1}))
    assert headed.body == b"" and headed.headers["Content-Length"] == "7"
    unread = http.finished(None, http.json_response(400, {"x": 1}))  # the library's refusal
    assert unread.headers["X-Content-Type-Options"] == "nosniff" and unread.body == b'{"x":1}'
    already = http.json_response(200, {})
    already.headers["X-Content-Type-Options"] = "nosniff"
    assert http.finished(None, already).headers.get_all("X-Content-Type-Options") == ["nosniff"]


def test_other_methods_are_405_with_the_methods_served() -> None:
    response = http.method_not_allowed(request("/", "POST"))
    assert response.status_code == 405 and response.headers["Allow"] == "GET, HEAD"
    assert error_of(json.loads(response.body)) == (
        "invalid-message", "POST is not served: only GET and HEAD"
    )  # fmt: skip
    long = http.method_not_allowed(request("/", "X" * 40))
    assert error_of(json.loads(long.body))[1].startswith("X" * 16 + " is not served")
