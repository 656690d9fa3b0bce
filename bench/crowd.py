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
import contextlib
import itertools
import json
import math
import os
import random
import resource
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from functools import partial
from pathlib import Path
from typing import Any, Final, Literal

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidHandshake  # noqa: E402

from bench.server_load import UNAVAILABLE, bucket, move_frame, move_sequence  # noqa: E402
from server.engine import GameCode  # noqa: E402

DIGEST = '{"type":"race_digest"'
REPLY_SECONDS = 30.0
OPEN_SECONDS = 30.0
#: A sign-in or start answered ``unavailable`` is sent again this long after, at most
#: RESENDS times.
RESEND_PAUSE = 0.5
RESENDS = 20
#: A digest shows the 10 leaders and, for a racer below them, 3 rows either side of its own.
MOST_ROWS = 10 + 3 + 1 + 3
#: Kept per kind of unexpected answer, to show what it was.
EXAMPLES = 5
#: Moves worked out per deal; players of one deal take them in turn.
VARIANTS = 8
#: One frame over the server's limit (SIMON_MAX_MESSAGE_BYTES, 4096).
OVERSIZE = 5000
#: A node sends a race's digests to all its followers at once, once a second: a move sent
#: this soon after this process's followers began to get them is counted apart.
BURST = 0.25
#: Digests this far apart belong to different bursts.
BURST_GAP = 0.3
#: Players and followers per client address.
PER_ADDRESS = 4
#: Addresses of a process's block for its players and followers; the rest are for
#: registrations and vandals, one each.
ENTITY_ADDRESSES = 20_000


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


# -- a connection, and the clients over it ----------------------------------------------


class Client:
    """One client's connection: requests with ids, answers matched by id."""

    kind = "client"

    def __init__(self, crowd: Crowd, n: int, address: str, url: str) -> None:
        self.crowd = crowd
        self.n = n
        self.address = address
        self.url = url
        self.ws: ClientConnection | None = None
        self.ids = itertools.count(1)
        self.token: str | None = None

    async def open(self) -> ClientConnection:
        try:
            self.ws = await connect(
                self.url,
                local_addr=(self.address, 0),
                compression=None,
                ping_interval=None,  # the server pings; answering is automatic
                max_queue=None,  # digests may wait between moves; pings are answered anyway
                open_timeout=OPEN_SECONDS,
            )
        except (InvalidHandshake, OSError, TimeoutError) as error:
            what = f"{self.kind}: connect {type(error).__name__}"
            raise self.crowd.unexpected(what, str(error)) from None
        return self.ws

    async def send(self, frame: str | bytes) -> None:
        assert self.ws is not None
        await self.ws.send(frame)

    async def answer(self, message_id: int | None) -> dict[str, Any]:
        """The next frame answering ``message_id`` (None: the next one that is not pushed)."""
        assert self.ws is not None
        try:
            async with asyncio.timeout(REPLY_SECONDS):
                while True:
                    frame = await self.ws.recv()
                    if isinstance(frame, str) and frame.startswith(DIGEST):
                        self.crowd.tally.player_digests += 1
                        continue
                    message: dict[str, Any] = json.loads(frame)
                    if message_id is None:  # a bad frame's refusal, with or without an id
                        if message.get("type") == "error":
                            return message
                    elif message.get("id") == message_id:
                        return message
                    self.crowd.pushed(self.kind, message)
        except TimeoutError:
            raise self.crowd.unexpected(
                f"{self.kind}: no answer in {REPLY_SECONDS:g} s", f"id {message_id}"
            ) from None
        except ConnectionClosed as closed:
            if self.crowd.stopping.is_set():
                raise Stopped from None
            code = closed.rcvd.code if closed.rcvd else None
            raise self.crowd.unexpected(f"{self.kind}: closed {code}", str(closed)) from None

    async def request(
        self, message: dict[str, Any], want: str, *, resend_unavailable: bool = False
    ) -> dict[str, Any]:
        """Send with a fresh id; the answer, which must be of type ``want``. With
        ``resend_unavailable``, an ``unavailable`` answer is sent again (the same id)."""
        message_id = next(self.ids)
        frame = json.dumps({"id": message_id, **message})
        await self.send(frame)
        reply = await self.answer(message_id)
        for _ in range(RESENDS if resend_unavailable else 0):
            if reply.get("type") != "error" or reply.get("code") != UNAVAILABLE:
                break
            self.crowd.tally.resent_unavailable += 1
            await asyncio.sleep(RESEND_PAUSE)
            await self.send(frame)
            reply = await self.answer(message_id)
        if reply.get("type") != want:
            code = reply.get("code", reply.get("type"))
            raise self.crowd.unexpected(f"{self.kind}: {message['type']} {code}", json.dumps(reply))
        return reply

    async def refused(self, message: dict[str, Any], code: str) -> None:
        """Send a request that must be refused with ``code``."""
        message_id = next(self.ids)
        await self.send(json.dumps({"id": message_id, **message}))
        reply = await self.answer(message_id)
        if reply.get("type") == "error" and reply.get("code") == code:
            self.crowd.expect(code)
            return
        got = reply.get("code", reply.get("type"))
        raise self.crowd.unexpected(
            f"{self.kind}: {message['type']} not refused {code} but {got}", json.dumps(reply)
        )

    async def sign_in(self, name: str) -> None:
        if self.token is None:
            register = {"type": "register", "name": name, "bot": True}
            reply = await self.request(register, "registered", resend_unavailable=True)
            self.token = reply["token"]
            self.crowd.names.append(name)
        else:
            auth = {"type": "auth", "token": self.token}
            await self.request(auth, "authenticated", resend_unavailable=True)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


