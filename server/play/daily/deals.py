"""The daily deals: one per UTC day and suit count, the same on every node.

Candidates come from HMAC-SHA256(server secret, day, suits, n) for n = 0, 1, 2, ...:
nobody without the secret can compute a day's deal before it starts. The first
candidate the solver proves winnable becomes the deal, with the length of the solver's
solution as its par; candidates it cannot prove (unwinnable, or out of budget) are
skipped. One node proves a day's deals (the holder of the store's lease, well before the
day starts); the others wait for what it stores, and the store keeps the first deal written
for a day (first writer wins), so every node serves the same ones.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import hmac
import logging
import os
import signal
import threading
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from datetime import date
from multiprocessing import get_context
from multiprocessing.connection import wait
from typing import Any, Final, TypeVar

from server.engine import SUIT_COUNTS, GameCode, InvalidCodeError
from server.engine.codes import DEALS_PER_SUIT_COUNT
from server.play.errors import DealsNotReady, NoDailyDeal, Refused, SolverStopped, refusal_of
from server.protocol import ErrorCode
from server.store import DailyDealRecord, DealStore

from .worker import STOP_SIGNALS, WORKER_EXIT_SECONDS, start_worker, warm
from .worker import Proof as Proof  # the rest of the server takes these from here
from .worker import solve_code as solve_code

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Give up on a day after this many unproven candidates (a server misconfiguration).
MAX_CANDIDATES: Final = 64


#: Proves one deal (a game code) winnable or not.
Prover = Callable[[str], Awaitable[Proof]]


def candidate_codes(secret: str, day: date, suits: int) -> Iterator[str]:
    """The day's candidate codes, in the order they are tried."""
    for n in range(MAX_CANDIDATES):
        digest = hmac.new(
            secret.encode(), f"daily|{day.isoformat()}|S{suits}|{n}".encode(), hashlib.sha256
        ).digest()
        yield str(GameCode(suits, int.from_bytes(digest[:16], "big") % DEALS_PER_SUIT_COUNT))


