"""What a client process of the soak benches (:mod:`bench.crowd`) is given and counts: its
share of the load, its tally of one interval, and the tallies of several processes merged
into one."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Any, Literal

#: Kept per kind of unexpected answer, to show what it was.
EXAMPLES = 5


#: The kinds of client a client process connects (:attr:`Share.takes`).
Takes = Literal["all", "players", "followers"]


@dataclass
class Share:
    """One client process's part of the load."""

    worker: int
    urls: list[str]  # nginx's, or the nodes' (each client takes one in turn)
    run: str  # in every name, so runs on one database never clash
    seed: int = 1
    rate: float = 1.0  # actions a second per player
    daily: float = 0.5  # share of the players on today's daily (the rest: practice)
    registrations: float = 0.0  # new accounts a second, from the first window on
    bad_rate: float = 1.0  # bad frames a second per vandal
    oversize_every: int = 20
    undo_chance: float = 0.03
    connect_at_once: int = 25
    #: Which clients this process connects: ``all`` kinds, or only ``players`` or only
    #: ``followers`` (see :meth:`Fleet.add`).
    takes: Takes = "all"
    #: Added to the process's niceness: a process of readers only, run apart, so that on a
    #: machine the nodes share with their clients the load does not crowd out the nodes
    #: and the players whose moves are timed (as clients on other machines would not).
    nice: int = 0


@dataclass
class Tally:
    """What this process saw in one interval (or outside the windows)."""

    moves: int = 0
    histogram: Counter[int] = field(default_factory=Counter)
    #: The moves among them sent within BURST seconds of a burst of digests beginning.
    burst_histogram: Counter[int] = field(default_factory=Counter)
    actions: int = 0  # undo, restart, start answered
    player_digests: int = 0
    follower_digests: int = 0
    followers: int = 0  # followers connected through the whole interval
    daily_players: int = 0  # players on the daily at the interval's end (they get digests too)
    follower_max: int = 0  # the most digests one of them got
    follower_min: int = 0  # the fewest
    min_gap: float = math.inf  # the shortest time between two digests of one follower
    digests_checked: int = 0
    registrations: int = 0
    bad_frames: int = 0
    #: Sign-ins and starts answered ``unavailable`` and sent again.
    resent_unavailable: int = 0
    expected: Counter[str] = field(default_factory=Counter)
    unexpected: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["histogram"] = {str(k): v for k, v in self.histogram.items()}
        data["burst_histogram"] = {str(k): v for k, v in self.burst_histogram.items()}
        data["expected"] = dict(self.expected)
        data["unexpected"] = dict(self.unexpected)
        data["min_gap"] = None if math.isinf(self.min_gap) else self.min_gap
        return data


class Stopped(Exception):
    """The run is stopping: leave quietly."""


class Unexpected(Exception):
    """An answer that breaks the contract (already counted)."""


#: The figures of a tally that add up across processes.
SUMMED = (
    "moves", "actions", "player_digests", "follower_digests", "followers", "daily_players",
    "digests_checked", "registrations", "bad_frames", "resent_unavailable",
)  # fmt: skip


def merged(tallies: list[dict[str, Any]]) -> dict[str, Any]:
    """The tallies of several processes (``Tally.as_json``) as one."""
    total: dict[str, Any] = Tally().as_json()
    histogram: Counter[int] = Counter()
    burst: Counter[int] = Counter()
    expected: Counter[str] = Counter()
    unexpected: Counter[str] = Counter()
    gaps = [t["min_gap"] for t in tallies if t.get("min_gap") is not None]
    with_followers = [t for t in tallies if t.get("followers")]
    for tally in tallies:
        for key in SUMMED:
            total[key] += tally[key]
        histogram.update({int(k): v for k, v in tally["histogram"].items()})
        burst.update({int(k): v for k, v in tally["burst_histogram"].items()})
        expected.update(tally["expected"])
        unexpected.update(tally["unexpected"])
        for what, examples in tally["examples"].items():
            kept = total["examples"].setdefault(what, [])
            kept.extend(examples[: EXAMPLES - len(kept)])
    total["histogram"] = dict(histogram)
    total["burst_histogram"] = dict(burst)
    total["expected"] = dict(expected)
    total["unexpected"] = dict(unexpected)
    total["min_gap"] = min(gaps, default=None)
    total["follower_max"] = max((t["follower_max"] for t in with_followers), default=0)
    total["follower_min"] = min((t["follower_min"] for t in with_followers), default=0)
    return total
