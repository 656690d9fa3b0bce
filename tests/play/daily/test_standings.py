"""A node's daily races without sessions: the mirror's standings as racers' events come in,
and the digest rounds (one shared frame of the leaders, slices of followers spread over
the round)."""

from __future__ import annotations

import asyncio
import itertools
import json
import random
from collections.abc import AsyncIterator, Sequence
from datetime import date
from typing import Any

import pytest

from server.bus import BusUnavailable, InProcessBus, StandingUpdate
from server.play.clock import ManualClock
from server.play.daily import standings as race
from server.play.daily.standings import (
    AROUND_ROWS,
    DIGEST_SLICE,
    DIGEST_SPREAD,
    EVENTS_PER_BATCH,
    TOP_ROWS,
    WITHDRAWN,
    DailyStandings,
)
from server.protocol import RaceDigest, RaceEntry

DAY = date(2026, 3, 1)


@pytest.fixture
def bus() -> InProcessBus:
    return InProcessBus()


@pytest.fixture
async def rooms(bus: InProcessBus, clock: ManualClock) -> AsyncIterator[DailyStandings]:
    rooms = DailyStandings(bus, clock)
    yield rooms
    rooms.close()


class Follower:
    """A follower's push: the frames it was given, as they came."""

    def __init__(self) -> None:
        self.frames: list[str] = []

    def __call__(self, frame: str) -> None:
        self.frames.append(frame)

    def digests(self) -> list[dict[str, Any]]:
        return [json.loads(frame) for frame in self.frames]


def entry(player: str, score: int, moves: int = 1, **more: Any) -> RaceEntry:
    return RaceEntry(
        player=player,
        moves=moves,
        score=score,
        removed=0,
        **{"finished": False, "won": False, **more},
    )


async def race_of(rooms: DailyStandings, racers: int) -> None:
    """``racers`` in the race, r00 leading (the higher score), each a row below the last."""
    for n in range(racers):
        await rooms.publish(DAY, 1, "joined", entry(f"r{n:02}", score=500 - n))


def old_standings(
    entries: list[RaceEntry], player: str | None
) -> tuple[list[RaceEntry], tuple[int, int, int]]:
    """The standings as the node answered them before it kept its mirror in order: every
    entry sorted and ranked, then the leaders and the rows around ``player``'s own."""
    ranked = [
        e.model_copy(update={"rank": rank})
        for rank, e in enumerate(sorted(entries, key=RaceEntry.standing), 1)
    ]
    own = next((i for i, e in enumerate(ranked) if e.player == player), None)
    shown = list(range(min(TOP_ROWS, len(ranked))))
    if own is not None and own + AROUND_ROWS >= TOP_ROWS:
        shown.extend(
            range(max(TOP_ROWS, own - AROUND_ROWS), min(len(ranked), own + AROUND_ROWS + 1))
        )
    finished = sum(e.finished for e in ranked)
    return [ranked[i] for i in shown], (len(ranked), len(ranked) - finished, finished)


async def test_standings_follow_every_change_as_sorting_the_whole_race_would(
    bus: InProcessBus, rooms: DailyStandings, clock: ManualClock
) -> None:
    rng = random.Random(12)
    await rooms.follow(DAY, 1, Follower(), "watcher")
    latest: dict[str, RaceEntry] = {}
    names = [f"p{n:02}" for n in range(40)]
    for step in range(400):
        name = rng.choice(names)
        finished = rng.random() < 0.1
        if name in latest and latest[name].finished and rng.random() < 0.5:
            await rooms.publish(DAY, 1, "withdrawn", latest.pop(name))  # held for review
        else:
            latest[name] = entry(
                name, score=rng.randrange(450, 500), moves=rng.randrange(1, 9),
                finished=finished, won=finished and rng.random() < 0.5,
                resigned=finished and rng.random() < 0.2,
            )  # fmt: skip
            await rooms.publish(DAY, 1, "finished" if finished else "moved", latest[name])
        if step % 10 == 0:
            for player in (rng.choice(names), "watcher", None):
                rows, counts = await rooms.standings(DAY, 1, player)
                expected_rows, expected_counts = old_standings(list(latest.values()), player)
                assert rows == expected_rows
                assert (counts.total, counts.playing, counts.finished) == expected_counts
    # a node that does not follow the race answers from the bus's rows, the same way
    elsewhere = DailyStandings(bus, clock)
    for player in names[:5]:
        assert await elsewhere.standings(DAY, 1, player) == await rooms.standings(DAY, 1, player)


