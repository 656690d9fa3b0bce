"""Read-only HTTP JSON on the websocket port (through websockets' ``process_request``).

``GET /healthz``, ``/daily``, ``/leaderboard?day=&suits=&board=&limit=&after=``,
``/rank?day=&suits=&board=&player=``, ``/history?player=&limit=``, ``/race/CODE`` (a race
room), ``/day/YYYY-MM-DD/stats?suits=&board=&player=`` (everyone's results of a day),
``/replay/ID`` (a finished game's actions; ``Authorization: Bearer TOKEN`` signs in, under
the same back-off per address as ``auth``, and a bad token gets ``401``),
``/account/export`` (everything kept about the account the bearer token signs in, as a
JSON file), ``/schema/protocol.json`` and ``/schema/openapi.json`` (the contract, generated
from the models: :mod:`server.schema`).
The bodies are the same objects the websocket sends, without ``id``. Bad parameters
get ``400`` and ``{"error": {"code": ..., "message": ...}}``. Every other path goes to the
web pages (:mod:`server.web`), which answer unknown paths with the same JSON 404 unless a
browser asks for HTML.
"""

from __future__ import annotations

import dataclasses
import email.utils
import http
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date
from typing import Any, TypeVar
from urllib.parse import parse_qs, unquote

from pydantic import BaseModel
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from server import schema, web
from server.engine import SUIT_COUNTS
from server.i18n import gettext
from server.kinds import named_day_board, parse_day
from server.play.accounts import SignedIn
from server.play.errors import Refused, refusal_of
from server.play.hub import Hub
from server.protocol import (
    HTTP_STATUS,
    PROTOCOL_VERSION,
    DayStatsRequest,
    ErrorCode,
    HistoryRequest,
    LeaderboardRequest,
    RankRequest,
    bound_rule,
    has_control,
    query_request,
)
from server.web.responses import JSON, REVALIDATE, content, header, request_target, wants_json

from .errors import BadQuery
from .health import Health
from .limits import REPLAY_COST, Gate, LimitRefusal
from .metrics import CONTENT_TYPE, Metrics

log = logging.getLogger(__name__)

Query = dict[str, str]
Asked = TypeVar("Asked", bound=BaseModel)


def json_response(status: int, payload: Any) -> Response:
    body = json.dumps(payload, separators=(",", ":")).encode()
    status_ = http.HTTPStatus(status)
    headers = Headers(
        [
            ("Date", email.utils.formatdate(usegmt=True)),
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
        ]
    )
    return Response(status_.value, status_.phrase, headers, body)


def _text_response(body: bytes, content_type: str) -> Response:
    headers = Headers(
        [
            ("Date", email.utils.formatdate(usegmt=True)),
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Cache-Control", "no-store"),
        ]
    )
    return Response(200, "OK", headers, body)


def finished(request: Request | None, response: Response) -> Response:
    """Every HTTP answer as it leaves (the library's own refusals too): ``nosniff``,
    ``Connection: close`` (a connection answers one request), and for ``HEAD`` the headers
    of the ``GET`` with no body."""
    if "X-Content-Type-Options" not in response.headers:
        response.headers["X-Content-Type-Options"] = "nosniff"
    if response.status_code != 101 and "Connection" not in response.headers:
        response.headers["Connection"] = "close"
    if request is not None and request.method == "HEAD" and response.body:
        response = dataclasses.replace(response, body=b"")
    return response


#: The methods answered; others get 405 (the websocket handshake itself is a GET).
METHODS = ("GET", "HEAD")


def wants_upgrade(request: Request) -> bool:
    """Whether ``request`` asks for a websocket (else it is plain HTTP, answered here)."""
    return header(request, "Upgrade").lower() == "websocket"


def method_not_allowed(request: Request) -> Response:
    response = error_response(
        405,
        ErrorCode.INVALID_MESSAGE,
        gettext("%(method)s is not served: only GET and HEAD") % {"method": request.method[:16]},
    )
    response.headers["Allow"] = ", ".join(METHODS)
    return response


def body_refused(request: Request) -> Response:
    """The answer to a request with a body (``Content-Length``, ``Transfer-Encoding``),
    which is never read: 405 for a method not served, else 400."""
    if request.method not in METHODS:
        return method_not_allowed(request)
    return error_response(
        400,
        ErrorCode.INVALID_MESSAGE,
        gettext("%(method)s takes no body: send none") % {"method": request.method},
    )


async def metrics_response(metrics: Metrics) -> Response:
    return _text_response(await metrics.render(), CONTENT_TYPE)