class Player(Client):
    kind = "player"

    def __init__(self, crowd: Crowd, n: int, address: str, url: str, daily: bool) -> None:
        super().__init__(crowd, n, address, url)
        self.daily = daily
        self.rng = random.Random(f"{crowd.share.seed}/{crowd.share.worker}/{n}")
        self.moves: list[str] = []
        self.due = 0.0

    async def live(self, gate: asyncio.Semaphore, ready: asyncio.Future[None]) -> None:
        try:
            async with gate:
                await self.begin()
        except Stopped:
            ready.set_result(None)
            return
        except Unexpected as error:
            ready.set_exception(RuntimeError(f"a player could not start: {error}"))
            return
        ready.set_result(None)
        while not self.crowd.stopping.is_set():
            try:
                await self.play()
            except Stopped:
                break
            except Unexpected:
                await self.again()
        await self.close()

    async def begin(self) -> None:
        await self.open()
        await self.sign_in(self.crowd.name("p", self.n))
        await self.start()

    async def again(self) -> None:
        """After an unexpected answer: a fresh connection, signed in, the game started again."""
        await self.close()
        while not self.crowd.stopping.is_set():
            await asyncio.sleep(1.0)
            try:
                await self.begin()
                return
            except (Unexpected, Stopped):
                await self.close()

    async def start(self) -> None:
        if self.daily:
            message = {"type": "start", "mode": "daily", "suits": 1}
        else:
            suits = self.rng.choice((1, 2, 4))
            code = str(GameCode(suits, self.rng.randrange(26**7)))
            message = {"type": "start", "mode": "practice", "code": code}
        try:
            state = (await self.request(message, "state", resend_unavailable=True))["state"]
        except Unexpected as error:
            if self.daily and "already-played" in str(error):
                self.daily = False  # won the daily by chance: practice from now on
                return await self.start()
            raise
        self.crowd.tally.actions += 1
        self.moves = self.crowd.sequence(state["code"], self.n)
        if state["moves"]:  # a daily attempt taken up again: back to the deal
            await self.request({"type": "restart"}, "state")

    async def play(self) -> None:
        """Sequences of moves, each followed by a restart: every action paced."""
        crowd = self.crowd
        clock = time.monotonic
        undo = crowd.share.undo_chance
        self.due = clock() + self.rng.random() / crowd.share.rate
        while not crowd.stopping.is_set():
            i = 0
            while i < len(self.moves):
                await self.pace()
                if i and self.rng.random() < undo:
                    await self.request({"type": "undo"}, "state")
                    crowd.tally.actions += 1
                    i -= 1
                    continue
                message_id = next(self.ids)
                sent = clock()
                await self.send(move_frame(message_id, self.moves[i]))
                reply = await self.answer(message_id)
                if reply.get("type") != "moved":
                    code = reply.get("code", reply.get("type"))
                    if code == "game-over" and clock() - crowd.day_changed_at < 30:
                        crowd.expect("game-over")  # the day ended under a daily attempt
                        await self.start()
                        break
                    raise crowd.unexpected(f"player: move {code}", json.dumps(reply))
                done = clock()
                crowd.tally.histogram[bucket(done - sent)] += 1
                if sent - crowd.burst_at < BURST:
                    crowd.tally.burst_histogram[bucket(done - sent)] += 1
                crowd.tally.moves += 1
                i += 1
                if reply.get("won"):
                    await self.answer(message_id)  # its `finished`
                    self.daily = False
                    await self.start()
                    break
            else:
                await self.pace()
                if self.moves:
                    await self.request({"type": "restart"}, "state")
                    crowd.tally.actions += 1
                else:  # a deal with no legal move: another one
                    self.daily = False
                    await self.start()

    async def pace(self) -> None:
        """Wait for this player's next turn (``rate`` a second; late: no burst to catch up)."""
        self.due += 1 / self.crowd.share.rate
        pause = self.due - time.monotonic()
        if pause > 0:
            await asyncio.sleep(pause)
        else:
            self.due = time.monotonic()
        if self.crowd.stopping.is_set():
            raise Stopped


