"""The daily race's costs on one node, without sockets: a digest round, a ``race`` answer
and one racer's event taken into the mirror, as the race grows.

Run from the repository root::

    python -m bench.race_rounds                        # 2,500, 5,000 and 10,000 racers
    python -m bench.race_rounds --sizes 1000 --rounds 3
    python -m bench.race_rounds --json rounds.json

For each size R: one node's :class:`~server.play.daily.standings.DailyStandings` (the in-
process bus, a manual clock) mirrors a daily race of R racers and has R followers, half of
them racing (a node of the R + R run of ``bench.race_digest``: R/2 players and R/2 followers
of its own). Every follower's push only counts the frames (no socket: what sending costs is
measured end to end by ``bench.race_digest``). Figures, each the median of ``--rounds``:

- a digest round (one racer moved, then the round every follower gets a frame from): its
  whole CPU time, and the longest stretch of it that held the event loop in one turn (the
  clock moves a millisecond at a time, a turn of the loop between steps, until the last
  follower has its frame; CPU, not wall time, so that other processes do not count);
- ``standings()`` (the answer to ``race``) for a racer half-way down and for a follower
  who does not race;
- one racer's event taken into the mirror (``DailyStandings.publish`` on the in-process bus,
  which delivers it at once).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from server.bus import InProcessBus  # noqa: E402
from server.play.clock import ManualClock  # noqa: E402
from server.play.daily.standings import DailyStandings  # noqa: E402
from server.protocol import RaceEntry  # noqa: E402

DAY = date(2026, 3, 1)
SUITS = 1


def racer(n: int, moves: int) -> RaceEntry:
    # scores spread so the ranking is not one long tie broken by name
    return RaceEntry(
        player=f"r{n:05}", moves=moves, score=500 - (n * 7919) % 400, removed=0,
        finished=False, won=False,
    )  # fmt: skip


class Tally:
    """Frames pushed to every follower, and an event set when ``goal`` of them are in."""

    def __init__(self) -> None:
        self.frames = 0
        self.bytes = 0
        self.goal = 0
        self.reached = asyncio.Event()

    def expect(self, more: int) -> None:
        self.goal = self.frames + more
        self.reached.clear()


class Counting:
    """A follower's push: counts its frames, and every follower's in the tally."""

    __slots__ = ("frames", "tally")

    def __init__(self, tally: Tally) -> None:
        self.tally = tally
        self.frames = 0

    def __call__(self, frame: str) -> None:
        self.frames += 1
        tally = self.tally
        tally.frames += 1
        tally.bytes += len(frame)
        if tally.frames == tally.goal:
            tally.reached.set()


#: The clock's step while a round is under way: shorter than any gap between its slices.
STEP = 0.001


async def until_told(clock: ManualClock, tally: Tally) -> float:
    """Move the clock a step at a time, with a turn of the loop between steps, until every
    follower has its frame; the most CPU time one step or turn took (seconds)."""
    longest = 0.0
    while not tally.reached.is_set():
        started = time.process_time()
        await asyncio.sleep(0)  # whatever a slice left to the loop's next turn
        clock.advance(seconds=STEP)
        longest = max(longest, time.process_time() - started)
    return longest


async def one_round(
    rooms: DailyStandings, clock: ManualClock, pushes: list[Counting], n: int
) -> dict[str, float]:
    """A racer moves, the digest falls due: the round's CPU time and its longest loop turn."""
    await rooms.publish(DAY, SUITS, "moved", racer(n, moves=n + 1))
    tally = pushes[0].tally
    tally.expect(len(pushes))
    before = [push.frames for push in pushes]
    cpu = time.process_time()
    clock.advance(seconds=1)  # the round starts here, in this task's turn
    longest = max(time.process_time() - cpu, await until_told(clock, tally))
    cpu = time.process_time() - cpu
    assert all(push.frames == n + 1 for push, n in zip(pushes, before, strict=True))
    clock.advance(seconds=1)  # the next round may start at once
    return {"round_ms": cpu * 1000, "longest_turn_ms": longest * 1000}


async def measure(size: int, rounds: int) -> dict[str, Any]:
    clock = ManualClock(datetime(2026, 3, 1, 12, tzinfo=UTC))
    bus = InProcessBus()
    rooms = DailyStandings(bus, clock)
    tally = Tally()
    pushes = [Counting(tally) for _ in range(size)]
    # half the followers race (players follow their own race), half only follow
    for n, push in enumerate(pushes):
        name = f"r{n * 2:05}" if n < size // 2 else f"f{n:05}"
        await rooms.follow(DAY, SUITS, push, name)
    events = []
    for n in range(size):
        started = time.perf_counter()
        await rooms.publish(DAY, SUITS, "joined", racer(n, moves=0))
        events.append(time.perf_counter() - started)
    tally.expect(size)
    clock.advance(seconds=1)
    await until_told(clock, tally)
    clock.advance(seconds=1)
    measured = [await one_round(rooms, clock, pushes, k) for k in range(rounds)]
    middle = f"r{size // 2:05}"
    racing: list[float] = []
    watching: list[float] = []
    for _ in range(rounds):
        for who, into in ((middle, racing), (f"f{size - 1:05}", watching)):
            started = time.perf_counter()
            rows, _ = await rooms.standings(DAY, SUITS, who)
            into.append(time.perf_counter() - started)
            assert rows
    moved = []
    for k in range(rounds * 20):
        started = time.perf_counter()
        await rooms.publish(DAY, SUITS, "moved", racer(k * 97 % size, moves=k + 2))
        moved.append(time.perf_counter() - started)
    rooms.close()
    return {
        "racers": size,
        "followers": size,
        "round_ms": statistics.median(r["round_ms"] for r in measured),
        "longest_turn_ms": statistics.median(r["longest_turn_ms"] for r in measured),
        "frame_bytes_mean": tally.bytes / tally.frames,
        "standings_racer_ms": statistics.median(racing) * 1000,
        "standings_follower_ms": statistics.median(watching) * 1000,
        "event_us": statistics.median(moved) * 1e6,
        "join_event_us": statistics.median(events) * 1e6,
    }


async def main(sizes: list[int], rounds: int) -> list[dict[str, Any]]:
    results = []
    for size in sizes:
        figures = await measure(size, rounds)
        results.append(figures)
        print(
            f"{size:>6,} racers and followers: a round {figures['round_ms']:6.1f} ms CPU, "
            f"longest turn {figures['longest_turn_ms']:6.2f} ms; standings "
            f"{figures['standings_racer_ms']:.3f} ms (racer) "
            f"{figures['standings_follower_ms']:.3f} ms (follower); an event "
            f"{figures['event_us']:.1f} us",
            flush=True,
        )
    return results


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--sizes 20 --rounds 1"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="2500,5000,10000")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args()
    found = asyncio.run(main([int(s) for s in args.sizes.split(",")], args.rounds))
    if args.json:
        args.json.write_text(json.dumps(found, indent=2))
