"""A review's parts share their positions out as they go (server/play/after/segments.py): a
worker done with its part takes half of what the other has left. Whatever the order the two
workers' steps interleave in, every position is judged; and a review shared out so finds
what the review in one go finds."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import Game
from server.engine.actions import apply
from server.play.after.judging import (
    Searched,
    _known_by_deal,
    judge_part,
    judge_path,
    judge_searched,
)
from server.play.after.segments import LEAST_LEFT, MOST_SEGMENTS, Segments, Shared
from tests.play.after.test_judging import _game


@pytest.fixture
def segments() -> Iterator[Segments]:
    made = Segments()
    assert made.name() is not None
    yield made
    made.close()


def _worker(shared: Shared, first: int, last: int, judged: list[int]) -> Iterator[None]:
    """A part's worker as :func:`~server.play.after.judging.judge_part` walks: one step a
    position (the first of a segment always its own), then half of the other's, and so on."""
    segment: int | None = shared.slot
    while True:
        judged.append(first)
        claim = shared.claim(segment) if segment is not None else None
        for position in range(first + 1, last):
            yield
            if claim is not None and not claim(position):
                break
            judged.append(position)
        yield
        taken = shared.take()
        if taken is None:
            return
        segment, first, last = taken


@settings(max_examples=200, deadline=None)
@given(
    positions=st.integers(2, 120),
    cut=st.floats(0.01, 0.99),
    turns=st.lists(st.booleans(), min_size=1, max_size=400),
)
def test_every_position_is_judged_whatever_the_interleaving(
    positions: int, cut: float, turns: list[bool]
) -> None:
    holder = Segments()
    try:
        name = holder.name()
        assert name is not None
        cuts = [0, min(positions - 1, max(1, round(positions * cut))), positions]
        holder.start(cuts)
        judged: list[int] = []
        workers = []
        for slot, (first, last) in enumerate(itertools.pairwise(cuts)):
            shared = Shared.of(name, slot)
            assert shared is not None
            workers.append(_worker(shared, first, last, judged))
        running = [True, True]
        for turn in itertools.chain(turns, itertools.cycle([False, True])):
            index = int(turn)
            if not any(running):
                break
            if not running[index]:
                index = 1 - index
            running[index] = next(workers[index], StopIteration) is not StopIteration
        assert set(judged) == set(range(positions))
        # a position is judged twice at most, and only where a take met the other worker
        assert len(judged) - positions <= MOST_SEGMENTS
    finally:
        holder.close()


def test_a_worker_done_takes_the_later_half_of_what_the_other_has_left(
    segments: Segments,
) -> None:
    name = segments.name()
    segments.start([0, 40, 60])
    slow, quick = Shared.of(name, 0), Shared.of(name, 1)
    assert slow is not None and quick is not None
    at = slow.claim(0)
    assert at(5)  # the slow part judges its sixth position; 34 left after it
    assert quick.claim(1)(59)  # the quick part's last position: it is done
    assert quick.take() == (3, 23, 40)  # the quick one's next segment: the last 17
    assert [at(position) for position in (21, 22, 23)] == [True, True, False]
    mine = quick.claim(3)
    assert mine(30)  # 9 left after it when the slow one is done: it takes the last 4
    assert slow.take() == (2, 36, 40)
    assert [mine(position) for position in (35, 36)] == [True, False]
    assert quick.take() is None  # 3 left of the slow one's: too few to take


def test_too_little_left_is_not_taken(segments: Segments) -> None:
    name = segments.name()
    segments.start([0, 10, 20])
    first, second = Shared.of(name, 0), Shared.of(name, 1)
    assert first is not None and second is not None
    at = second.claim(1)
    assert at(20 - LEAST_LEFT)  # LEAST_LEFT - 1 positions after it
    assert first.take() is None
    assert at(19)
    assert first.take() is None


def test_enough_left_is_taken_half(segments: Segments) -> None:
    name = segments.name()
    segments.start([0, 10, 20])
    first, second = Shared.of(name, 0), Shared.of(name, 1)
    assert first is not None and second is not None
    assert second.claim(1)(20 - LEAST_LEFT - 1)  # LEAST_LEFT positions after it
    assert first.take() == (2, 20 - LEAST_LEFT // 2, 20)


def test_a_review_shared_out_between_two_workers_finds_what_one_finds(
    segments: Segments,
) -> None:
    code, actions = _game(29)
    whole = judge_path(code, actions, seconds=600)
    positions = len(actions) + 1
    cuts = [0, positions - 2, positions]  # the second part quick: it takes from the first
    segments.start(cuts)
    name = segments.name()
    made: list[Searched] = [{}, {}]

    def part(slot: int) -> None:
        first, last = cuts[slot], cuts[slot + 1]
        made[slot] = judge_part(code, actions, 600, (), (first, last), name, None, slot)

    _known_by_deal.clear()
    workers = [threading.Thread(target=part, args=(slot,)) for slot in (0, 1)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    game = Game.from_code(code)
    index_of = {game.position_key(): 0}
    for index, action in enumerate(actions, 1):
        apply(game, action)
        index_of.setdefault(game.position_key(), index)
    taken = {index_of[key] for key in made[1]} - {positions - 2, positions - 1}
    assert taken and max(taken) < positions - 2  # the quick one judged some of the first's
    walked = judge_searched(code, actions, 600, (), {**made[0], **made[1]})
    assert walked == whole