class Follower(Client):
    kind = "follower"

    def __init__(self, crowd: Crowd, n: int, address: str, url: str) -> None:
        super().__init__(crowd, n, address, url)
        self.count = 0
        self.last = math.nan
        self.min_gap = math.inf
        self.connected_at = math.inf

    async def live(self, gate: asyncio.Semaphore, ready: asyncio.Future[None]) -> None:
        try:
            async with gate:
                await self.begin()
        except (Unexpected, Stopped) as error:
            ready.set_exception(RuntimeError(f"a follower could not start: {error!r}"))
            return
        ready.set_result(None)
        while True:
            with contextlib.suppress(Unexpected):
                await self.read()
            if self.crowd.stopping.is_set():
                break
            await self.close()
            self.connected_at = math.inf  # not counted until it follows again
            while not self.crowd.stopping.is_set():
                await asyncio.sleep(1.0)
                try:
                    await self.begin()
                    break
                except (Unexpected, Stopped):
                    await self.close()
        await self.close()

    async def begin(self) -> None:
        await self.open()
        await self.sign_in(self.crowd.name("f", self.n))
        race = await self.request({"type": "race", "suits": 1}, "race")
        self.check(race)
        self.connected_at = time.monotonic()
        self.last = math.nan

    async def read(self) -> None:
        assert self.ws is not None
        crowd = self.crowd
        try:
            async for frame in self.ws:
                if isinstance(frame, str) and frame.startswith(DIGEST):
                    now = time.monotonic()
                    gap = now - self.last
                    if gap < self.min_gap:  # NaN (the first one) compares false
                        self.min_gap = gap
                    self.last = now
                    self.count += 1
                    if now - crowd.last_digest > BURST_GAP:
                        crowd.burst_at = now
                    crowd.last_digest = now
                    crowd.tally.follower_digests += 1
                    if self.count % 25 == 1:
                        self.check(json.loads(frame))
                    continue
                crowd.pushed("follower", json.loads(frame))
        except ConnectionClosed as closed:
            if not crowd.stopping.is_set():
                code = closed.rcvd.code if closed.rcvd else None
                raise crowd.unexpected(f"follower: closed {code}", str(closed)) from None
        else:
            if not crowd.stopping.is_set():
                raise crowd.unexpected("follower: closed", "the server closed the connection")

    def check(self, board: dict[str, Any]) -> None:
        """A digest (or the ``race`` reply): the counts add up, the rows are few and ranked."""
        self.crowd.tally.digests_checked += 1
        rows = board.get("players", [])
        ranks = [row.get("rank") for row in rows]
        problems = []
        if board.get("suits") != 1:
            problems.append("suits")
        if board.get("total") != board.get("playing", 0) + board.get("finished", 0):
            problems.append("counts")
        if len(rows) > MOST_ROWS or len(rows) > board.get("total", 0):
            problems.append("rows")
        if ranks != sorted(ranks) or any(not isinstance(r, int) for r in ranks):
            problems.append("ranks")
        if problems:
            raise self.crowd.unexpected(
                f"follower: bad digest ({', '.join(problems)})", json.dumps(board)
            )


