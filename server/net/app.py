"""Start and stop a whole server: store, bus, hub and the websocket listener.

::

    async with run_server(Settings(port=0)) as running:
        print(running.url)  # ws://127.0.0.1:54321
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.http11 import Request, Response
from websockets.server import ServerProtocol

from server.bus import Bus, open_bus, redis_client
from server.play.clock import Clock, SystemClock
from server.play.daily import Prover, SolverProver
from server.play.hub import Hub
from server.play.room_deals import verdict_of
from server.play.rooms import RoomSettings
from server.settings import Settings
from server.store import Store

from . import http
from .connection import serve_connection
from .health import Health
from .limits import Gate, Limits, Monotonic, Refusal
from .listen import AcceptErrors, connection_cap, listen
from .metrics import Metrics

log = logging.getLogger(__name__)


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

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}"

    @property
    def http_url(self) -> str:
        return f"http://{self.host}:{self.port}"


class GatedConnection(ServerConnection):
    """A connection counted by the :class:`Gate` from accept to close, and, once its
    request is read, by its client address."""

    gate: Gate  # set on the subclass made for each server (:func:`_connection_class`)

    def __init__(self, protocol: ServerProtocol, *args: Any, **kwargs: Any) -> None:
        super().__init__(protocol, *args, **kwargs)
        #: The address it was admitted as (None until its request was read and admitted).
        self.client_address: str | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.gate.opened()
        if self.gate.total > self.gate.limits.max_connections + HANDSHAKE_SLACK:
            assert isinstance(transport, asyncio.Transport)
            transport.abort()  # far over the cap: not even a handshake, keep descriptors free

    def connection_lost(self, exc: Exception | None) -> None:
        self.gate.closed(self.client_address)
        super().connection_lost(exc)


#: Connections accepted past the cap that still get an answer (503) rather than a reset.
HANDSHAKE_SLACK = 64


def _connection_class(gate: Gate) -> type[GatedConnection]:
    return type("Connection", (GatedConnection,), {"gate": gate})


def _limited(refusal: Refusal) -> Response:
    response = http.error_response(refusal.status, refusal.code, refusal.message)
    if refusal.retry_after is not None:
        response.headers["Retry-After"] = str(refusal.error().detail["retry_after"])  # type: ignore[index]
    return response


async def _process_request(
    hub: Hub,
    gate: Gate,
    health: Health,
    metrics: Metrics,
    connection: ServerConnection,
    request: Request,
) -> Response | None:
    peer = connection.remote_address[0] if connection.remote_address else None
    address = gate.client_address(peer, request.headers.get_all("X-Forwarded-For"))
    refused = gate.admit(address)
    if refused is not None:
        return _limited(refused)
    assert isinstance(connection, GatedConnection)
    connection.client_address = address
    if request.headers.get("Upgrade", "").lower() == "websocket":
        return None
    refused = gate.http_request(address)
    if refused is not None:
        return _limited(refused)
    response = await http.respond(hub, request, health, metrics)
    if response.status_code >= 400 and not http.is_health_check(request):
        # a 503 from /healthz is the node's state (proving, the database down), which a
        # balancer polls for: not an error answered to anyone
        metrics.error(response.body.decode(errors="replace"))
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
    gate = Gate(Limits.of(settings, max_connections=cap), monotonic=monotonic)
    loop = asyncio.get_running_loop()
    previous_handler = loop.get_exception_handler()
    loop.set_exception_handler(
        AcceptErrors(settings.accept_error_log_seconds, previous=previous_handler)
    )
    async with AsyncExitStack() as stack:
        stack.callback(loop.set_exception_handler, previous_handler)
        rank_redis = None
        if store is None:
            if settings.redis_url:
                rank_redis = redis_client(settings.redis_url, **settings.redis_timeouts)
                stack.push_async_callback(rank_redis.aclose)
            store = await Store.open(
                settings.effective_database_url,
                redis=rank_redis,
                redis_prefix=settings.redis_prefix,
                migrate=True,
                commit_window=settings.commit_window_ms / 1000,
                commit_timeout=settings.commit_timeout_seconds,
                timeouts=settings.database_timeouts,
            )
            stack.push_async_callback(store.close)
        if bus is None:
            bus = open_bus(
                settings.redis_url, prefix=settings.redis_prefix, **settings.redis_timeouts
            )
            await bus.start()
            stack.push_async_callback(bus.close)
        deal_prover = prover
        solvers: tuple[SolverProver, ...] = ()
        if prover is None:
            solver = SolverProver(settings.daily_solver_seconds)
            stack.callback(solver.close)
            prover = solver
            # race rooms' deals in a worker of their own: a verdict never waits for a daily
            verdicts = SolverProver(
                settings.race_solver_seconds, prove=verdict_of, name="race deals"
            )
            stack.callback(verdicts.close)
            deal_prover = verdicts
            solvers = (solver, verdicts)
        hub = Hub(
            store=store,
            bus=bus,
            clock=clock,
            secret=settings.secret,
            prover=prover,
            thresholds=settings.fairplay,
            room_settings=RoomSettings(
                countdown=settings.race_countdown_seconds,
                time_limit=settings.race_time_limit_seconds,
                quick_wait=settings.race_quick_wait_seconds,
                open_for=settings.race_open_seconds,
                sweep=settings.race_sweep_seconds,
            ),
            deal_prover=deal_prover,
        )
        hub.start()
        stack.push_async_callback(hub.close)
        gate.start()
        stack.push_async_callback(gate.close)
        health = Health(store, redis=rank_redis, timeout=settings.health_timeout_seconds)
        stack.push_async_callback(health.close)
        metrics = Metrics(hub, gate, health)
        metrics.watch_commits(store)
        gate.on_refuse = metrics.refused
        listener = listen(settings.host, settings.port)
        stack.callback(listener.close)  # the server closes it too; twice does no harm
        server = await stack.enter_async_context(
            serve(
                partial(
                    _connection,
                    hub,
                    gate,
                    metrics,
                    settings.rate_limit_messages,
                    settings.rate_limit_window_seconds,
                ),
                sock=listener,
                compression=None,  # small frames: deflate costs CPU and memory for nothing
                max_size=settings.max_message_bytes,
                ping_interval=settings.ping_interval_seconds,
                ping_timeout=settings.ping_timeout_seconds,
                open_timeout=settings.handshake_timeout_seconds,
                process_request=partial(_process_request, hub, gate, health, metrics),
                server_header=None,
                create_connection=_connection_class(gate),
            )
        )
        port = listener.getsockname()[1]
        running = RunningServer(
            settings=settings,
            hub=hub,
            server=server,
            host=settings.host,
            port=port,
            gate=gate,
            solvers=solvers,
        )
        log.info("listening on %s (protocol HTTP on %s)", running.url, running.http_url)
        yield running
        log.info("shutting down")


async def _connection(
    hub: Hub,
    gate: Gate,
    metrics: Metrics,
    budget: int,
    window: float,
    websocket: ServerConnection,
) -> None:
    await serve_connection(hub, websocket, budget, window, gate, metrics)