async def test_a_change_shows_in_the_next_standings_at_once(rooms: DailyStandings) -> None:
    await rooms.follow(DAY, 1, Follower(), "watcher")
    await race_of(rooms, 20)
    rows, _ = await rooms.standings(DAY, 1, "r19")
    assert rows[-1].player == "r19" and rows[-1].rank == 20
    await rooms.publish(DAY, 1, "moved", entry("r19", score=900))  # last to first
    rows, _ = await rooms.standings(DAY, 1, "r19")
    assert [(r.player, r.rank) for r in rows[:2]] == [("r19", 1), ("r00", 2)]
    assert len(rows) == TOP_ROWS
    finished = entry("r00", score=499, finished=True, won=True)
    await rooms.publish(DAY, 1, "finished", finished)
    rows, counts = await rooms.standings(DAY, 1)
    assert rows[0].player == "r00" and (counts.total, counts.finished) == (20, 1)
    await rooms.publish(DAY, 1, "withdrawn", finished)
    rows, counts = await rooms.standings(DAY, 1)
    assert rows[0].player == "r19" and (counts.total, counts.finished) == (19, 0)


async def test_followers_who_see_only_the_leaders_get_one_shared_frame(
    rooms: DailyStandings, clock: ManualClock
) -> None:
    watchers = [Follower() for _ in range(3)]
    for n, watcher in enumerate(watchers):
        await rooms.follow(DAY, 1, watcher, f"w{n}")  # not racing
    leader, near, edge, far = Follower(), Follower(), Follower(), Follower()
    await rooms.follow(DAY, 1, leader, "r00")
    await rooms.follow(DAY, 1, near, f"r{TOP_ROWS - AROUND_ROWS - 1:02}")  # rows end at the top
    await rooms.follow(DAY, 1, edge, f"r{TOP_ROWS - AROUND_ROWS:02}")  # one row past them
    await rooms.follow(DAY, 1, far, "r25")
    await race_of(rooms, 30)
    clock.advance(seconds=1)
    (shared,) = watchers[0].frames
    for follower in (*watchers[1:], leader, near):
        (frame,) = follower.frames
        assert frame is shared  # made once, the very same object
    digest = RaceDigest.model_validate_json(shared)
    assert [row.rank for row in digest.players] == list(range(1, TOP_ROWS + 1))
    assert (digest.total, digest.playing, digest.finished) == (30, 30, 0)
    (beyond,) = edge.digests()
    assert [row["rank"] for row in beyond["players"]] == list(range(1, TOP_ROWS + 2))
    (own,) = far.frames
    assert own is not shared
    ranks = [row["rank"] for row in json.loads(own)["players"]]
    assert ranks == [*range(1, TOP_ROWS + 1), *range(26 - AROUND_ROWS, 26 + AROUND_ROWS + 1)]
    rows, _ = await rooms.standings(DAY, 1, "r25")
    assert RaceDigest.model_validate_json(own).players == rows  # the reply to race agrees


def told(followers: list[Follower]) -> list[int]:
    return [len(follower.frames) for follower in followers]


async def test_a_round_over_many_followers_is_told_in_slices_spread_over_the_round(
    rooms: DailyStandings, clock: ManualClock
) -> None:
    followers = [Follower() for _ in range(2 * DIGEST_SLICE + 7)]
    for n, follower in enumerate(followers):
        await rooms.follow(DAY, 1, follower, f"f{n:03}")
    await race_of(rooms, 12)
    gap = DIGEST_SPREAD / 3  # three slices
    clock.advance(seconds=1)
    assert told(followers) == [1] * DIGEST_SLICE + [0] * (DIGEST_SLICE + 7)  # at once
    gone = followers[-1]
    await rooms.unfollow(DAY, 1, gone)  # leaves before its slice
    clock.advance(seconds=gap * 0.5)
    assert sum(told(followers)) == DIGEST_SLICE
    clock.advance(seconds=gap * 0.6)
    assert told(followers) == [1] * 2 * DIGEST_SLICE + [0] * 7
    clock.advance(seconds=gap)
    assert told(followers[:-1]) == [1] * (len(followers) - 1) and gone.frames == []
    assert len({id(follower.frames[0]) for follower in followers[:-1]}) == 1  # one frame