def _bad_frames(k: int) -> list[tuple[str | bytes, str, str | None, int | None]]:
    """Bad frames: (frame, the code it must get, detail.field, the id to echo)."""
    return [
        ('{"type": "move", "move": ', "bad-json", None, None),
        ("[1, 2, 3]", "bad-json", None, None),
        (json.dumps({"type": "teleport", "id": k}), "unknown-type", None, k),
        (json.dumps({"type": "ping", "id": k, "extra": True}), "invalid-message", None, k),
        (json.dumps({"type": "register", "id": k, "name": "evil\x00name"}),
         "invalid-message", "name", k),
        (json.dumps({"type": "move", "id": k, "move": "1-2\x1b[2J"}), "invalid-message", "move", k),
        (json.dumps({"type": "ping", "id": "evil\nid"}), "invalid-message", "id", None),
        (json.dumps({"type": "start", "id": k, "mode": "practice", "suits": 1.0}),
         "invalid-message", "suits", k),
        (b"\xff\xfe{}", "bad-json", None, None),
    ]  # fmt: skip


class Vandal(Client):
    kind = "vandal"

    def __init__(self, crowd: Crowd, n: int, address: str, url: str) -> None:
        super().__init__(crowd, n, address, url)
        self.rng = random.Random(f"vandal/{crowd.share.worker}/{n}")

    async def live(self, gate: asyncio.Semaphore, ready: asyncio.Future[None]) -> None:
        try:
            async with gate:
                await self.begin()
        except (Unexpected, Stopped) as error:
            ready.set_exception(RuntimeError(f"a vandal could not start: {error!r}"))
            return
        ready.set_result(None)
        interval = 1 / self.crowd.share.bad_rate
        due = time.monotonic() + self.rng.random() * interval
        for k in itertools.count(1):
            due += interval
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            if self.crowd.stopping.is_set():
                break
            try:
                if k % self.crowd.share.oversize_every == 0:
                    await self.oversize(k)
                else:
                    cases = _bad_frames(k)
                    await self.bad(*cases[k % len(cases)])
            except (Unexpected, Stopped):
                await self.close()
                while not self.crowd.stopping.is_set():
                    try:
                        await self.begin()
                        break
                    except (Unexpected, Stopped):
                        await self.close()
                        await asyncio.sleep(1.0)
        await self.close()

    async def begin(self) -> None:
        await self.open()
        await self.sign_in(self.crowd.name("v", self.n))

    async def bad(
        self, frame: str | bytes, code: str, field_name: str | None, echo: int | None
    ) -> None:
        crowd = self.crowd
        crowd.tally.bad_frames += 1
        await self.send(frame)
        reply = await self.answer(None)
        wrong = []
        if reply.get("code") != code:
            wrong.append(f"code {reply.get('code')}")
        if field_name is not None and (reply.get("detail") or {}).get("field") != field_name:
            wrong.append(f"field {(reply.get('detail') or {}).get('field')}")
        if reply.get("id") != echo:
            wrong.append(f"id {reply.get('id')!r}")
        if wrong:
            what = f"vandal: {code} answered with {', '.join(wrong)}"
            raise crowd.unexpected(what, f"{frame!r} -> {json.dumps(reply)}")
        crowd.expect(code)

    async def oversize(self, k: int) -> None:
        """A frame over the limit: the server must close the connection with 1009."""
        crowd = self.crowd
        crowd.tally.bad_frames += 1
        await self.send(json.dumps({"type": "ping", "id": k, "pad": "x" * OVERSIZE}))
        assert self.ws is not None
        try:
            async with asyncio.timeout(REPLY_SECONDS):
                async for frame in self.ws:
                    raise crowd.unexpected("vandal: oversize frame answered", str(frame)[:200])
        except TimeoutError:
            raise crowd.unexpected("vandal: oversize frame not closed", "") from None
        except ConnectionClosed:
            pass
        code = self.ws.close_code
        if code != 1009:
            raise crowd.unexpected(f"vandal: oversize closed {code}, not 1009")
        crowd.expect("close-1009")
        await self.begin()


