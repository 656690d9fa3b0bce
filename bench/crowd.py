"""The soak benches' clients: one process's share of players, race followers, new accounts
and bad frames, each kind checking every answer it gets.

A client process is this module run with a share (JSON) as its argument; it is driven over
its stdin, one command a line, and answers on its stdout, one line each:

- ``add P F V``: connect P more players, F more followers and V more vandals; answers
  ``ADDED {...}`` once they all play (a player has registered and started its game, a
  follower has registered and had the race's standings);
- ``window T0 SECONDS N``: from ``T0`` (the machine's monotonic clock, the same in every
  process) report N intervals of SECONDS each: ``STATS {...}`` as each one ends;
- ``stop``: stop, close every connection, answer ``DONE {...}`` with what happened outside
  the windows (the connecting included).

Its parts: the share and the tally (:mod:`bench.crowd_tally`), the kinds of client
(:mod:`bench.crowd_clients`), and the parent's side that starts the processes and merges
their tallies (:mod:`bench.crowd_fleet`).

Who does what
-------------
- A **player** registers (a declared bot account), starts today's 1-suit daily (a share
  ``daily`` of them) or a practice deal, and plays legal moves (worked out with the engine
  from the deal its ``state`` reveals) at ``rate`` actions a second, now and then an undo,
  a ``restart`` after each sequence of up to 60 moves. Every move is timed, from sending it
  to its ``moved``. A player on the daily follows its race, so it gets digests too.
- A **follower** registers (following needs an account) and sends ``race``: from then on
  it only reads, counting the ``race_digest`` frames it gets and the time between them; one
  in 25 is parsed and checked (counts add up, at most the 10 leaders and 7 rows around).
- A **registration** (``registrations`` a second from this process, each from an address
  of its own): ``race`` before signing in (``not-authenticated``), sometimes a name taken in
  another letter case (``name-taken``) or one outside the naming rule (``bad-name``), then
  ``register`` (``registered``), ``register`` again (``already-authenticated``); on a new
  connection ``auth`` with the token and ``daily``; one in four also ``auth`` with a token
  no account has (``bad-token``), from a fresh address.
- A **vandal** signs in and sends ``bad_rate`` bad frames a second, in turn: broken JSON,
  JSON that is not an object, an unknown type, an unknown field, control characters in a
  name, a move and an id, a float for a number, invalid UTF-8 in a binary frame; each must be
  refused with its stable code (``bad-json``, ``unknown-type``, ``invalid-message`` with the
  right ``detail.field``, the ``id`` echoed when it is a valid one). One frame in
  ``oversize_every`` is larger than the server's 4096-byte limit: the connection must be
  closed with 1009; the vandal connects again and signs in with its token.

An answer that is what the request provoked counts as an *expected* refusal (by code, or
``close-1009``); anything else (an error where none was due, a wrong code, a wrong field,
a refused handshake, a connection closed or an answer not come within 30 s) is
*unexpected*, counted by what it was, with the first examples kept. A player whose
connection fails connects again, signs in with its token and starts again.

A sign-in or start answered ``unavailable`` (the node's database was too busy to take it in
time: a flood of connections does that) is sent again with the same id after
``RESEND_PAUSE`` seconds, as a client should, at most ``RESENDS`` times; the resends are
counted apart (``resent_unavailable``), not as refusals. Anywhere else ``unavailable`` is
unexpected: a move that could not be stored in time is a failure.

Every client connects from a loopback address of its own process's block
(``127.<100 + worker>.x.y``; four players or followers share one, each registration a fresh
one), so the nodes' limits per address apply to each as to a real client: nginx puts the
address in ``X-Forwarded-For``, and the nodes trust nginx.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import os
import random
import resource
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, Final

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.crowd_clients import REPLY_SECONDS, Follower, Player, Registration, Vandal  # noqa: E402
from bench.crowd_tally import EXAMPLES, Share, Tally, Unexpected  # noqa: E402
from bench.server_load_bots import move_sequence  # noqa: E402

#: Moves worked out per deal; players of one deal take them in turn.
VARIANTS = 8
#: Players and followers per client address.
PER_ADDRESS = 4
#: Addresses of a process's block for its players and followers; the rest are for
#: registrations and vandals, one each.
ENTITY_ADDRESSES = 20_000


class Crowd:
    """Every client of this process, and the tallies they write to."""

    def __init__(self, share: Share) -> None:
        self.share = share
        self.rng = random.Random(share.seed * 7919 + share.worker)
        self.tally = Tally()
        self.outside = self.tally
        self.stopping = asyncio.Event()
        self.players: list[Player] = []
        self.followers: list[Follower] = []
        self.vandals: list[Vandal] = []
        self.tasks: set[asyncio.Task[None]] = set()
        self._entities = 0
        self._addresses = itertools.count(ENTITY_ADDRESSES)
        self._sequences: dict[tuple[str, int], list[str]] = {}
        self.names: list[str] = []
        self.day_changed_at = -math.inf
        self._registering = False
        #: When this process's followers last got a digest, and when that burst began.
        self.last_digest = -math.inf
        self.burst_at = -math.inf

    # -- addresses, names, deals ---------------------------------------------------------

    def address(self, n: int) -> str:
        """The ``n``-th loopback address of this process's block."""
        high, low = divmod(n, 250)
        if high > 255:
            raise RuntimeError("this client process ran out of addresses")
        return f"127.{100 + self.share.worker}.{high}.{low + 1}"

    def entity(self) -> tuple[int, str, str]:
        """A number, an address (shared by a few) and a URL for the next player or follower."""
        n = self._entities
        self._entities += 1
        urls = self.share.urls
        return n, self.address(n // PER_ADDRESS), urls[n % len(urls)]

    def lone(self) -> tuple[str, str]:
        """An address of its own, and a URL, for a registration or a vandal."""
        n = next(self._addresses)
        urls = self.share.urls
        return self.address(n), urls[n % len(urls)]

    def name(self, kind: str, n: int) -> str:
        return f"s{self.share.run}{kind}{self.share.worker}-{n}"

    def sequence(self, code: str, n: int) -> list[str]:
        key = (code, n % VARIANTS)
        moves = self._sequences.get(key)
        if moves is None:
            moves = self._sequences[key] = move_sequence(code, random.Random(f"{code}/{key[1]}"))
        return moves

    # -- what happened ---------------------------------------------------------------------

    def expect(self, code: str) -> None:
        self.tally.expected[code] += 1

    def unexpected(self, what: str, example: str = "") -> Unexpected:
        self.tally.unexpected[what] += 1
        examples = self.tally.examples.setdefault(what, [])
        if len(examples) < EXAMPLES:
            examples.append(example[:300])
        return Unexpected(f"{what}: {example[:200]}" if example else what)

    def pushed(self, who: str, message: dict[str, Any]) -> None:
        """A frame the server sent on its own, other than a digest."""
        if message.get("type") == "daily_changed":
            self.day_changed_at = time.monotonic()
            return
        self.unexpected(f"{who}: pushed {message.get('type')}", json.dumps(message))

    # -- running -------------------------------------------------------------------------

    def spawn(self, work: Callable[[], Any]) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.create_task(work())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def add(self, players: int, followers: int, vandals: int) -> dict[str, Any]:
        started = time.perf_counter()
        gate = asyncio.Semaphore(self.share.connect_at_once)
        ready: list[asyncio.Future[None]] = []
        loop = asyncio.get_running_loop()
        new: list[Player | Follower | Vandal] = []
        for _ in range(players):
            n, address, url = self.entity()
            daily = (n * 7919 % 1000) < self.share.daily * 1000
            new.append(Player(self, n, address, url, daily))
        for _ in range(followers):
            n, address, url = self.entity()
            new.append(Follower(self, n, address, url))
        for _ in range(vandals):
            address, url = self.lone()
            new.append(Vandal(self, len(self.vandals) + len(new), address, url))
        for client in new:
            future: asyncio.Future[None] = loop.create_future()
            ready.append(future)
            self.spawn(partial(client.live, gate, future))
            if isinstance(client, Player):
                self.players.append(client)
            elif isinstance(client, Follower):
                self.followers.append(client)
            else:
                self.vandals.append(client)
        await asyncio.gather(*ready)
        return {
            "players": len(self.players),
            "followers": len(self.followers),
            "vandals": len(self.vandals),
            "seconds": time.perf_counter() - started,
        }

    async def window(self, start: float, seconds: float, intervals: int) -> None:
        """Swap the tally at every boundary and print the one that ended."""
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        self.tally = Tally()
        counts = {id(f): f.count for f in self.followers}
        if self.share.registrations > 0 and not self._registering:
            self._registering = True
            self.spawn(self.registering)
        for k in range(intervals):
            boundary = start + (k + 1) * seconds
            await asyncio.sleep(max(0.0, boundary - time.monotonic()))
            ended, self.tally = self.tally, Tally() if k + 1 < intervals else self.outside
            got = []
            for follower in self.followers:
                before = counts.get(id(follower))
                counts[id(follower)] = follower.count
                if before is not None and follower.connected_at <= boundary - seconds:
                    got.append(follower.count - before)
                ended.min_gap = min(ended.min_gap, follower.min_gap)
                follower.min_gap = math.inf
            ended.followers = len(got)
            ended.daily_players = sum(player.daily for player in self.players)
            ended.follower_max = max(got, default=0)
            ended.follower_min = min(got, default=0)
            print(f"STATS {json.dumps({'k': k, **ended.as_json()})}", flush=True)

    async def registering(self) -> None:
        """New accounts at a steady rate, each from an address of its own."""
        interval = 1 / self.share.registrations
        due = time.monotonic() + self.rng.random() * interval
        gate = asyncio.Semaphore(8)
        for j in itertools.count():
            due += interval
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            if self.stopping.is_set():
                return
            await gate.acquire()
            registration = Registration(self, j)

            async def one(registration: Registration = registration) -> None:
                try:
                    await registration.run()
                finally:
                    gate.release()

            self.spawn(one)

    async def stop(self) -> None:
        self.stopping.set()
        for follower in self.followers:
            if follower.ws is not None:
                self.spawn(follower.ws.close)
        try:
            async with asyncio.timeout(REPLY_SECONDS + 10):
                while self.tasks:
                    await asyncio.gather(*list(self.tasks), return_exceptions=True)
        except TimeoutError:  # clients still connecting (a failed step): let them go
            for task in list(self.tasks):
                task.cancel()
            await asyncio.gather(*list(self.tasks), return_exceptions=True)


# -- the process ---------------------------------------------------------------------------


async def serve(share: Share) -> None:
    crowd = Crowd(share)
    print("HELLO", flush=True)
    windows: list[asyncio.Task[None]] = []
    while True:  # one line at a time
        words = (await asyncio.to_thread(sys.stdin.readline)).split()
        if words[:1] == ["add"]:
            try:
                added = await crowd.add(int(words[1]), int(words[2]), int(words[3]))
            except RuntimeError as error:
                print(f"FAILED {error}", flush=True)
                await crowd.stop()
                raise SystemExit(1) from None
            print(f"ADDED {json.dumps(added)}", flush=True)
        elif words[:1] == ["window"]:
            task = asyncio.create_task(
                crowd.window(float(words[1]), float(words[2]), int(words[3]))
            )
            task.add_done_callback(_report_failure)
            windows.append(task)
        else:  # "stop", or the parent went away
            break
    for task in windows:
        task.cancel()
    await asyncio.gather(*windows, return_exceptions=True)
    await crowd.stop()
    print(f"DONE {json.dumps(crowd.outside.as_json())}", flush=True)


def _report_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        print(f"FAILED {task.exception()!r}", flush=True)


#: No bench of its own: bench.soak and bench.race_digest start it, and their smoke runs it.
SMOKE: Final = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("share", help="this process's share, as JSON")
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    share = Share(**json.loads(args.share))
    if share.nice:
        os.nice(share.nice)
    asyncio.run(serve(share))


if __name__ == "__main__":
    main()