def daily_workers() -> int:
    """How many searches the daily's prover runs at once: a day's three suit counts, as
    far as this node's cores go (the workers run at normal priority only while proving:
    they wait idle the rest of the day)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(len(SUIT_COUNTS), cores or 1))


class SolverProver:
    """The real prover: the solver in a worker process (or a thread), off the event loop.

    A process pool (of one unless ``workers`` says more): the search is pure Python and
    would otherwise hold the GIL away from play. A worker ignores SIGINT and SIGTERM: it is
    spawned with them blocked (a blocked mask survives ``exec``, so there is no moment at
    which a signal to the process group can reach it) and ignores them before unblocking
    them (server/play/daily/worker.py). ``close`` kills the workers at once, so a stop
    never waits for a search to end, and never waits on a lock a dead worker held
    (``multiprocessing.Pool.terminate`` can: its workers hold the task queue's lock while
    idle). A worker ends by itself once the server is gone (:func:`end_with_parent`),
    even when the server had no stop of its own (``kill -9``).
    """

    def __init__(
        self,
        max_seconds: float,
        *,
        processes: bool = True,
        prove: Callable[[str, float], Proof] = solve_code,
        name: str = "daily deals",
        nice: int = 0,
        workers: int = 1,
    ) -> None:
        """``prove`` runs in the worker: the daily's :func:`solve_code` (a short solution:
        par), or a race room's bare verdict (server/play/rooms/deals.py). ``name`` says
        whose worker it is in the log; ``nice`` lowers its priority (``os.nice``: reviews of
        games, server/play/after/review.py); ``workers``: searches run at once, each in a
        process of its own (the daily's: a day's three suit counts, as the cores allow)."""
        self.max_seconds = max_seconds
        self.name = name
        self._processes = processes
        self._prove = prove
        self._executor: ProcessPoolExecutor | None = None
        self._running: set[concurrent.futures.Future[Any]] = set()
        self._closed = False
        self._nice = nice
        self._workers = max(1, workers)
        #: Searches under way or waiting when :meth:`close` stopped the worker.
        self.cut_short = 0

    def start(self) -> None:
        """Start the workers now, not at the first search (each imports the solver first:
        started at a server's start, that goes on while the database opens)."""
        if self._processes and not self._closed:
            for _ in range(self._workers):
                self._submit(warm)

    async def __call__(self, code: str) -> Proof:
        return await self.run(self._prove, code, self.max_seconds)

    async def run(self, task: Callable[..., T], *args: Any) -> T:
        """``task(*args)`` in the worker (a top-level function: it is pickled there)."""
        if not self._processes:
            return await asyncio.to_thread(task, *args)
        try:
            return await self._in_worker(task, *args)
        except BrokenProcessPool:  # the worker died (killed by the system): once more
            if self._closed:  # killed by close(): the node is stopping
                raise SolverStopped(f"the solver ({self.name}) was stopped") from None
            log.warning("solver worker (%s) died; starting another", self.name)
            self._executor = None
            return await self._in_worker(task, *args)

    async def _in_worker(self, task: Callable[..., T], *args: Any) -> T:
        if self._closed:
            raise SolverStopped(f"the solver ({self.name}) is stopped")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def settle(work: concurrent.futures.Future[T]) -> None:
            if future.done():  # the waiter gave up (shutdown)
                return
            if work.cancelled():
                future.cancel()
            elif (error := work.exception()) is not None:
                future.set_exception(error)
            else:
                future.set_result(work.result())

        def deliver(work: concurrent.futures.Future[T]) -> None:
            self._running.discard(work)
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(settle, work)

        work = self._submit(task, *args)
        self._running.add(work)
        work.add_done_callback(deliver)
        # A waiter that gives up leaves its work alone: cancelling an executor's future races
        # with the executor's own thread, which on Python 3.11 then dies with a traceback
        # (InvalidStateError) when the worker is killed at a stop; the result is dropped.
        return await future

    def _submit(self, task: Callable[..., T], *args: Any) -> concurrent.futures.Future[T]:
        if self._executor is None:
            # spawn: a forked child of a threaded asyncio process is unsafe
            self._executor = ProcessPoolExecutor(
                self._workers,
                mp_context=get_context("spawn"),
                initializer=start_worker,
                initargs=(self._nice, os.getpid()),
            )
        # a worker is spawned (if need be) by submit, in this thread: with the stop
        # signals blocked here, it starts with them blocked; ours wait until the unblock
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            return self._executor.submit(task, *args)
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)

    def close(self) -> None:
        """Stop the worker now (killed: a search under way is cut short, and counted in
        :attr:`cut_short` with those waiting)."""
        self._closed = True
        executor, self._executor = self._executor, None
        if executor is None:
            return
        self.cut_short = len(self._running)
        workers = list(executor._processes.values())
        executor.shutdown(wait=False)  # nothing cancelled: see _in_worker
        for worker in workers:
            worker.kill()
        # its sentinel, not join(): the executor's own thread reaps it
        gone = wait([worker.sentinel for worker in workers], WORKER_EXIT_SECONDS)
        if len(gone) < len(workers):
            log.warning("solver worker (%s) still there after SIGKILL", self.name)
        # The executor's thread ends by closing its wake-up pipe. On Python 3.11 the exit
        # hook writes to that pipe unlocked: were the thread ending just then, the exit would
        # print a traceback (OSError: Bad file descriptor). Ended here, it is closed before.
        # (typeshed names the attribute's type wrongly: it is the thread)
        manager: threading.Thread | None = getattr(executor, "_executor_manager_thread", None)
        if manager is not None:
            manager.join(WORKER_EXIT_SECONDS)


#: The order in which a day's deals are submitted to the solver: the longest proof (4 suits)
#: first, so that on two workers the two quick ones run one after the other beside it (and
#: the quickest, 1 suit, is the first deal proven).
PROVING_ORDER: Final = (4, 1, 2)
#: How often a node that is not proving looks for the deals another node stores (seconds).
LEASE_POLL: Final = 0.5
#: The lease under which one node of all proves deals.
PROVING_LEASE: Final = "daily-deals"


