"""The HTTP JSON routes (:mod:`server.net.http`) as an OpenAPI 3.1 document: each route's
parameters from its request model's fields, its body from the websocket reply it shares
(without ``id``), and the error body ``{"error": {"code", "message"}}``.

The two bodies that are no websocket message are described by the models here:
``/healthz``'s :class:`HealthReport` and ``/account/export``'s object.
"""

from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, TypeAdapter

from server.protocol import (
    PROTOCOL_VERSION,
    DailyInfo,
    DayStats,
    DayStatsRequest,
    ErrorCode,
    History,
    HistoryRequest,
    LeaderboardPage,
    LeaderboardRequest,
    RaceRoom,
    RankInfo,
    RankRequest,
    Replay,
)

REF_TEMPLATE = "#/components/schemas/{model}"


class ServiceHealth(BaseModel):
    """One service's state: its latency when it answered, else what went wrong."""

    model_config = ConfigDict(extra="forbid")

    ok: bool
    latency_ms: float | None = None
    error: str | None = None


class HealthReport(BaseModel):
    """``/healthz``: this node's figures and its services' states (``redis`` only with
    Redis configured); answered ``503`` with ``ok`` false while the database does not
    answer; ``daily`` is ``proving`` (answered ``200``) while today's deals are proven
    (``ready`` once all three are), and ``dailies`` says each one's state by its suit count
    (each daily opens as soon as its own deal is proven)."""

    model_config = ConfigDict(extra="forbid")

    ok: bool
    daily: Literal["ready", "proving"]
    dailies: dict[Literal["1", "2", "4"], Literal["ready", "proving"]]
    protocol: int
    connections: int
    games: int
    race_followers: int
    room_followers: int
    database: ServiceHealth | None = None
    redis: ServiceHealth | None = None


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: ErrorCode
    message: str


class HttpError(BaseModel):
    """Every refusal over HTTP: a stable code and a sentence in the asker's language."""

    model_config = ConfigDict(extra="forbid")

    error: ErrorDetail


class AccountExport(BaseModel):
    """``/account/export``: when it was made, and everything kept about the account."""

    model_config = ConfigDict(extra="allow")

    exported: str  # ISO 8601


#: A query parameter: its name, the request model whose field says its values (None: a
#: player's name), and whether it is required.
@dataclass(frozen=True)
class Parameter:
    name: str
    model: type[BaseModel] | None = None
    required: bool = False
    where: Literal["query", "path"] = "query"


PLAYER_NAME = {"type": "string", "minLength": 1, "maxLength": 64}


@dataclass(frozen=True)
class Route:
    path: str
    summary: str
    body: type[BaseModel]
    parameters: tuple[Parameter, ...] = ()
    errors: tuple[int, ...] = (400, 429, 500, 503)
    bearer: Literal["none", "optional", "required"] = "none"
    extra: dict[str, Any] = field(default_factory=dict)


def _board_query(model: type[BaseModel]) -> tuple[Parameter, ...]:
    return (Parameter("day", model), Parameter("suits", model), Parameter("board", model))


ROUTES = (
    Route("/healthz", "This node's figures and its services' states", HealthReport, (), ()),
    Route("/daily", "Today's deals (no codes), yesterday's codes and par", DailyInfo),
    Route(
        "/leaderboard",
        "A page of a day's board",
        LeaderboardPage,
        (
            *_board_query(LeaderboardRequest),
            Parameter("limit", LeaderboardRequest),
            Parameter("after", LeaderboardRequest),
        ),
    ),
    Route(
        "/rank",
        "Where a player stands on a day's board, with the rows around",
        RankInfo,
        (
            *_board_query(RankRequest),
            Parameter("player", required=True),
            Parameter("around", RankRequest),
        ),
    ),
    Route(
        "/history",
        "A player's recent games and figures",
        History,
        (Parameter("player", required=True), Parameter("limit", HistoryRequest)),
    ),
    Route(
        "/race/{code}",
        "A race room, its racers and (once over) its results",
        RaceRoom,
        (Parameter("code", required=True, where="path"),),
    ),
    Route(
        "/day/{day}/stats",
        "Everyone's results of a day's board",
        DayStats,
        (
            Parameter("day", DayStatsRequest, required=True, where="path"),
            Parameter("suits", DayStatsRequest),
            Parameter("board", DayStatsRequest),
            Parameter("player"),
        ),
    ),
    Route(
        "/replay/{id}",
        "A finished game's actions, if the asker may see them",
        Replay,
        (Parameter("id", required=True, where="path"),),
        (400, 401, 403, 404, 429, 500, 503),
        bearer="optional",
    ),
    Route(
        "/account/export",
        "Everything kept about the account the bearer token signs in (5 requests)",
        AccountExport,
        (),
        (400, 401, 429, 500, 503),
        bearer="required",
        extra={"headers": {"Content-Disposition": {"schema": {"type": "string"}}}},
    ),
)

