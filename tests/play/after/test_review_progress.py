"""The plumbing of a review's progress: the worker's count of positions judged, written into
shared memory (from another process too) and read by the event loop, and the estimate of
the seconds left."""

from __future__ import annotations

import asyncio
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import get_context

import pytest

from server.engine import Game
from server.play.after.judging import judge_path, judge_path_reporting
from server.play.after.progress import (
    _MOST_ATTACHED,
    SLOTS,
    Pace,
    ProgressMeter,
    Reading,
    follow,
    reporter,
)
from server.solver import Verdict, solve

CODE = "SS1-S1-AAAAABD"


def actions_of(code: str) -> list[str]:
    found = solve(Game.from_code(code), shorten=False)
    assert found.verdict is Verdict.WINNABLE
    return [move.text() for move in found.moves]


def test_judge_path_counts_each_position_as_judged_and_answers_the_same() -> None:
    actions = actions_of(CODE)
    counts: list[int] = []
    told = judge_path(CODE, actions, seconds=0.0, progress=counts.append)
    assert told == judge_path(CODE, actions, seconds=0.0)
    assert counts == list(range(1, len(actions) + 2))  # the deal, then each action


def test_a_worker_process_writes_the_count_the_event_loop_reads() -> None:
    actions = actions_of(CODE)
    meter = ProgressMeter()
    try:
        meter.reset()
        assert meter.read().judged == 0
        with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
            work = pool.submit(judge_path_reporting, CODE, actions, 0.0, (), meter.name())
            judged = work.result(timeout=120)
        assert judged == judge_path(CODE, actions, seconds=0.0)
        reading = meter.read()
        assert reading.judged == len(actions) + 1
        assert 0 <= reading.cpu_seconds < 60
        meter.reset()
        assert meter.read() == Reading(0, 0.0)
    finally:
        meter.close()


async def test_follow_tells_each_new_count_and_nothing_else() -> None:
    meter = ProgressMeter()
    try:
        meter.reset()
        report = reporter(meter.name())
        assert report is not None
        heard: list[int] = []
        watching = asyncio.create_task(follow(meter, lambda done: heard.append(done.judged), 0.01))
        await asyncio.sleep(0.05)  # nothing judged: nothing told
        report(1)
        await asyncio.sleep(0.05)
        report(1)  # the same count again: not told again
        report(5)
        await asyncio.sleep(0.05)
        watching.cancel()
        assert heard == [1, 5]
    finally:
        meter.close()


def test_without_a_meter_a_review_is_judged_untold() -> None:
    assert reporter(None) is None
    assert reporter("simon-no-such-meter") is None  # gone: the server is stopping
    actions = actions_of(CODE)
    assert judge_path_reporting(CODE, actions, 0.0, (), None) == judge_path(
        CODE, actions, seconds=0.0
    )


def test_the_estimate_from_recent_reviews_then_the_reviews_own_pace_within_its_budget() -> None:
    pace = Pace(recent=2)
    start = Reading(0, 0.0)
    assert pace.estimate(positions=40, done=start, elapsed=0.0, budget=20) is None  # no pace
    pace.add(3.0, 10)
    pace.add(9.0, 50)  # 12 s for 60 positions: 0.2 s a position
    assert pace.per_position() == pytest.approx(0.2)
    assert pace.estimate(positions=40, done=start, elapsed=0.0, budget=20) == 8.0
    # never past what is left of the CPU budget: the rest is unknown at once
    assert pace.estimate(positions=400, done=start, elapsed=0.0, budget=20) == 20.0
    # under way for 2 s with 4 judged: its own pace, 0.5 s a position
    mid = Reading(4, 1.5)
    assert pace.estimate(positions=40, done=mid, elapsed=2.0, budget=30) == 18.0
    assert pace.estimate(positions=40, done=mid, elapsed=2.0, budget=10) == 8.5
    pace.add(1.0, 0)  # a review of nothing teaches nothing
    pace.add(1.0, 10)  # the oldest of the two recent goes
    assert pace.per_position() == pytest.approx(10 / 60)


def test_each_part_writes_its_own_slot_and_a_report_outlives_the_cache() -> None:
    """A review's parts report side by side (in threads when the worker is a thread): each
    slot is its own, the meter reads their sum, and a report keeps writing when later meters
    push its memory out of the process's cache."""
    meters = [ProgressMeter() for _ in range(_MOST_ATTACHED + 2)]
    try:
        names = [meter.name() for meter in meters]
        assert None not in names
        with ThreadPoolExecutor(SLOTS) as pool:
            reports = list(pool.map(lambda slot: reporter(names[0], slot), range(SLOTS)))
        for slot, report in enumerate(reports):
            assert report is not None
            report(slot + 1)
        assert meters[0].read().judged == sum(range(1, SLOTS + 1))
        for name in names[1:]:  # each attached after: the first leaves the cache
            assert reporter(name) is not None
        assert reports[0] is not None
        reports[0](20)
        assert meters[0].read().judged == 20 + sum(range(2, SLOTS + 1))
    finally:
        for meter in meters:
            meter.close()
