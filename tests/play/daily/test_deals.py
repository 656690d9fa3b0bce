"""The daily schedule: the same deals from the same secret, proven once by one node of
all, stored, and each handed out as soon as it is known; a day's proofs after the day's
before."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from datetime import date, timedelta
from multiprocessing.connection import wait

import pytest

from server.play.daily.deals import DailySchedule, Proof, SolverProver, candidate_codes
from server.play.errors import DealsNotReady
from tests.support.fakes import FakeStore

DAY = date(2026, 3, 1)


async def test_the_first_winnable_candidate_is_the_deal_and_is_stored_once() -> None:
    store = FakeStore()
    asked: list[str] = []
    unwinnable = next(candidate_codes("s", DAY, 2))

    async def prover(code: str) -> Proof:
        asked.append(code)
        return Proof(code != unwinnable, 33)

    schedule = DailySchedule(store, secret="s", prover=prover)
    deal = await schedule.deal(DAY, 2)
    assert deal.code == list(candidate_codes("s", DAY, 2))[1] and deal.par == 33
    assert sorted(asked) == sorted(
        [
            *list(candidate_codes("s", DAY, 2))[:2],
            next(candidate_codes("s", DAY, 1)),
            next(candidate_codes("s", DAY, 4)),
        ]
    )
    again = DailySchedule(store, secret="s", prover=prover)
    assert (await again.deal(DAY, 2)).code == deal.code  # from the store: no new proof
    assert len(asked) == 4
    await schedule.close()
    await again.close()


async def test_two_nodes_on_one_store_prove_each_candidate_once() -> None:
    store = FakeStore()
    release = asyncio.Event()
    proofs: Counter[str] = Counter()

    async def slow_prover(code: str) -> Proof:
        proofs[code] += 1
        await release.wait()
        return Proof(True, 10)

    node_a = DailySchedule(store, secret="s", prover=slow_prover)
    node_b = DailySchedule(store, secret="s", prover=slow_prover)
    node_a.prepare(DAY)
    node_b.prepare(DAY)
    with pytest.raises(DealsNotReady):  # never a part of the day's deals
        await node_b.deals(DAY, wait=0.05)
    release.set()
    from_a, from_b = await asyncio.gather(node_a.deals(DAY), node_b.deals(DAY, wait=10))
    assert [deal.code for deal in from_a] == [deal.code for deal in from_b]
    assert [deal.suits for deal in from_a] == [1, 2, 4]
    assert sorted(proofs.values()) == [1, 1, 1]  # one node proved, the other waited
    await node_a.close()
    await node_b.close()


async def test_another_secret_deals_other_codes() -> None:
    assert list(candidate_codes("a", DAY, 4))[:3] != list(candidate_codes("b", DAY, 4))[:3]
    assert list(candidate_codes("a", DAY, 4))[:3] == list(candidate_codes("a", DAY, 4))[:3]


async def test_the_three_suit_counts_are_proven_side_by_side_the_longest_first() -> None:
    """All three proofs are asked at once (the prover's workers run them side by side),
    the 4-suit one, the longest, first; each deal is stored as soon as it is proven."""
    store = FakeStore()
    asked: list[str] = []
    release = asyncio.Event()

    async def prover(code: str) -> Proof:
        asked.append(code)
        await release.wait()
        return Proof(True, 20)

    schedule = DailySchedule(store, secret="s", prover=prover)
    schedule.prepare(DAY)
    for _ in range(100):
        if len(asked) == 3:
            break
        await asyncio.sleep(0)
    assert asked == [next(candidate_codes("s", DAY, suits)) for suits in (4, 1, 2)]
    release.set()
    assert [deal.suits for deal in await schedule.deals(DAY, wait=10)] == [1, 2, 4]
    await schedule.close()


async def spin(until: object, turns: int = 200) -> None:
    """Let the loop run until ``until()`` holds (or ``turns`` passes of it)."""
    for _ in range(turns):
        if until():  # type: ignore[operator]
            return
        await asyncio.sleep(0)


async def test_each_deal_is_handed_out_as_soon_as_it_is_proven() -> None:
    """The 4-suit proof held: the 1- and 2-suit deals are handed out (and announced, each
    once), the 4-suit one is not ready; then it is."""
    store = FakeStore()
    four = asyncio.Event()
    announced: list[tuple[date, int]] = []

    async def prover(code: str) -> Proof:
        if code.startswith("SS1-S4-"):
            await four.wait()
        return Proof(True, 20)

    schedule = DailySchedule(store, secret="s", prover=prover)
    schedule.on_ready = lambda day, suits: announced.append((day, suits))
    assert (await schedule.deal(DAY, 1, wait=10)).suits == 1
    assert (await schedule.deal(DAY, 2, wait=10)).suits == 2
    with pytest.raises(DealsNotReady):
        await schedule.deal(DAY, 4, wait=0.05)
    with pytest.raises(DealsNotReady):
        await schedule.deals(DAY, wait=0.05)
    assert schedule.known(DAY) == {1, 2} and not schedule.ready(DAY)
    four.set()
    assert (await schedule.deal(DAY, 4, wait=10)).suits == 4
    assert schedule.ready(DAY)
    assert sorted(announced) == [(DAY, 1), (DAY, 2), (DAY, 4)]
    again = DailySchedule(store, secret="s", prover=prover)  # another node: from the store
    assert (await again.deal(DAY, 4, wait=10)).code == (await schedule.deal(DAY, 4)).code
    await schedule.close()
    await again.close()


async def test_today_is_proven_before_tomorrow() -> None:
    """Tomorrow's deals, prepared ahead while today's are still being proven, wait for
    today's: they would take the workers today's proofs need."""
    store = FakeStore()
    asked: list[str] = []
    release = asyncio.Event()
    tomorrow = DAY + timedelta(days=1)

    async def prover(code: str) -> Proof:
        asked.append(code)
        await release.wait()
        return Proof(True, 20)

    schedule = DailySchedule(store, secret="s", prover=prover)
    schedule.prepare(tomorrow)  # asked first, even
    schedule.prepare(DAY)
    await spin(lambda: len(asked) >= 3)
    await spin(lambda: len(asked) > 3, turns=50)
    assert asked == [next(candidate_codes("s", DAY, suits)) for suits in (4, 1, 2)]
    release.set()
    await schedule.deals(tomorrow, wait=10)
    assert asked[3:] == [next(candidate_codes("s", tomorrow, suits)) for suits in (4, 1, 2)]
    await schedule.close()


async def test_one_worker_proves_the_quickest_first() -> None:
    """A prover of one worker runs one proof at a time: the 1-suit deal first, so the first
    daily opens soonest."""
    asked: list[str] = []

    class OneWorker:
        workers = 1

        async def __call__(self, code: str) -> Proof:
            asked.append(code)
            return Proof(True, 20)

    schedule = DailySchedule(FakeStore(), secret="s", prover=OneWorker())
    await schedule.deals(DAY, wait=10)
    assert asked == [next(candidate_codes("s", DAY, suits)) for suits in (1, 2, 4)]
    await schedule.close()


async def test_a_stop_kills_every_solver_worker_and_waits_for_each(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each worker is waited for, not only the first to go (wait() returns at the first)."""
    prover = SolverProver(5, workers=2)
    # two tasks at once: the pool spawns both its workers
    await asyncio.gather(prover.run(time.sleep, 0.3), prover.run(time.sleep, 0.3))
    workers = list(prover._executor._processes.values())  # type: ignore[union-attr]
    assert len(workers) == 2
    with caplog.at_level(logging.WARNING, logger="server.play.daily.deals"):
        prover.close()
    # every one ended when close() returns: its sentinel ready (its reaping is the pool's)
    sentinels = [worker.sentinel for worker in workers]
    assert sorted(wait(sentinels, 0)) == sorted(sentinels)  # type: ignore[type-var]
    assert "still there" not in caplog.text
