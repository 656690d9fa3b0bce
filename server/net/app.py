"""Start and stop a whole server: store, bus, hub and the websocket listener.

::

    async with run_server(Settings(port=0)) as running:
        print(running.url)  # ws://127.0.0.1:54321
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import partial

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response

from server.bus import Bus, RedisBus, open_bus, redis_client
from server.i18n import speaking
from server.play.after.review import REVIEW_NICE, REVIEW_PARTS
from server.play.clock import Clock, SystemClock
from server.play.daily.deals import Prover, SolverProver, daily_workers, solver_build
from server.play.hub import Hub
from server.play.rooms.deals import verdict_of
from server.play.rooms.rooms import RoomSettings
from server.protocol import ErrorCode
from server.settings import Settings
from server.store import Store
from server.store.database import private_folder
from server.store.ranks import RedisRankCache
from server.web import languages
from server.web.responses import header, request_target

from . import http
from .addresses import parse_address
from .connection import finish_in_flight, serve_connection
from .gated import GatedConnection, connection_class
from .health import Health
from .limits import Gate, Limits, Monotonic
from .listen import (
    AcceptErrors,
    ConnectionLines,
    SendFailures,
    bind,
    connection_cap,
    listen,
)
from .metrics import Metrics
from .origin import Origins

log = logging.getLogger(__name__)

#: How long a closing connection waits for the client's close frame before its socket is
#: closed: a client that never answers would otherwise hold a stop up for the library's
#: 10 s (docs/operations.md promises a stop within a few seconds).
CLOSE_TIMEOUT = 2.0
#: At a stop, how long the messages being handled have to be answered before the close.
STOP_IN_FLIGHT = 2.0


@dataclass
class RunningServer:
    settings: Settings
    hub: Hub
    server: Server
    host: str
    port: int
    #: The limits in force (tests call ``gate.sweep()`` after moving its clock).
    gate: Gate
    #: The solver workers this server started (none when a prover was given).
    solvers: tuple[SolverProver, ...] = ()
    #: The port of ``/metrics``'s own listener (``SIMON_METRICS_PORT``), if it has one.
    metrics_port: int | None = None

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.port}"


def _loopback(peer: str | None) -> bool:
    address = parse_address(peer)
    return address is not None and address.is_loopback


async def _process_request(
    hub: Hub,
    gate: Gate,
    health: Health,
    metrics: Metrics,
    metrics_here: bool,
    origins: Origins,
    connection: ServerConnection,
    request: Request,
) -> Response | None:
    """Answer a request before any websocket: its refusals (and the pages and JSON routes)
    said in the language it asks for (the URL's, the cookie's, ``Accept-Language``)."""
    with speaking(languages.choose(request, request_target(request).query)):
        return await _answer_request(
            hub, gate, health, metrics, metrics_here, origins, connection, request
        )


async def _answer_request(
    hub: Hub,
    gate: Gate,
    health: Health,
    metrics: Metrics,
    metrics_here: bool,
    origins: Origins,
    connection: ServerConnection,
    request: Request,
) -> Response | None:
    peer = connection.remote_address[0] if connection.remote_address else None
    upgrade = http.wants_upgrade(request)
    if upgrade:
        # another site's page in a player's browser: refused before it is counted for
        # anything (the player's address, its connections, its sign-ins)
        proto = header(request, "X-Forwarded-Proto") if gate.trusted_peer(peer) else None
        cross = origins.refusal(request, proto)
        if cross is not None:
            metrics.refused(ErrorCode.BAD_ORIGIN.value)
            return http.error_response(403, ErrorCode.BAD_ORIGIN, cross)
    forwarded = request.headers.get_all("X-Forwarded-For")
    address = gate.client_address(peer, forwarded)
    refused = gate.admit(address)
    if refused is not None:
        return http.limited(refused)
    assert isinstance(connection, GatedConnection)
    connection.admitted(address)
    if upgrade:
        refused = gate.handshake(address)
        return None if refused is None else http.limited(refused)
    if request.method not in http.METHODS:
        return http.method_not_allowed(request)
    refused = gate.http_request(address, http.cost_of(request))
    if refused is not None:
        return http.limited(refused)
    # /metrics here only for the machine itself, not through a proxy (else it has a
    # listener of its own, SIMON_METRICS_PORT)
    local = metrics_here and not forwarded and _loopback(peer)
    response = await http.respond(
        hub, request, health, metrics if local else None, http.SignIns(gate, address)
    )
    if response.status_code >= 400 and not http.is_health_check(request):
        # a 503 from /healthz is the node's state (the database down), which a
        # balancer polls for: not an error answered to anyone
        metrics.http_error(response.body.decode(errors="replace"))
    return response


@asynccontextmanager
async def run_server(
    settings: Settings,
    *,
    clock: Clock | None = None,
    prover: Prover | None = None,
    store: Store | None = None,
    bus: Bus | None = None,
    monotonic: Monotonic = time.monotonic,
) -> AsyncIterator[RunningServer]:
    """Open the store and bus, listen, and on exit close everything in reverse order.

    ``clock`` and ``prover`` default to the system clock and the solver in a worker
    process; tests pass their own (a given ``prover`` proves race rooms' deals too).
    ``store`` and ``bus``, when given, are not closed here. ``monotonic`` is the limits'
    clock (tests move it by hand).
    """
    clock = clock or SystemClock()
    cap = connection_cap(settings.max_connections, settings.descriptor_reserve)
    if cap < settings.max_connections:
        log.warning(
            "at most %d connections: the descriptor limit less SIMON_DESCRIPTOR_RESERVE (%d) "
            "is below SIMON_MAX_CONNECTIONS (%d)",
            cap,
            settings.descriptor_reserve,
            settings.max_connections,
        )
    gate = Gate(
        Limits.of(settings, max_connections=cap),
        monotonic=monotonic,
        connection_clock=clock.monotonic,
    )
    loop = asyncio.get_running_loop()
    previous_handler = loop.get_exception_handler()
    loop.set_exception_handler(
        AcceptErrors(settings.accept_error_log_seconds, previous=previous_handler)
    )
    async with AsyncExitStack() as stack:
        stack.callback(loop.set_exception_handler, previous_handler)
        bound = bind(settings.host, settings.port)  # a busy port fails here, before any work
        stack.callback(bound.close)  # the server closes it too; twice does no harm
        for name, log_filter in (
            ("asyncio", SendFailures(settings.accept_error_log_seconds)),
            ("websockets.server", ConnectionLines()),
        ):
            logging.getLogger(name).addFilter(log_filter)
            stack.callback(logging.getLogger(name).removeFilter, log_filter)
        daily_solver = None
        if prover is None:
            # the daily's solver workers first: their start (a process each, its imports)
            # goes on while the database opens, so a first start's proofs begin at once
            daily_solver = SolverProver(settings.daily_solver_seconds, workers=daily_workers())
            stack.callback(daily_solver.close)
            daily_solver.start()
        rank_redis = None
        if settings.database_url is None:  # the embedded database: in the data folder
            private_folder(settings.data_dir)
        if store is None:
            if settings.redis_url:
                rank_redis = redis_client(settings.redis_url, **settings.redis_cache_timeouts)
                stack.push_async_callback(rank_redis.aclose)
            store = await Store.open(
                settings.effective_database_url,
                redis=rank_redis,
                redis_prefix=settings.redis_prefix,
                migrate=True,
                commit_window=settings.commit_window_ms / 1000,
                commit_timeout=settings.commit_timeout_seconds,
                timeouts=settings.database_timeouts,
                breaker_seconds=settings.redis_breaker_seconds,
                monotonic=clock.monotonic,
                sqlite_synchronous=settings.sqlite_synchronous,
            )
            stack.push_async_callback(store.close)
        if bus is None:
            bus = open_bus(
                settings.redis_url,
                prefix=settings.redis_prefix,
                breaker_seconds=settings.redis_breaker_seconds,
                monotonic=clock.monotonic,
                **settings.redis_timeouts,
            )
            await bus.start()
            stack.push_async_callback(bus.close)
        deal_prover = prover
        solvers: tuple[SolverProver, ...] = ()
        reviews: SolverProver | None = None  # tests that bring a prover: the hub's own
        fairplay_worker: SolverProver | None = None  # ... and a thread for the fair play
        if prover is None:
            assert daily_solver is not None  # made above: a day's three deals side by side
            solver = prover = daily_solver
            # race rooms' deals in a worker of their own: a verdict never waits for a daily
            verdicts = SolverProver(
                settings.race_solver_seconds, prove=verdict_of, name="race deals"
            )
            stack.callback(verdicts.close)
            deal_prover = verdicts
            # games reviewed against the solver, at a lower priority than play
            reviews = SolverProver(
                settings.review_seconds,
                name="game reviews",
                nice=REVIEW_NICE,
                workers=REVIEW_PARTS,
            )
            stack.callback(reviews.close)
            solvers = (solver, verdicts, reviews)
            # a finished daily's fair-play evidence, CPU work that grows with its log: in a
            # process of its own, so a long game's end holds up nobody's game; closed with
            # the hub, once the games in flight at a stop have ended (none is cut short)
            fairplay_worker = SolverProver(0.0, name="fair play")
            stack.callback(fairplay_worker.close)
        # unset: the install's own, made at its first start and kept in its database
        secret = settings.secret or await store.install_secret(
            name="daily", candidate=secrets.token_urlsafe(32), now=clock.now()
        )
        hub = Hub(
            store=store,
            bus=bus,
            clock=clock,
            secret=secret,
            prover=prover,
            thresholds=settings.fairplay,
            room_settings=RoomSettings(
                countdown=settings.race_countdown_seconds,
                time_limit=settings.race_time_limit_seconds,
                quick_wait=settings.race_quick_wait_seconds,
                open_for=settings.race_open_seconds,
                sweep=settings.race_sweep_seconds,
                open_rooms=settings.race_open_rooms_per_account,
                watches=settings.race_watches_per_connection,
            ),
            deal_prover=deal_prover,
            reviewers=settings.reviewer_names,
            public_url=settings.public_url,
            review_seconds=settings.review_seconds,
            review_ahead_seconds=settings.review_ahead_seconds,
            held_review_hours=settings.held_review_hours,
            review_worker=reviews,
            max_game_actions=settings.max_game_actions,
            fairplay_worker=fairplay_worker,
        )
        hub.start()
        stack.push_async_callback(hub.close)
        if reviews is not None:
            starting = asyncio.create_task(_start_after_today(hub, reviews), name="review-workers")
            stack.push_async_callback(_cancelled, starting)
        gate.start()
        stack.push_async_callback(gate.close)
        health = Health(store, redis=rank_redis, timeout=settings.health_timeout_seconds)
        stack.push_async_callback(health.close)
        metrics = Metrics(hub, gate, health)
        metrics.watch_commits(store)
        if isinstance(store.ranks, RedisRankCache):
            metrics.watch_breaker("rank-cache", store.ranks.breaker)
        if isinstance(bus, RedisBus):
            metrics.watch_breaker("bus", bus.breaker)
        gate.on_refuse = metrics.refused
        listener = listen(settings.host, settings.port, bound=bound)
        server = await stack.enter_async_context(
            serve(
                partial(_connection, hub, gate, metrics),
                sock=listener,
                compression=None,  # small frames: deflate costs CPU and memory for nothing
                max_size=settings.max_message_bytes,
                ping_interval=settings.ping_interval_seconds,
                ping_timeout=settings.ping_timeout_seconds,
                open_timeout=settings.handshake_timeout_seconds,
                close_timeout=CLOSE_TIMEOUT,
                process_request=partial(
                    _process_request,
                    hub,
                    gate,
                    health,
                    metrics,
                    settings.metrics_port is None,
                    Origins(settings.public_url),
                ),
                server_header=None,
                create_connection=connection_class(gate),
            )
        )
        if settings.metrics_port is not None:
            metrics_server = await stack.enter_async_context(
                serve_metrics(metrics, settings.metrics_host, settings.metrics_port)
            )
            metrics_port = _address(metrics_server)[1]
            log.info("metrics on http://%s:%d/metrics", settings.metrics_host, metrics_port)
        else:
            metrics_port = None
        port = listener.getsockname()[1]
        running = RunningServer(
            settings=settings,
            hub=hub,
            server=server,
            host=settings.host,
            port=port,
            gate=gate,
            solvers=solvers,
            metrics_port=metrics_port,
        )
        log.info("listening on %s (protocol HTTP on %s)", running.url, running.http_url)
        _log_solver_build()
        yield running
        log.info("shutting down")
        # The solvers first: a review or a race's deal verdict under way is cut short
        # (answered "unavailable") rather than holding the stop for up to its whole search.
        for worker in solvers:
            worker.close()
        server.server.close()  # no new connection meanwhile (the library's close does it too)
        await finish_in_flight(server.connections, STOP_IN_FLIGHT)


async def _start_after_today(hub: Hub, workers: SolverProver) -> None:
    """Start ``workers`` (the reviews') once today's deals are known: a worker's start, a
    process and its imports, took a first review 3 s more; begun with the server, it would
    slow a first start's proofs instead."""
    with contextlib.suppress(Exception):  # logged where it failed: wanted all the same
        await hub.daily.deals(hub.today())
    workers.start()


async def _cancelled(task: asyncio.Task[None]) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


async def _connection(hub: Hub, gate: Gate, metrics: Metrics, websocket: ServerConnection) -> None:
    assert isinstance(websocket, GatedConnection)
    await serve_connection(hub, websocket, gate, metrics)


@asynccontextmanager
async def serve_metrics(metrics: Metrics, host: str, port: int) -> AsyncIterator[Server]:
    """``/metrics`` alone on a listener of its own (``SIMON_METRICS_HOST``/``PORT``), for a
    scraper on another host: every other path answers 404, nothing is upgraded."""

    async def answer(connection: ServerConnection, request: Request) -> Response:
        if request.method not in http.METHODS:
            response = http.method_not_allowed(request)
        elif request_target(request).path != "/metrics":
            response = http.error_response(404, ErrorCode.NOT_FOUND, "only /metrics here")
        else:
            response = await http.metrics_response(metrics)
        return http.finished(request, response)

    async def never(connection: ServerConnection) -> None:  # every request is answered above
        raise AssertionError("the metrics listener upgraded a connection")

    async with serve(never, host, port, process_request=answer, server_header=None) as server:
        yield server


def _address(server: Server) -> tuple[str, int]:
    host, port = server.sockets[0].getsockname()[:2]
    return str(host), int(port)


def _log_solver_build() -> None:
    build = solver_build()
    if build == "stale":
        log.warning(
            "the solver's compiled search is older than server/solver/search.py: the old code"
            " runs until `pip install -e .` builds it again"
        )
    elif build == "python":
        log.info("the solver runs as plain Python (no C compiler at install): reviews slower")