class DailySchedule:
    """Finds, stores and hands out the daily deals: all three of a day, or none.

    One node of those sharing the database proves a day's deals (whoever holds the
    store's lease); the others wait for the rows it stores. Should the holder die, its
    lease goes with it and another node takes over.
    """

    def __init__(self, store: DealStore, *, secret: str, prover: Prover) -> None:
        self._store = store
        self._secret = secret
        self._prover = prover
        self._cache: dict[date, dict[int, DailyDealRecord]] = {}
        self._pending: dict[date, asyncio.Task[dict[int, DailyDealRecord]]] = {}
        #: Store calls in flight: never cancelled halfway (that would strand a connection).
        self._writes: set[asyncio.Future[Any]] = set()
        #: The solver's line of each deal, found once (the search is shared by its waiters).
        self._solutions: dict[tuple[date, int], asyncio.Task[tuple[str, ...]]] = {}

    async def deal(self, day: date, suits: int) -> DailyDealRecord:
        """The deal of ``day`` for ``suits``, waiting for the day's deals if need be."""
        return (await self._day(day))[suits]

    async def deals(self, day: date, *, wait: float | None = None) -> list[DailyDealRecord]:
        """The day's three deals; with ``wait``, :class:`DealsNotReady` if they are not all
        known within that many seconds (the proving goes on: a fresh server's first 4-suit
        deal can take minutes)."""
        try:
            # Real time, not the game's clock: the wait is for proving work, which takes
            # real time whatever day the clock shows.
            found = await asyncio.wait_for(asyncio.shield(self._task(day)), wait)
        except TimeoutError:
            raise DealsNotReady(f"the deals of {day} are still being proven") from None
        return [found[suits] for suits in SUIT_COUNTS]

    async def stored(self, day: date, suits: int) -> DailyDealRecord | None:
        """The deal of ``day`` for ``suits`` as stored, never proven here (None: none is):
        a past day's code and par."""
        cached = self._cache.get(day)
        if cached is not None:
            return cached.get(suits)
        return await self._store.get_daily_deal(day=day, suits=suits)

    async def is_daily(self, code: GameCode, day: date) -> bool:
        """Whether ``code`` is the stored daily deal of ``day``: practised or raced before
        its day is over, it would make that day's one ranked attempt a second try."""
        deal = await self.stored(day, code.suits)
        return deal is not None and deal.code == str(code)

    async def practice_code(self, code: str, day: date) -> GameCode:
        """``code`` to practise or race on ``day`` (its suit count is the code's, whatever
        else a client sends): refused when it is not a code, or is that day's daily."""
        try:
            parsed = GameCode.parse(code)
        except InvalidCodeError as error:
            refused = refusal_of(error)
            assert refused is not None  # ERROR_CODES says every bad code
            raise refused from None
        if await self.is_daily(parsed, day):
            raise Refused(
                ErrorCode.DAILY_NOT_OVER,
                "that is today's daily deal: play it as today's daily, on the board; "
                "it opens for practice when the day is over",
            )
        return parsed

    async def solution(self, day: date, suits: int) -> tuple[str, ...]:
        """The solver's line of the deal of ``day`` for ``suits``: as stored with it, or
        found once (a deal stored before lines were kept) and stored then."""
        task = self._solutions.get((day, suits))
        if task is None or (task.done() and task.exception() is not None):
            task = asyncio.create_task(self._find_solution(day, suits))
            self._solutions[(day, suits)] = task
        return await asyncio.shield(task)

    async def _find_solution(self, day: date, suits: int) -> tuple[str, ...]:
        deal = await self.deal(day, suits)
        if deal.solution is not None:
            return deal.solution
        proof = await self._prover(deal.code)
        if proof.moves:
            await self._store.set_daily_solution(day=day, suits=suits, solution=proof.moves)
        return proof.moves

    def ready(self, day: date) -> bool:
        """Whether the day's deals are all known here, without waiting."""
        return day in self._cache

    def prepare(self, day: date) -> None:
        """Start finding a day's deals in the background (at start-up, ahead of midnight)."""
        if day not in self._cache:
            self._task(day).add_done_callback(_log_failure)

    async def close(self) -> None:
        """Stop searching (at shutdown); store calls under way are let finish."""
        tasks = list(self._pending.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.gather(*self._writes, return_exceptions=True)

    def forget_before(self, day: date) -> None:
        for known in [known for known in self._cache if known < day]:
            del self._cache[known]
        for key in [key for key in self._solutions if key[0] < day]:
            del self._solutions[key]

    async def _day(self, day: date) -> dict[int, DailyDealRecord]:
        cached = self._cache.get(day)
        if cached is not None:
            return cached
        # shield: one waiter giving up must not cancel the search for the others
        return await asyncio.shield(self._task(day))

    def _task(self, day: date) -> asyncio.Future[dict[int, DailyDealRecord]]:
        cached = self._cache.get(day)
        if cached is not None:
            done: asyncio.Future[dict[int, DailyDealRecord]] = (
                asyncio.get_running_loop().create_future()
            )
            done.set_result(cached)
            return done
        task = self._pending.get(day)
        if task is None:
            task = asyncio.create_task(self._find_day(day), name=f"daily-{day}")
            self._pending[day] = task
            task.add_done_callback(lambda _: self._pending.pop(day, None))
        return task

    async def _stored(self, call: Awaitable[T]) -> T:
        """Await a store call that a cancellation of the search does not interrupt."""
        future = asyncio.ensure_future(call)
        self._writes.add(future)
        future.add_done_callback(self._writes.discard)
        return await asyncio.shield(future)

    async def _find_day(self, day: date) -> dict[int, DailyDealRecord]:
        """The day's deals from the store; proven here if this node gets the lease, else
        waited for until the node that has it stores them."""
        while True:
            found = await self._stored_deals(day)
            if len(found) == len(SUIT_COUNTS):
                break
            async with self._store.leases.hold(PROVING_LEASE) as held:
                if held:
                    found = await self._stored_deals(day)  # stored before the lease was ours
                    missing = [suits for suits in PROVING_ORDER if suits not in found]
                    log.info("daily %s: proving %s suits", day, missing)
                    proven = await asyncio.gather(*(self._prove(day, s) for s in missing))
                    found.update(zip(missing, proven, strict=True))
                    break
            await asyncio.sleep(LEASE_POLL)  # real time: another node is proving them
        self._cache[day] = found
        return found

    async def _stored_deals(self, day: date) -> dict[int, DailyDealRecord]:
        found: dict[int, DailyDealRecord] = {}
        for suits in SUIT_COUNTS:
            record = await self._stored(self._store.get_daily_deal(day=day, suits=suits))
            if record is not None:
                found[suits] = record
        return found

    async def _prove(self, day: date, suits: int) -> DailyDealRecord:
        # the logs name candidates by number, never by code: a log read before the day
        # ends must not give its deal away
        for n, code in enumerate(candidate_codes(self._secret, day, suits)):
            proof = await self._prover(code)
            if proof.winnable:
                log.info("daily %s S%d: candidate %d proven, par %s", day, suits, n, proof.par)
                return await self._stored(
                    self._store.put_daily_deal(
                        day=day, suits=suits, code=code, par=proof.par, solution=proof.moves
                    )
                )
            log.info(
                "daily %s S%d: candidate %d skipped (winnable: %s)", day, suits, n, proof.winnable
            )
        raise NoDailyDeal(f"no provable deal for {day} with {suits} suits")


def _log_failure(task: asyncio.Future[dict[int, DailyDealRecord]]) -> None:
    if not task.cancelled() and not isinstance(
        task.exception(), asyncio.CancelledError | SolverStopped | None
    ):
        log.error("finding the daily deals failed", exc_info=task.exception())