class Registration(Client):
    """One new account, with the refusals a sign-up can meet on the way."""

    kind = "registration"

    def __init__(self, crowd: Crowd, j: int) -> None:
        address, url = crowd.lone()
        super().__init__(crowd, j, address, url)
        self.j = j

    async def run(self) -> None:
        crowd = self.crowd
        try:
            await self.open()
            await self.refused({"type": "race", "suits": 1}, "not-authenticated")
            if self.j % 3 == 1 and crowd.names:
                taken = crowd.rng.choice(crowd.names).upper()
                await self.refused({"type": "register", "name": taken}, "name-taken")
            elif self.j % 3 == 2:
                await self.refused({"type": "register", "name": "no spaces!"}, "bad-name")
            name = crowd.name("r", self.j)
            reply = await self.request({"type": "register", "name": name}, "registered")
            crowd.names.append(name)
            crowd.tally.registrations += 1
            await self.refused({"type": "register", "name": name + "x"}, "already-authenticated")
            await self.close()
            await self.open()
            await self.request({"type": "auth", "token": reply["token"]}, "authenticated")
            await self.request({"type": "daily"}, "daily")
            await self.close()
            if self.j % 4 == 3:
                self.address, self.url = crowd.lone()
                await self.open()
                await self.refused({"type": "auth", "token": "A" * 43}, "bad-token")
        except (Unexpected, Stopped):
            pass
        finally:
            await self.close()


# -- the parent's side: client processes and their tallies ------------------------------


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


def spread(total: int, parts: int) -> list[int]:
    """``total`` as ``parts`` whole shares, as even as can be."""
    size, extra = divmod(total, parts)
    return [size + (part < extra) for part in range(parts)]


def spread_over(total: int, takes: Sequence[Takes], kind: str) -> list[int]:
    """``total`` clients of ``kind`` spread over the processes that take that kind."""
    counts = [0] * len(takes)
    if not total:
        return counts
    taking = [i for i, what in enumerate(takes) if what in ("all", kind)]
    if not taking:
        raise ValueError(f"no client process takes {kind}")
    for i, count in zip(taking, spread(total, len(taking)), strict=True):
        counts[i] = count
    return counts