def error_response(status: int, code: ErrorCode, message: str) -> Response:
    return json_response(status, {"error": {"code": code.value, "message": message}})


def limited(refusal: LimitRefusal) -> Response:
    """The answer to a request a limit refused (``Retry-After`` when it says when)."""
    response = error_response(refusal.status, refusal.code, refusal.sentence)
    if refusal.retry_after is not None:
        response.headers["Retry-After"] = str(refusal.error().detail["retry_after"])  # type: ignore[index]
    return response


@dataclass(frozen=True)
class SignIns:
    """The gate's sign-in back-off for the address asking: a token tried over HTTP counts
    as an ``auth`` does, so HTTP is no way around the back-off."""

    gate: Gate
    address: str


def _unauthorized(message: str) -> Response:
    response = error_response(401, ErrorCode.BAD_TOKEN, message)
    response.headers["WWW-Authenticate"] = "Bearer"
    return response


def _model(message: BaseModel) -> Response:
    return json_response(200, message.model_dump(mode="json", exclude_none=True, exclude={"id"}))


def _day(query: Query) -> date | None:
    text = query.get("day")
    if text is None:
        return None
    try:
        return parse_day(text)
    except ValueError:
        raise BadQuery(gettext("day is a date like 2026-01-31")) from None


def _request(
    model: type[Asked], query: Query, *, wholes: tuple[str, ...], texts: tuple[str, ...] = ()
) -> Asked:
    """A request ``model`` from a query: its day a date, ``wholes`` whole numbers, its board
    and ``texts`` as given; the bounds (and defaults) are the model's alone, and a value
    out of them is refused with the model's rule (:class:`BadQuery`)."""
    values: dict[str, Any] = {}
    day = _day(query)
    if day is not None:
        values["day"] = day
    if "board" in query:
        values["board"] = query["board"]
    for name in wholes:
        text = query.get(name)
        if text is None:
            continue
        # ASCII digits only: int() would also take " 1", "+1", "1_0" and other scripts' digits
        if not (text.isascii() and text.isdigit()) or len(text) > 6:
            raise BadQuery(gettext("%(name)s is a whole number") % {"name": name})
        values[name] = int(text)
    for name in texts:
        text = query.get(name)
        if text is not None:
            if not text:
                raise BadQuery(bound_rule(model, name))
            values[name] = text
    try:
        return query_request(model, values)
    except ValueError as error:
        raise BadQuery(str(error)) from None


def _text(query: Query, name: str, *, required: bool, longest: int) -> str | None:
    text = query.get(name)
    if text is None:
        if required:
            raise BadQuery(gettext("%(name)s is required") % {"name": name})
        return None
    if not text or len(text) > longest:
        raise BadQuery(
            gettext("%(name)s is 1 to %(most)s characters") % {"name": name, "most": longest}
        )
    return text


async def _healthz(hub: Hub, query: Query, health: Health | None = None) -> Response:
    """This node's figures and, with ``health``, each service's state and latency:
    ``503`` when the database does not answer (Redis down is a warning: play goes on).
    Today's deals being proven (a fresh server's first start) is no reason to wait: the
    node serves everything else meanwhile, ``daily`` says ``proving`` until all three are
    known, and ``dailies`` each one's state (its daily opens as soon as it is known)."""
    services = await health.check() if health is not None else {}
    today = hub.today()
    daily_ready = hub.daily.ready(today)
    known = hub.daily.known(today)
    ok = services.get("database", {"ok": True})["ok"]
    return json_response(
        200 if ok else 503,
        {
            "ok": ok,
            "daily": "ready" if daily_ready else "proving",
            "dailies": {
                str(suits): "ready" if suits in known else "proving" for suits in SUIT_COUNTS
            },
            "protocol": PROTOCOL_VERSION,
            "connections": hub.days.listener_count,
            "games": len(hub.live),
            "race_followers": hub.standings.follower_count,
            "room_followers": hub.rooms.follower_count,
            **services,
        },
    )


async def _daily(hub: Hub, query: Query) -> Response:
    return _model(await hub.queries.daily_info())


async def _leaderboard(hub: Hub, query: Query) -> Response:
    asked = _request(LeaderboardRequest, query, wholes=("suits", "limit"), texts=("after",))
    try:
        board = named_day_board(asked.board)
    except ValueError:
        raise BadQuery(
            gettext("a friends' board is yours: ask for it over the websocket")
        ) from None
    page = await hub.queries.leaderboard(
        day=asked.day, suits=asked.suits, limit=asked.limit, after=asked.after, board=board
    )
    return _model(page)


