"""The daily deals: one per UTC day and suit count, the same on every node.

Candidates come from HMAC-SHA256(server secret, day, suits, n) for n = 0, 1, 2, ...:
nobody without the secret can compute a day's deal before it starts. The first
candidate the solver proves winnable becomes the deal, with the length of the solver's
solution as its par; candidates it cannot prove (unwinnable, or out of budget) are
skipped. One node proves a day's deals (the holder of the store's lease, well before the
day starts); the others wait for what it stores, and the store keeps the first deal written
for a day (first writer wins), so every node serves the same ones. Each deal is served
as soon as it is known: a day's 1-suit daily opens while its 4-suit deal is still being
proven.
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
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from datetime import date
from multiprocessing import get_context
from multiprocessing.connection import wait
from pathlib import Path
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


def solver_build() -> str:
    """How the solver's search runs here: ``compiled`` (a C extension made by mypyc at
    install, ``setup.py``: reviews and proofs about three times quicker), ``python`` (no C
    compiler at install, or ``SIMON_PURE_PYTHON`` set), or ``stale`` (compiled from an
    older ``search.py`` than the one beside it: an editable install edited since, whose
    old code runs until ``pip install -e .`` builds it again)."""
    from server.solver import search

    built = Path(search.__file__)
    if built.suffix == ".py":
        return "python"
    source = built.with_name("search.py")
    if source.exists() and source.stat().st_mtime > built.stat().st_mtime:
        return "stale"
    return "compiled"


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

    @property
    def workers(self) -> int:
        """Searches run at once."""
        return self._workers if self._processes else 1

    @property
    def started(self) -> int:
        """Worker processes running now (0 with threads)."""
        executor = self._executor
        if executor is None or not executor._processes:
            return 0
        return sum(process.is_alive() for process in list(executor._processes.values()))

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
        # their sentinels, not join(): the executor's own thread reaps them; wait() returns
        # as soon as one is ready, so it is asked again for the others
        left = {worker.sentinel for worker in workers}
        deadline = time.monotonic() + WORKER_EXIT_SECONDS
        while left and (remaining := deadline - time.monotonic()) > 0:
            left.difference_update(wait(list(left), remaining))
        if left:
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
#: On one worker, one proof at a time: the quickest first, so the first daily opens soonest
#: (the day's last one is proven no later).
ONE_WORKER_ORDER: Final = (1, 2, 4)
#: A daily refused as being proven: ask again in this many seconds.
PROVING_RETRY: Final = 3.0


def proving_order(workers: int) -> tuple[int, ...]:
    """The order of a day's proofs for a prover running ``workers`` searches at once."""
    return ONE_WORKER_ORDER if workers <= 1 else PROVING_ORDER


#: How often a node that is not proving looks for the deals another node stores (seconds).
LEASE_POLL: Final = 0.5
#: The lease under which one node of all proves deals.
PROVING_LEASE: Final = "daily-deals"