class Fleet:
    """The client processes (this module, run once per share), driven over their stdin."""

    def __init__(self, shares: list[Share]) -> None:
        self.shares = shares
        self.processes: list[asyncio.subprocess.Process] = []
        self.stats: dict[int, list[dict[str, Any]]] = {}
        self.arrived = asyncio.Condition()
        self._answers: list[asyncio.Queue[str]] = []
        self._readers: list[asyncio.Task[None]] = []
        self.failures: list[str] = []

    @property
    def pids(self) -> list[int]:
        return [process.pid for process in self.processes]

    async def start(self) -> None:
        for share in self.shares:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bench.crowd", json.dumps(asdict(share)),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                cwd=ROOT, limit=2**26,
            )  # fmt: skip
            self.processes.append(process)
            answers: asyncio.Queue[str] = asyncio.Queue()
            self._answers.append(answers)
            self._readers.append(asyncio.create_task(self._read(process, answers)))
        for answers in self._answers:
            await self._expect(answers, "HELLO")

    async def _read(self, process: asyncio.subprocess.Process, answers: asyncio.Queue[str]) -> None:
        assert process.stdout is not None
        while line := (await process.stdout.readline()).decode():
            if line.startswith("STATS "):
                data = json.loads(line[6:])
                async with self.arrived:
                    self.stats.setdefault(data.pop("k"), []).append(data)
                    self.arrived.notify_all()
            elif line.startswith("FAILED "):
                self.failures.append(line[7:].strip())
                async with self.arrived:
                    self.arrived.notify_all()
            else:
                await answers.put(line)
        await answers.put("")  # it exited
        async with self.arrived:
            self.arrived.notify_all()

    async def _expect(self, answers: asyncio.Queue[str], word: str) -> str:
        line = await answers.get()
        if not line.startswith(word):
            said = "; ".join(self.failures) or line.strip() or "it exited"
            raise RuntimeError(f"a client process failed: {said}")
        return line[len(word) :].strip()

    async def _say(self, line: str) -> None:
        for process in self.processes:
            if process.returncode is None and process.stdin is not None:
                with contextlib.suppress(ConnectionError):
                    process.stdin.write(f"{line}\n".encode())
        for process in self.processes:
            if process.returncode is None and process.stdin is not None:
                with contextlib.suppress(ConnectionError):
                    await process.stdin.drain()

    async def add(self, players: int, followers: int, vandals: int = 0) -> list[dict[str, Any]]:
        """Connect more clients, spread over the processes that take their kind (players
        and vandals: all but the followers' own); what each process has now."""
        kinds = [share.takes for share in self.shares]
        for process, p, f, v in zip(
            self.processes, spread_over(players, kinds, "players"),
            spread_over(followers, kinds, "followers"), spread_over(vandals, kinds, "players"),
            strict=True,
        ):  # fmt: skip
            assert process.stdin is not None
            process.stdin.write(f"add {p} {f} {v}\n".encode())
            await process.stdin.drain()
        return [json.loads(await self._expect(answers, "ADDED")) for answers in self._answers]

    async def window(self, start: float, seconds: float, intervals: int) -> None:
        await self._say(f"window {start!r} {seconds!r} {intervals}")

    async def interval(self, k: int, seconds: float) -> dict[str, Any] | None:
        """Interval ``k`` of the window, merged over the processes (None: not every
        process reported it in time)."""
        try:
            async with asyncio.timeout(seconds), self.arrived:
                await self.arrived.wait_for(
                    lambda: len(self.stats.get(k, [])) >= len(self.processes) or bool(self.failures)
                )
        except TimeoutError:
            return None
        if len(self.stats.get(k, [])) < len(self.processes):
            return None
        return merged(self.stats.pop(k))

    async def stop(self) -> dict[str, Any]:
        """Stop every client: what they saw outside the windows, merged."""
        await self._say("stop")
        done = []
        for answers in self._answers:
            try:
                done.append(json.loads(await self._expect(answers, "DONE")))
            except RuntimeError as error:
                self.failures.append(str(error))
        await self.close()
        return merged(done)

    async def close(self) -> None:
        for process in self.processes:
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    if process.stdin is not None:
                        process.stdin.close()
                try:
                    await asyncio.wait_for(process.wait(), 60)
                except TimeoutError:
                    process.kill()
                    await process.wait()
        for reader in self._readers:
            reader.cancel()
        await asyncio.gather(*self._readers, return_exceptions=True)


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