#: The paths of the generated documents themselves (served by :mod:`server.net.http`).
DOCUMENT_PATHS = ("/schema/protocol.json", "/schema/openapi.json")

_REASONS = {
    400: "Bad or unknown parameters (invalid-message, bad-cursor)",
    401: "A bad token, or an Authorization that is not Bearer (bad-token)",
    403: "The asker may not see it (not-visible)",
    404: "No such player, room, day or game (not-found, no-such-race)",
    429: "Too many requests from the address (rate-limited, with Retry-After)",
    500: "The server failed to answer (internal)",
    503: "The database does not answer (unavailable) or the deals are being proven "
    "(proving), with Retry-After",
}


def _without_null(schema: dict[str, Any]) -> dict[str, Any]:
    """A field's schema with its ``null`` alternative dropped (a parameter left out)."""
    options = schema.get("anyOf")
    if options is not None:
        kept = [option for option in options if option.get("type") != "null"]
        rest = {key: value for key, value in schema.items() if key != "anyOf"}
        schema = {**rest, **kept[0]} if len(kept) == 1 else {**rest, "anyOf": kept}
    return {key: value for key, value in schema.items() if key != "title"}


def _parameter(parameter: Parameter, fields: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if parameter.model is None:
        schema: dict[str, Any] = (
            dict(PLAYER_NAME)
            if parameter.name == "player"
            else {
                "type": "string",
                "minLength": 1,
            }
        )
    else:
        model_schema = fields[parameter.model.__name__]
        schema = _without_null(model_schema["properties"][parameter.name])
        if parameter.name == "board" and "anyOf" in schema:  # friends: the websocket's alone
            schema = {
                **{key: value for key, value in schema.items() if key != "anyOf"},
                **schema["anyOf"][0],
            }
        if schema.get("default", "") is None:
            del schema["default"]
    return {
        "name": parameter.name,
        "in": parameter.where,
        "required": parameter.required,
        "schema": schema,
    }


def _json(reference: str) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": reference}}}


@functools.cache
def _openapi_document() -> dict[str, Any]:
    bodies = {route.body for route in ROUTES} | {HttpError}
    asked = {p.model for route in ROUTES for p in route.parameters if p.model is not None}
    inputs: list[tuple[str, Literal["validation", "serialization"], TypeAdapter[Any]]] = [
        (model.__name__, "serialization", TypeAdapter(model))
        for model in sorted(bodies, key=lambda model: model.__name__)
    ]
    inputs += [
        (model.__name__, "validation", TypeAdapter(model))
        for model in sorted(asked, key=lambda model: model.__name__)
    ]
    keys, top = TypeAdapter.json_schemas(inputs, ref_template=REF_TEMPLATE)
    components = dict(top.get("$defs", {}))
    fields = {name: components[name] for name, mode in keys if mode == "validation"}
    for name in fields:
        if name not in {model.__name__ for model in bodies}:
            del components[name]  # a request model lends its fields' schemas, nothing more
    error_ref = REF_TEMPLATE.format(model="HttpError")
    paths: dict[str, Any] = {}
    for route in ROUTES:
        responses: dict[str, Any] = {
            "200": {
                "description": route.summary,
                "content": _json(REF_TEMPLATE.format(model=route.body.__name__)),
                **route.extra,
            }
        }
        if route.body is HealthReport:
            responses["503"] = {
                "description": "The database does not answer, or the deals are being proven",
                "content": _json(REF_TEMPLATE.format(model="HealthReport")),
            }
        for status in route.errors:
            responses[str(status)] = {"description": _REASONS[status], "content": _json(error_ref)}
        operation: dict[str, Any] = {
            "summary": route.summary,
            "operationId": route.path.strip("/")
            .replace("/", "_")
            .replace("{", "")
            .replace("}", ""),
            "parameters": [_parameter(p, fields) for p in route.parameters],
            "responses": responses,
        }
        if route.bearer == "required":
            operation["security"] = [{"bearer": []}]
        elif route.bearer == "optional":
            operation["security"] = [{}, {"bearer": []}]
        paths[route.path] = {"get": operation}
    for path in DOCUMENT_PATHS:
        paths[path] = {
            "get": {
                "summary": "This contract, generated from the server's models",
                "operationId": path.strip("/").replace("/", "_").replace(".", "_"),
                "responses": {
                    "200": {
                        "description": "The document (ETag, Cache-Control: no-cache)",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Simple Simon Online HTTP JSON routes",
            "version": str(PROTOCOL_VERSION),
            "description": (
                "Generated from server/protocol.py and server/schema by `python -m "
                "server.schema`: do not edit. Read-only JSON on the websocket's port; the "
                "bodies are the websocket's replies without `id` (docs/protocol.md, "
                '"HTTP on the same port").'
            ),
        },
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The account's token (a failed one counts toward the "
                    "address's sign-in back-off)",
                }
            },
        },
    }


def openapi_document() -> dict[str, Any]:
    """The OpenAPI 3.1 document of the HTTP JSON routes."""
    return copy.deepcopy(_openapi_document())