async def _rank(hub: Hub, query: Query) -> Response:
    name = _text(query, "player", required=True, longest=64)
    asked = _request(RankRequest, query, wholes=("suits", "around"))
    assert name is not None
    player = await hub.accounts.named(name)
    return _model(
        await hub.queries.rank(
            day=asked.day, suits=asked.suits, player=player, around=asked.around, board=asked.board
        )
    )


async def _history(hub: Hub, query: Query) -> Response:
    name = _text(query, "player", required=True, longest=64)
    limit = _request(HistoryRequest, query, wholes=("limit",)).limit
    assert name is not None
    return _model(await hub.queries.history(await hub.accounts.named(name), limit))


_ROUTES: dict[str, tuple[Callable[[Hub, Query], Awaitable[Response]], frozenset[str]]] = {
    "/healthz": (_healthz, frozenset()),
    "/daily": (_daily, frozenset()),
    "/leaderboard": (_leaderboard, frozenset({"day", "suits", "board", "limit", "after"})),
    "/rank": (_rank, frozenset({"day", "suits", "board", "player", "around"})),
    "/history": (_history, frozenset({"player", "limit"})),
}


async def _day_stats(hub: Hub, day_text: str, query: Query) -> Response:
    """``/day/YYYY-MM-DD/stats``: everyone's results of a day's board (``player``: where
    that player stands)."""
    day = _day({"day": day_text})
    asked = _request(DayStatsRequest, query, wholes=("suits",))
    name = _text(query, "player", required=False, longest=64)
    player = None if name is None else await hub.accounts.named(name)
    return _model(
        await hub.after.day_stats(day=day, suits=asked.suits, board=asked.board, player=player)
    )


async def _bearer(
    hub: Hub, request: Request, sign_ins: SignIns | None
) -> SignedIn | Response | None:
    """Who ``Authorization: Bearer TOKEN`` signs in (None without the header), or the
    refusal to answer with: under the address's back-off (``sign_ins``), the token not even
    checked while it is locked out."""
    authorization = header(request, "Authorization")
    if not authorization:
        return None
    locked = sign_ins.gate.sign_in(sign_ins.address) if sign_ins is not None else None
    if locked is not None:
        return limited(locked)
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or has_control(token):
        return _unauthorized(gettext("Authorization is Bearer and the account's token"))
    try:
        return await hub.accounts.authenticate(
            token, address=sign_ins.address if sign_ins is not None else ""
        )
    except Refused as refused:
        if refused.code is not ErrorCode.BAD_TOKEN:
            raise
        if sign_ins is not None:
            sign_ins.gate.sign_in_failed(sign_ins.address)
        return _unauthorized(refused.sentence)


async def _replay(hub: Hub, game_id: str, request: Request, sign_ins: SignIns | None) -> Response:
    """``/replay/ID``: a finished game's actions, if the asker may see them (the owner and
    reviewers sign in with ``Authorization: Bearer TOKEN``)."""
    asker = await _bearer(hub, request, sign_ins)
    if isinstance(asker, Response):
        return asker
    if len(game_id) > GAME_ID_LONGEST:  # no game has one: not worth asking the database
        return error_response(
            404, ErrorCode.NOT_FOUND, gettext("no finished game has an id that long")
        )
    return _model(await hub.after.replay(None if asker is None else asker.player, game_id))


async def _account_export(hub: Hub, request: Request, sign_ins: SignIns | None) -> Response:
    """``/account/export``: everything the server keeps about the account that
    ``Authorization: Bearer TOKEN`` signs in, as a JSON file to download."""
    asker = await _bearer(hub, request, sign_ins)
    if isinstance(asker, Response):
        return asker
    if asker is None:
        return _unauthorized(gettext("Authorization is Bearer and the account's token"))
    data = await hub.accounts.data(asker.player)
    response = json_response(200, {"exported": hub.now().isoformat(), **data})
    response.headers["Content-Disposition"] = (
        f'attachment; filename="simon-{asker.player.id}-data.json"'
    )
    return response


#: The longest game id (as the protocol's ``GameId``).
GAME_ID_LONGEST = 64


def _after_path(path: str) -> tuple[str, str] | None:
    """``("stats", DAY)`` for ``/day/DAY/stats``, ``("replay", ID)`` for ``/replay/ID``
    (the part percent-decoded, as the pages read theirs)."""
    parts = path.split("/")
    if len(parts) == 4 and parts[1] == "day" and parts[3] == "stats" and parts[2]:
        return "stats", unquote(parts[2])
    if len(parts) == 3 and parts[1] == "replay" and parts[2]:
        return "replay", unquote(parts[2])
    return None