async def test_a_change_during_a_round_goes_into_later_slices_and_the_next_round(
    rooms: DailyStandings, clock: ManualClock
) -> None:
    followers = [Follower() for _ in range(DIGEST_SLICE + 1)]
    for n, follower in enumerate(followers):
        await rooms.follow(DAY, 1, follower, f"f{n:03}")
    await race_of(rooms, 12)
    clock.advance(seconds=1)  # the round begins
    first, last = followers[0], followers[-1]
    assert len(first.frames) == 1 and last.frames == []
    await rooms.publish(DAY, 1, "moved", entry("r11", score=900, moves=7))
    clock.advance(seconds=DIGEST_SPREAD * 0.55)  # the second and last slice
    (before,) = first.digests()
    (after,) = last.digests()
    assert before["players"][0]["player"] == "r00"  # told before the change
    assert after["players"][0] == {**before["players"][0], "player": "r11", "score": 900,
                                   "moves": 7}  # fmt: skip
    # the next round comes a second after this one ended, not after it began: no
    # follower gets two digests within a second, wherever its slice fell
    clock.advance(seconds=1 - DIGEST_SPREAD * 0.25)
    assert told(followers) == [1] * len(followers)
    clock.advance(seconds=DIGEST_SPREAD * 0.3)
    assert len(first.frames) == 2 and json.loads(first.frames[1])["players"][0]["player"] == "r11"
    clock.advance(seconds=DIGEST_SPREAD)
    assert told(followers) == [2] * len(followers)
    clock.advance(seconds=5)  # nothing changed since: nothing sent
    assert told(followers) == [2] * len(followers)


async def test_a_busy_race_tells_every_follower_at_one_steady_rate_whatever_its_slice(
    rooms: DailyStandings, clock: ManualClock
) -> None:
    followers = [Follower() for _ in range(3 * DIGEST_SLICE)]
    for n, follower in enumerate(followers):
        await rooms.follow(DAY, 1, follower, f"f{n:03}")
    await race_of(rooms, 12)
    told_at: dict[int, list[float]] = {0: [], 1: [], 2: []}  # by slice
    for step in range(300):  # 6 s, a move every 0.02 s
        await rooms.publish(DAY, 1, "moved", entry("r05", score=600 + step, moves=step))
        counts = [len(followers[k * DIGEST_SLICE].frames) for k in told_at]
        clock.advance(seconds=0.02)
        for k, count in zip(told_at, counts, strict=True):
            if len(followers[k * DIGEST_SLICE].frames) > count:
                told_at[k].append(clock.monotonic())
    # three slices: the last one told two thirds into the spread, and the next round a
    # second after it
    period = 1 + DIGEST_SPREAD * 2 / 3
    for times in told_at.values():
        gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
        assert len(times) >= 4
        assert all(gap >= 1 for gap in gaps), gaps  # never two within a second
        assert all(abs(gap - period) < 0.07 for gap in gaps), gaps  # steps of 0.02 s
    assert told(followers) == [len(told_at[0])] * len(followers)


async def test_closing_mid_round_tells_no_one_more(
    rooms: DailyStandings, clock: ManualClock
) -> None:
    followers = [Follower() for _ in range(DIGEST_SLICE + 1)]
    for n, follower in enumerate(followers):
        await rooms.follow(DAY, 1, follower, f"f{n:03}")
    await race_of(rooms, 3)
    clock.advance(seconds=1)
    rooms.close()
    clock.advance(seconds=5)
    assert sum(told(followers)) == DIGEST_SLICE


