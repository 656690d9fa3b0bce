"""The daily deals: one per UTC day and suit count, the same on every node.

Candidates come from HMAC-SHA256(server secret, day, suits, n) for n = 0, 1, 2, ...:
nobody without the secret can compute a day's deal before it starts. The first
candidate the solver proves winnable becomes the deal, with the length of the solver's
solution as its par; candidates it cannot prove (unwinnable, or out of budget) are
skipped. The store keeps the first deal written for a day (first writer wins), so every
node serves the same one even if their solvers disagreed.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import date
from multiprocessing import get_context
from multiprocessing.pool import Pool
from typing import Any, Final, TypeVar

from server.engine import SUIT_COUNTS, GameCode
from server.engine.codes import DEALS_PER_SUIT_COUNT
from server.store import DailyDealRecord, Store

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Give up on a day after this many unproven candidates (a server misconfiguration).
MAX_CANDIDATES: Final = 64


@dataclass(frozen=True, slots=True)
class Proof:
    """What a prover found about a deal: ``winnable`` None means it could not tell."""

    winnable: bool | None
    par: int | None = None
    moves: tuple[str, ...] = ()


#: Proves one deal (a game code) winnable or not.
Prover = Callable[[str], Awaitable[Proof]]


def candidate_codes(secret: str, day: date, suits: int) -> Iterator[str]:
    """The day's candidate codes, in the order they are tried."""
    for n in range(MAX_CANDIDATES):
        digest = hmac.new(
            secret.encode(), f"daily|{day.isoformat()}|S{suits}|{n}".encode(), hashlib.sha256
        ).digest()
        yield str(GameCode(suits, int.from_bytes(digest[:16], "big") % DEALS_PER_SUIT_COUNT))


def solve_code(code: str, max_seconds: float) -> Proof:
    """Run the solver on one code (in a worker: it takes seconds of CPU)."""
    from server.engine import Game
    from server.solver import Verdict, solve

    solution = solve(Game.from_code(code), max_seconds=max_seconds)
    if solution.verdict is Verdict.WINNABLE:
        moves = tuple(move.text() for move in solution.moves)
        return Proof(True, len(moves), moves)
    if solution.verdict is Verdict.UNWINNABLE:
        return Proof(False)
    return Proof(None)


class SolverProver:
    """The real prover: the solver in a worker process (or a thread), off the event loop.

    A process pool of one: the search is pure Python and would otherwise hold the GIL
    away from play. ``close`` terminates the worker at once, so a shutdown never waits
    for a search to end.
    """

    def __init__(
        self,
        max_seconds: float,
        *,
        processes: bool = True,
        prove: Callable[[str, float], Proof] = solve_code,
    ) -> None:
        """``prove`` runs in the worker: the daily's :func:`solve_code` (a short solution:
        par), or a race room's bare verdict (server/play/room_deals.py)."""
        self.max_seconds = max_seconds
        self._processes = processes
        self._prove = prove
        self._pool: Pool | None = None

    async def __call__(self, code: str) -> Proof:
        if not self._processes:
            return await asyncio.to_thread(self._prove, code, self.max_seconds)
        if self._pool is None:
            # spawn: a forked child of a threaded asyncio process is unsafe
            self._pool = get_context("spawn").Pool(1)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Proof] = loop.create_future()

        def settle(outcome: Proof | BaseException) -> None:
            if future.done():  # the waiter gave up (shutdown)
                return
            if isinstance(outcome, BaseException):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)

        self._pool.apply_async(
            self._prove,
            (code, self.max_seconds),
            callback=lambda proof: loop.call_soon_threadsafe(settle, proof),
            error_callback=lambda error: loop.call_soon_threadsafe(settle, error),
        )
        return await future

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool = None


class NoDailyDeal(RuntimeError):
    """No candidate of the day could be proven winnable."""


class DailySchedule:
    """Finds, stores and hands out the daily deals."""

    def __init__(self, store: Store, *, secret: str, prover: Prover) -> None:
        self._store = store
        self._secret = secret
        self._prover = prover
        self._cache: dict[tuple[date, int], DailyDealRecord] = {}
        self._pending: dict[tuple[date, int], asyncio.Task[DailyDealRecord]] = {}
        self._background: set[asyncio.Task[DailyDealRecord]] = set()
        #: Store calls in flight: never cancelled halfway (that would strand a connection).
        self._writes: set[asyncio.Future[Any]] = set()

    async def deal(self, day: date, suits: int) -> DailyDealRecord:
        """The deal of ``day`` for ``suits``: stored, or found now (once per node)."""
        key = (day, suits)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        task = self._pending.get(key)
        if task is None:
            task = asyncio.create_task(self._find(day, suits), name=f"daily-{day}-{suits}")
            self._pending[key] = task
            task.add_done_callback(lambda _: self._pending.pop(key, None))
        # shield: one waiter giving up must not cancel the search for the others
        record = await asyncio.shield(task)
        self._cache[key] = record
        return record

    async def deals(self, day: date, *, wait: float | None = None) -> list[DailyDealRecord]:
        """The day's deals; with ``wait``, only those found within that many seconds
        (a search goes on in the background: the first start of a fresh server can take
        minutes to prove a 4-suit deal)."""
        tasks = [asyncio.ensure_future(self.deal(day, suits)) for suits in SUIT_COUNTS]
        done, _ = await asyncio.wait(tasks, timeout=wait)
        found = []
        for task in tasks:
            if task in done:
                found.append(task.result())  # raises what the search raised
            else:
                task.add_done_callback(_log_failure)
        return found

    def prepare(self, day: date) -> None:
        """Start finding a day's deals in the background (at start-up, before midnight)."""
        for suits in SUIT_COUNTS:
            if (day, suits) not in self._cache and (day, suits) not in self._pending:
                task = asyncio.create_task(self.deal(day, suits))
                self._background.add(task)
                task.add_done_callback(self._background.discard)
                task.add_done_callback(_log_failure)

    async def close(self) -> None:
        """Stop searching (at shutdown); store calls under way are let finish."""
        tasks = list(self._pending.values()) + list(self._background)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*self._writes, return_exceptions=True)

    async def _stored(self, call: Awaitable[T]) -> T:
        """Await a store call that a cancellation of the search does not interrupt."""
        future = asyncio.ensure_future(call)
        self._writes.add(future)
        future.add_done_callback(self._writes.discard)
        return await asyncio.shield(future)

    def forget_before(self, day: date) -> None:
        for key in [key for key in self._cache if key[0] < day]:
            del self._cache[key]

    async def _find(self, day: date, suits: int) -> DailyDealRecord:
        stored = await self._stored(self._store.get_daily_deal(day=day, suits=suits))
        if stored is not None:
            return stored
        for code in candidate_codes(self._secret, day, suits):
            proof = await self._prover(code)
            if proof.winnable:
                log.info("daily %s S%d: %s, par %s", day, suits, code, proof.par)
                return await self._stored(
                    self._store.put_daily_deal(
                        day=day, suits=suits, code=code, par=proof.par, solution=proof.moves
                    )
                )
            log.info("daily %s S%d: skipped %s (winnable: %s)", day, suits, code, proof.winnable)
        raise NoDailyDeal(f"no provable deal for {day} with {suits} suits")


def _log_failure(task: asyncio.Task[DailyDealRecord]) -> None:
    if not task.cancelled() and not isinstance(task.exception(), asyncio.CancelledError | None):
        log.error("finding a daily deal failed", exc_info=task.exception())