class DailySchedule:
    """Finds, stores and hands out the daily deals, each as soon as it is known.

    One node of those sharing the database proves a day's deals (whoever holds the
    store's lease); the others wait for the rows it stores. Should the holder die, its
    lease goes with it and another node takes over. A day's deals are proven once the
    days before it are (today's before tomorrow's, which is proven ahead of midnight).
    """

    def __init__(self, store: DealStore, *, secret: str, prover: Prover) -> None:
        self._store = store
        self._secret = secret
        self._prover = prover
        self._order = proving_order(getattr(prover, "workers", len(SUIT_COUNTS)))
        #: The deals known here, by day and suit count (a day's may be some of its three).
        self._cache: dict[date, dict[int, DailyDealRecord]] = {}
        #: Who waits for a deal not known yet, by day and suit count.
        self._waiting: dict[date, dict[int, asyncio.Future[DailyDealRecord]]] = {}
        #: Called with a day and suit count when that deal becomes known here.
        self.on_ready: Callable[[date, int], None] | None = None
        self._pending: dict[date, asyncio.Task[dict[int, DailyDealRecord]]] = {}
        #: Store calls in flight: never cancelled halfway (that would strand a connection).
        self._writes: set[asyncio.Future[Any]] = set()
        #: The solver's line of each deal, found once (the search is shared by its waiters).
        self._solutions: dict[tuple[date, int], asyncio.Task[tuple[str, ...]]] = {}

    async def deal(self, day: date, suits: int, *, wait: float | None = None) -> DailyDealRecord:
        """The deal of ``day`` for ``suits``, as soon as it is known (the rest of the day's
        need not be); with ``wait``, :class:`DealsNotReady` if it is not known within that
        many seconds (0: unless it is known now)."""
        known = self._cache.get(day, {}).get(suits)
        if known is not None:
            return known
        waiter = self._waiter(day, suits)
        self._task(day)
        try:
            # Real time, not the game's clock: the wait is for proving work, which takes
            # real time whatever day the clock shows. shield: one waiter giving up leaves
            # the others theirs.
            return await asyncio.wait_for(asyncio.shield(waiter), wait)
        except TimeoutError:
            raise DealsNotReady(f"the {suits}-suit deal of {day} is still being proven") from None

    async def deals(self, day: date, *, wait: float | None = None) -> list[DailyDealRecord]:
        """The day's three deals; with ``wait``, :class:`DealsNotReady` if they are not all
        known within that many seconds (the proving goes on: a fresh server's first 4-suit
        deal can take minutes)."""
        try:
            found = await asyncio.wait_for(asyncio.shield(self._task(day)), wait)
        except TimeoutError:
            raise DealsNotReady(f"the deals of {day} are still being proven") from None
        return [found[suits] for suits in SUIT_COUNTS]

    def known(self, day: date) -> set[int]:
        """The suit counts whose deal of ``day`` is known here, without waiting."""
        return set(self._cache.get(day, ()))

    def _waiter(self, day: date, suits: int) -> asyncio.Future[DailyDealRecord]:
        waiting = self._waiting.setdefault(day, {})
        waiter = waiting.get(suits)
        if waiter is None:
            waiter = asyncio.get_running_loop().create_future()
            waiter.add_done_callback(_retrieved)
            waiting[suits] = waiter
        return waiter

    def _found(self, day: date, record: DailyDealRecord) -> None:
        """A deal now known here: kept, handed to its waiters, announced."""
        known = self._cache.setdefault(day, {})
        if record.suits in known:
            return
        known[record.suits] = record
        waiter = self._waiting.get(day, {}).pop(record.suits, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(record)
        if self.on_ready is not None:
            try:
                self.on_ready(day, record.suits)
            except Exception:
                log.exception("announcing the daily deal of %s S%d failed", day, record.suits)

    def _given_up(self, day: date, task: asyncio.Future[dict[int, DailyDealRecord]]) -> None:
        """The search for a day's deals ended without them all: its waiters are told why
        (a later ask searches again)."""
        if not task.cancelled() and task.exception() is None:
            return
        for waiter in self._waiting.pop(day, {}).values():
            if waiter.done():
                continue
            if task.cancelled():
                waiter.cancel()
            else:
                error = task.exception()
                assert error is not None
                waiter.set_exception(error)

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
        return len(self._cache.get(day, ())) == len(SUIT_COUNTS)

    def prepare(self, day: date) -> None:
        """Start finding a day's deals in the background (at start-up, ahead of midnight)."""
        if not self.ready(day):
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
        for known in [known for known in self._waiting if known < day]:
            del self._waiting[known]
        for key in [key for key in self._solutions if key[0] < day]:
            del self._solutions[key]

    def _task(self, day: date) -> asyncio.Future[dict[int, DailyDealRecord]]:
        if self.ready(day):
            done: asyncio.Future[dict[int, DailyDealRecord]] = (
                asyncio.get_running_loop().create_future()
            )
            done.set_result(self._cache[day])
            return done
        task = self._pending.get(day)
        if task is None:
            task = asyncio.create_task(self._find_day(day), name=f"daily-{day}")
            self._pending[day] = task
            task.add_done_callback(lambda _: self._pending.pop(day, None))
            task.add_done_callback(lambda done: self._given_up(day, done))
        return task

    async def _stored(self, call: Awaitable[T]) -> T:
        """Await a store call that a cancellation of the search does not interrupt."""
        future = asyncio.ensure_future(call)
        self._writes.add(future)
        future.add_done_callback(self._writes.discard)
        return await asyncio.shield(future)

    async def _find_day(self, day: date) -> dict[int, DailyDealRecord]:
        """The day's deals from the store; proven here if this node gets the lease, else
        waited for until the node that has it stores them. Each is handed out as soon as
        it is known; the days before go first (today's proofs before tomorrow's)."""
        for earlier in [task for known, task in self._pending.items() if known < day]:
            await asyncio.gather(asyncio.shield(earlier), return_exceptions=True)
        while True:
            await self._stored_deals(day)
            if self.ready(day):
                break
            async with self._store.leases.hold(PROVING_LEASE) as held:
                if held:
                    await self._stored_deals(day)  # stored before the lease was ours
                    known = self.known(day)
                    missing = [suits for suits in self._order if suits not in known]
                    log.info("daily %s: proving %s suits", day, missing)
                    # each proof to its end, whatever became of the others
                    proofs = (self._prove(day, s) for s in missing)
                    for outcome in await asyncio.gather(*proofs, return_exceptions=True):
                        if isinstance(outcome, BaseException):
                            raise outcome
                    break
            await asyncio.sleep(LEASE_POLL)  # real time: another node is proving them
        return self._cache[day]

    async def _stored_deals(self, day: date) -> None:
        """The day's deals stored (by this node or another) and not known here yet."""
        for suits in SUIT_COUNTS:
            if suits in self.known(day):
                continue
            record = await self._stored(self._store.get_daily_deal(day=day, suits=suits))
            if record is not None:
                self._found(day, record)

    async def _prove(self, day: date, suits: int) -> DailyDealRecord:
        # the logs name candidates by number, never by code: a log read before the day
        # ends must not give its deal away
        for n, code in enumerate(candidate_codes(self._secret, day, suits)):
            proof = await self._prover(code)
            if proof.winnable:
                log.info("daily %s S%d: candidate %d proven, par %s", day, suits, n, proof.par)
                record = await self._stored(
                    self._store.put_daily_deal(
                        day=day, suits=suits, code=code, par=proof.par, solution=proof.moves
                    )
                )
                self._found(day, record)  # the one stored: another node's, if it was first
                return record
            log.info(
                "daily %s S%d: candidate %d skipped (winnable: %s)", day, suits, n, proof.winnable
            )
        raise NoDailyDeal(f"no provable deal for {day} with {suits} suits")


def _retrieved(waiter: asyncio.Future[DailyDealRecord]) -> None:
    """A waiter's error is its askers' (none may be left: then it is no error to log)."""
    if not waiter.cancelled():
        waiter.exception()


def _log_failure(task: asyncio.Future[dict[int, DailyDealRecord]]) -> None:
    if not task.cancelled() and not isinstance(
        task.exception(), asyncio.CancelledError | SolverStopped | None
    ):
        log.error("finding the daily deals failed", exc_info=task.exception())