async def test_a_push_that_fails_leaves_the_others_told_and_the_rounds_going(
    rooms: DailyStandings, clock: ManualClock, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(frame: str) -> None:
        raise RuntimeError("a bug in a push")

    before, after = Follower(), Follower()
    await rooms.follow(DAY, 1, before, "a")
    await rooms.follow(DAY, 1, broken, "b")
    await rooms.follow(DAY, 1, after, "c")
    await race_of(rooms, 3)
    clock.advance(seconds=1)
    assert (len(before.frames), len(after.frames)) == (1, 1)
    assert "a race digest was not pushed" in caplog.text
    await rooms.publish(DAY, 1, "moved", entry("r02", score=900))
    clock.advance(seconds=1)
    assert (len(before.frames), len(after.frames)) == (2, 2)


class BatchingBus(InProcessBus):
    """The in-process bus, keeping each batch it was given (or failing them all)."""

    def __init__(self, *, failing: bool = False) -> None:
        super().__init__()
        self.batches: list[list[StandingUpdate]] = []
        self.failing = failing

    async def publish_standings(self, updates: Sequence[StandingUpdate]) -> None:
        self.batches.append(list(updates))
        if self.failing:
            raise BusUnavailable("Redis is down")
        await super().publish_standings(updates)


async def test_events_that_wait_together_go_to_the_bus_in_one_batch_in_order(
    clock: ManualClock,
) -> None:
    bus = BatchingBus()
    rooms = DailyStandings(bus, clock)
    racers = [entry(f"r{n:03}", score=n) for n in range(EVENTS_PER_BATCH + 5)]
    for racer in racers:  # announced in one go: the sender runs once they all wait
        rooms.announce(DAY, 1, "joined", racer)
    rooms.announce(DAY, 1, WITHDRAWN, racers[0])
    await rooms.flush()
    assert [len(batch) for batch in bus.batches] == [EVENTS_PER_BATCH, 6]
    sent = [update for batch in bus.batches for update in batch]
    assert [update.player for update in sent] == [r.player for r in racers] + ["r000"]
    assert sent[-1].entry is None and '"event":"left"' in sent[-1].event
    stored = {
        RaceEntry.model_validate_json(raw).player for raw in await bus.standings_entries(DAY, 1)
    }
    assert stored == {r.player for r in racers[1:]}
    rooms.close()


def gathering(
    clock: ManualClock, monkeypatch: pytest.MonkeyPatch, seconds: float
) -> tuple[BatchingBus, DailyStandings]:
    """Rooms whose sender gathers moves for ``seconds``, and the bus that keeps its batches."""
    monkeypatch.setattr(race, "EVENTS_GATHER", seconds)
    bus = BatchingBus()
    return bus, DailyStandings(bus, clock)


async def turns(count: int = 5) -> None:
    """Let the event loop run ``count`` turns: what is due without time passing happens."""
    for _ in range(count):
        await asyncio.sleep(0)


def players_in(bus: BatchingBus) -> list[list[str]]:
    return [[update.player for update in batch] for batch in bus.batches]


async def test_events_announced_within_the_gathering_go_in_one_batch(
    clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    bus, rooms = gathering(clock, monkeypatch, 1.0)
    for n in range(5):  # one a turn of the loop, as moves come
        rooms.announce(DAY, 1, "moved", entry(f"r{n}", score=n))
        await asyncio.sleep(0)
    clock.advance(seconds=0.9)
    await turns()
    assert bus.batches == []  # still gathering
    clock.advance(seconds=0.1)
    await turns()
    assert players_in(bus) == [[f"r{n}" for n in range(5)]]
    rooms.close()


async def test_flush_sends_what_waits_without_waiting_out_the_gathering(
    clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    bus, rooms = gathering(clock, monkeypatch, 3600.0)
    for score in (1, 2):  # each time: gathering, until flushed
        rooms.announce(DAY, 1, "moved", entry("ann", score=score))
        await turns()
        assert len(bus.batches) == score - 1
        await asyncio.wait_for(rooms.flush(), 5)
        assert players_in(bus) == [["ann"]] * score
    rooms.close()


async def test_a_join_or_an_end_goes_at_once_with_the_moves_that_wait(
    clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    bus, rooms = gathering(clock, monkeypatch, 3600.0)
    rooms.announce(DAY, 1, "moved", entry("ann", score=1))
    rooms.announce(DAY, 1, "removed", entry("bo", score=2))
    await turns()
    assert bus.batches == []  # moves gather
    rooms.announce(DAY, 1, "joined", entry("cy", score=0))
    rooms.announce(DAY, 1, "finished", entry("di", score=5))
    await turns(3)
    assert players_in(bus) == [["ann", "bo", "cy", "di"]]
    rooms.close()


async def test_a_batch_the_bus_refuses_is_counted_dropped_whole(clock: ManualClock) -> None:
    bus = BatchingBus(failing=True)
    rooms = DailyStandings(bus, clock)
    for n in range(7):
        rooms.announce(DAY, 1, "moved", entry(f"r{n}", score=n))
    await rooms.flush()
    assert [len(batch) for batch in bus.batches] == [7]
    assert rooms.dropped == 7
    rooms.close()