async def _race(hub: Hub, code: str) -> Response:
    """``/race/CODE``: a race room, its racers and (once over) its results."""
    return _model(await hub.rooms.reply(None, await hub.rooms.record(code)))


def cost_of(request: Request) -> int:
    """What ``request`` costs of its address's HTTP budget: a replay (its actions, or its
    page, also asked as a page's live part) or an account's export
    :data:`~.limits.REPLAY_COST` requests, anything else one."""
    path = request_target(request).path
    heavy = path.startswith(("/replay/", "/live/replay/")) or path == "/account/export"
    return REPLAY_COST if heavy else 1


def is_health_check(request: Request) -> bool:
    """Whether ``request`` asks ``/healthz`` (its answer is a state, not a refusal)."""
    return request_target(request).path == "/healthz"


async def respond(
    hub: Hub,
    request: Request,
    health: Health | None = None,
    metrics: Metrics | None = None,
    sign_ins: SignIns | None = None,
) -> Response:
    """Answer one plain HTTP GET (``health`` probes the services for ``/healthz``;
    ``metrics`` serves ``/metrics``; ``sign_ins`` holds a bearer token to the address's
    sign-in back-off)."""
    url = request_target(request)
    if url.path == "/healthz" and health is not None:
        return await _healthz(hub, {}, health)
    if url.path == "/metrics" and metrics is not None:
        return await metrics_response(metrics)
    if url.path.startswith("/schema/"):
        document = schema.served(url.path.removeprefix("/schema/"))
        if document is not None:  # the contract: a validator, as a page has
            return content(request, document, content_type=JSON, cache_control=REVALIDATE)
    route = _ROUTES.get(url.path)
    room = unquote(url.path.removeprefix("/race/")) if url.path.startswith("/race/") else None
    if room is not None and not wants_json(request, default=True):
        room = None  # a browser: the room's page (server/web)
    after = _after_path(url.path)
    if after is not None and not wants_json(request, default=True):
        after = None  # a browser: the day's page with its chart, the replay's page
    export = url.path == "/account/export"
    if route is None and room is None and after is None and not export:
        return await web.respond(hub, request)
    try:
        if export:
            if url.query:
                raise BadQuery(gettext("this path takes no parameters"))
            return await _account_export(hub, request, sign_ins)
        if after is not None:
            what, argument = after
            raw = parse_qs(url.query, keep_blank_values=True, strict_parsing=False)
            takes = {"suits", "board", "player"} if what == "stats" else set()
            unknown = set(raw) - takes
            if unknown:
                raise BadQuery(gettext("unknown parameter %(name)r") % {"name": sorted(unknown)[0]})
            if any(len(values) > 1 or has_control(values[0]) for values in raw.values()):
                raise BadQuery(gettext("a parameter is given twice or holds a control character"))
            if has_control(argument):
                raise BadQuery(gettext("the path holds a control character"))
            query = {name: values[0] for name, values in raw.items()}
            if what == "stats":
                return await _day_stats(hub, argument, query)
            return await _replay(hub, argument, request, sign_ins)
        if room is not None:
            if url.query:
                raise BadQuery(gettext("a race room's path takes no parameters"))
            return await _race(hub, room)  # the code is checked as a room code
        assert route is not None
        handler, allowed = route
        raw = parse_qs(url.query, keep_blank_values=True, strict_parsing=False)
        unknown = set(raw) - allowed
        if unknown:
            raise BadQuery(gettext("unknown parameter %(name)r") % {"name": sorted(unknown)[0]})
        repeated = [name for name, values in raw.items() if len(values) > 1]
        if repeated:
            raise BadQuery(gettext("%(name)s is given twice") % {"name": repeated[0]})
        dirty = [name for name, values in raw.items() if has_control(values[0])]
        if dirty:  # no parameter has a use for them, and PostgreSQL refuses a NUL
            raise BadQuery(
                gettext("%(name)s: control characters are not allowed") % {"name": dirty[0]}
            )
        return await handler(hub, {name: values[0] for name, values in raw.items()})
    except BadQuery as error:
        return error_response(400, ErrorCode.INVALID_MESSAGE, str(error))
    except Exception as error:
        refused = refusal_of(error)
        if refused is None:  # what no table knows: a bug
            log.exception("HTTP %s failed", url.path)
            return error_response(500, ErrorCode.INTERNAL, gettext("the server failed to answer"))
        response = error_response(
            HTTP_STATUS.get(refused.code, 400), refused.code, refused.sentence
        )
        if refused.code in (ErrorCode.PROVING, ErrorCode.UNAVAILABLE):
            response.headers["Retry-After"] = "5"
        return response
