"""The kinds of client a client process of the soak benches (:mod:`bench.crowd`) connects:
players, followers of the daily race, vandals sending bad frames, and new accounts
registering; each checks every answer it gets and counts it in its crowd's tally."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import random
import time
from typing import TYPE_CHECKING, Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from bench.crowd_tally import Stopped, Unexpected
from bench.server_load_bots import UNAVAILABLE, bucket, move_frame
from server.engine import GameCode

if TYPE_CHECKING:
    from bench.crowd import Crowd

DIGEST = '{"type":"race_digest"'
REPLY_SECONDS = 30.0
OPEN_SECONDS = 30.0
#: A sign-in or start answered ``unavailable`` is sent again this long after, at most
#: RESENDS times.
RESEND_PAUSE = 0.5
RESENDS = 20
#: A digest shows the 10 leaders and, for a racer below them, 3 rows either side of its own.
MOST_ROWS = 10 + 3 + 1 + 3
#: One frame over the server's limit (SIMON_MAX_MESSAGE_BYTES, 4096).
OVERSIZE = 5000
#: A node sends a race's digests to all its followers at once, once a second: a move sent
#: this soon after this process's followers began to get them is counted apart.
BURST = 0.25
#: Digests this far apart belong to different bursts.
BURST_GAP = 0.3
#: Players and followers per client address.


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
