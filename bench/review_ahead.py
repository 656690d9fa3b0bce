"""A daily's first review, as its asker waits for it: made ahead of its asking, or when asked::

    python -m bench.review_ahead                      # 20 players of each suit count
    python -m bench.review_ahead --players 5 --suits 1 2
    python -m bench.review_ahead --budget 0           # none made ahead: made when asked

A server in this process (the embedded database in a temporary folder, the real daily
prover, a manual clock at noon of a far-off day) and ``--players`` accounts for each suit
count, each playing that day's daily over a real websocket the way ``bench.review cpu``'s
games are played (the solver's lines with tries taken back and detours kept); every second
player resigns part way instead of winning, so both won and lost games are reviewed. As
each daily ends the server reviews it ahead (``SIMON_REVIEW_AHEAD_SECONDS``, ``--budget``),
one at a time in its worker at the lowest priority. Measured:

- **ahead**: from the last daily's end until every review is made, and the CPU each took
  in the worker (what the day's budget pays);
- **first review**: the clock moved to the next day (a daily's review opens then), each
  player asks for the review of their game, one after the other, timed from the ask to the
  review read: p50, p95 and the longest, for each suit count, over ``--days`` days played
  one after the other (each day's dailies are other deals: a review's cost depends on its
  deal far more than on the machine), and each day's p50. With ``--budget 0`` none is
  made ahead: each is made as it is asked, split between the server's review workers (one
  per core, up to two), as a practice or race game's review is.

Prints one JSON object. ``bench.review cpu`` times the same kind of review made when asked.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Final

from bench.review import played_game
from server.engine.actions import replay
from server.net import RunningServer
from tests.conftest import Backend
from tests.support.servers import (
    HOLD_NOTHING,
    Client,
    fresh_clock,
    server_settings,
    serving,
    unique_name,
)

#: The share of players who resign part way (a lost game) instead of winning.
RESIGNING: Final = 0.5


async def _play(client: Client, suits: int, rng: random.Random, resign: bool) -> str:
    """The player's daily of ``suits`` played to its end; its game id."""
    start = await client.request({"type": "start", "mode": "daily", "suits": suits})
    state = start["state"]
    actions = await asyncio.to_thread(played_game, state["code"], rng) or []
    if resign:
        actions = actions[: rng.randrange(len(actions) // 4, 3 * len(actions) // 4 + 1)]
    for action in actions:
        message = {"type": "undo"} if action == "undo" else {"type": "move", "move": action}
        reply = await client.request(message)
        if reply.get("code") == "game-over":  # a move tried (to be taken back) won the game
            return str(state["game"])
        assert reply["type"] in ("moved", "state"), reply
    if not replay(state["code"], actions).is_won:  # resigned part way, or stuck
        reply = await client.request({"type": "resign"})
        assert reply["type"] == "state" and reply["state"]["finished"], reply
    return str(state["game"])


async def _ahead_done(server: RunningServer, games: int, most: float) -> float:
    """Seconds until the node has made (or left) a review ahead of every game."""
    reviews = server.hub.reviews
    started = time.monotonic()
    while reviews.ahead.made + reviews.ahead.left < games:
        if time.monotonic() - started > most:
            raise TimeoutError(f"{reviews.ahead.made} of {games} reviewed ahead in {most} s")
        await asyncio.sleep(0.05)
    return time.monotonic() - started


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50 s": round(statistics.median(ordered), 3),
        "p95 s": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
        "max s": round(ordered[-1], 3),
    }


async def run(
    players: int, suit_counts: list[int], seed: int, budget: float, days: int = 1
) -> dict[str, Any]:
    rng = random.Random(seed)
    clock = fresh_clock(rng=rng)  # the seed's days (their deals: the secret's, below)
    with tempfile.TemporaryDirectory() as data:
        backend = Backend(
            name="embedded",
            database_url=f"sqlite+aiosqlite:///{Path(data) / 'simon.sqlite3'}",
            redis_url=None,
            redis_prefix="simon-bench",
        )
        settings = server_settings(
            backend,
            fairplay=HOLD_NOTHING,
            review_ahead_seconds=budget,
            # the dailies come from the secret and the day: a fixed one, so each run of a seed
            # plays the same deals (a tree compared with another too)
            secret=f"review-ahead-bench-secret-{seed}-0123456789abcdef0123456789abcdef",
            # a whole game goes by in a fraction of a second: lift the message budget
            rate_limit_messages=1_000_000,
        )
        async with serving(settings, clock=clock, prover=None) as server:
            played = 0.0
            waited = 0.0
            asked: dict[int, list[float]] = {suits: [] for suits in suit_counts}
            by_day: list[dict[str, float]] = []
            for _ in range(days):
                games, seconds = await _play_day(server, players, suit_counts, rng)
                played += seconds
                total = sum(map(len, games.values()))
                reviews = server.hub.reviews
                waited += await _ahead_done(
                    server,
                    reviews.ahead.made + reviews.ahead.left + total if budget > 0 else 0,
                    most=total * 120.0,
                )
                clock.advance(days=1)  # the day is over: its reviews open
                day: dict[str, float] = {}
                for suits, kept in games.items():
                    times = await _ask(server, kept)
                    asked[suits] += times
                    day[f"{suits} p50 s"] = round(statistics.median(times), 3)
                by_day.append(day)
            reviews = server.hub.reviews
            ahead = {
                "games": sum(map(len, asked.values())),
                "made": reviews.ahead.made,
                "left": reviews.ahead.left,
                "after the last end s": round(waited, 1),
                "cpu per game s": round(reviews.ahead.spent / max(1, reviews.ahead.made), 2),
                "cpu s": round(reviews.ahead.spent, 1),
            }
    return {
        "players per suit count": players,
        "days": days,
        "played s": round(played, 1),
        "ahead": ahead,
        "first review": {
            str(suits): {"reviews": len(times), **_summary(times)} for suits, times in asked.items()
        },
        "first review p50 by day": by_day,
        "load average": os.getloadavg()[0],
    }


async def _play_day(
    server: RunningServer, players: int, suit_counts: list[int], rng: random.Random
) -> tuple[dict[int, list[tuple[str, str]]], float]:
    """The day's dailies played to their end by ``players`` new accounts of each suit count:
    (token, game id) by suit count, and the seconds it took."""
    games: dict[int, list[tuple[str, str]]] = {suits: [] for suits in suit_counts}
    started = time.monotonic()
    for suits in suit_counts:
        for index in range(players):
            async with Client.connect(server.url) as client:
                reply = await client.request({"type": "register", "name": unique_name("ahead")})
                game = await _play(client, suits, rng, resign=index % 2 == 1)
                games[suits].append((reply["token"], game))
    return games, time.monotonic() - started


async def _ask(server: RunningServer, kept: list[tuple[str, str]]) -> list[float]:
    """Each player's review asked for, one after the other: the seconds each took."""
    times: list[float] = []
    for token, game in kept:
        async with Client.connect(server.url) as client:
            await client.request({"type": "auth", "token": token})
            asked = time.monotonic()
            review = await client.request({"type": "review", "game": game}, timeout=600)
            times.append(time.monotonic() - asked)
            assert review["type"] == "review", review
    return times


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--players 1 --suits 1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=20, help="of each suit count")
    parser.add_argument("--suits", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--budget",
        type=float,
        default=86_400.0,
        help="CPU seconds of reviews ahead a day (0: none, each made when asked)",
    )
    parser.add_argument(
        "--days", type=int, default=1, help="days played one after the other (a daily each)"
    )
    args = parser.parse_args()
    figures = asyncio.run(run(args.players, args.suits, args.seed, args.budget, args.days))
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
