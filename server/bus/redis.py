"""The bus over Redis: pub/sub for race events and a hash of standings per room, and a
channel of revoked credentials and one of frames to players (a friend's finished daily)
every node listens to.

Pub/sub drops what is published while a subscriber is disconnected, which suits race
events (the standings hash holds the state; a follower asks for it again with ``race``).
The reader runs in a reconnect loop with backoff, resubscribing to every joined room.

Every other call (publishing, the standings, the day's counts) goes through a
:class:`~server.breaker.Breaker`: after one fails, the bus is refused at once
(:class:`BusUnavailable`) for a few seconds rather than each call waiting out the socket
timeout of a Redis that hangs; the reader's own connection is not behind it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Collection, Sequence
from datetime import date
from typing import Final

import redis.asyncio as redis
from redis.exceptions import RedisError

from server.boundary import boundary
from server.breaker import OPEN_SECONDS, Breaker

from .base import COUNT_SECONDS, KEEP_SECONDS, Bus, BusUnavailable, StandingUpdate

log = logging.getLogger(__name__)

_BACKOFF_FIRST = 0.1
_BACKOFF_MAX = 5.0
_JOIN_WAIT = 5.0


#: Connections each Redis client of a node keeps; more callers at once wait for one.
REDIS_CONNECTIONS = 32


#: Seconds to open a connection to Redis, and to wait for any answer from it.
CONNECT_TIMEOUT = 2.0
SOCKET_TIMEOUT = 5.0


def redis_client(
    url: str,
    *,
    connect_timeout: float = CONNECT_TIMEOUT,
    timeout: float = SOCKET_TIMEOUT,
    pool_timeout: float | None = None,
) -> redis.Redis:
    """A Redis client whose pool waits for a free connection when all are busy (the
    default pool refuses with "Too many connections" when a thousand players move), up
    to ``pool_timeout`` seconds (None: ``timeout``). A Redis that does not answer within
    ``timeout`` seconds fails the call (RedisError)."""
    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=REDIS_CONNECTIONS,
        timeout=timeout if pool_timeout is None else pool_timeout,
        socket_connect_timeout=connect_timeout,
        socket_timeout=timeout,
    )
    return redis.Redis.from_pool(pool)


#: What a Redis that fails raises (OSError includes timeouts and refused connections).
REDIS_FAILURES: Final = (RedisError, OSError)


@boundary(REDIS_FAILURES, BusUnavailable)
class RedisBus(Bus):
    def __init__(
        self,
        url: str,
        *,
        prefix: str = "simon",
        connect_timeout: float = CONNECT_TIMEOUT,
        timeout: float = SOCKET_TIMEOUT,
        breaker_seconds: float = OPEN_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self._url = url
        self._prefix = prefix
        self._client = redis_client(url, connect_timeout=connect_timeout, timeout=timeout)
        self.breaker = Breaker(
            "bus (Redis)",
            failures=REDIS_FAILURES,
            refused=BusUnavailable,
            open_seconds=breaker_seconds,
            monotonic=monotonic,
        )
        # the reader waits for messages with no timeout of the socket's (it polls)
        self._pubsub_client = redis.Redis.from_url(
            url,
            socket_timeout=None,
            socket_connect_timeout=connect_timeout,
            health_check_interval=30,
            client_name=f"{prefix}:races",
        )
        self._pubsub: redis.client.PubSub | None = None
        self._joined: set[str] = set()
        self._changed = asyncio.Event()
        self._ready = asyncio.Event()  # set while the reader is subscribed
        self._reader: asyncio.Task[None] | None = None
        #: Every node always reads the revoked credentials and the frames to players, on a
        #: connection of their own (the races' reader connects only once a race is joined).
        self._node_client = redis.Redis.from_url(
            url,
            socket_timeout=None,
            socket_connect_timeout=connect_timeout,
            health_check_interval=30,
            client_name=f"{prefix}:nodes",
        )
        self._node_reader: asyncio.Task[None] | None = None
        self._nodes_ready = asyncio.Event()  # set once the node reader first subscribed
        self._closing = False

    def _channel(self, day: date, suits: int) -> str:
        return f"{self._prefix}:race:{day.isoformat()}:{suits}"

    def _room_channel(self, code: str) -> str:
        return f"{self._prefix}:room:{code}"

    def _revoked_channel(self) -> str:
        return f"{self._prefix}:revoked"

    def _players_channel(self) -> str:
        return f"{self._prefix}:players"

    def _parse_channel(self, channel: str) -> tuple[date, int]:
        day, suits = channel[len(self._prefix) + 6 :].split(":")
        return date.fromisoformat(day), int(suits)

    async def start(self) -> None:
        await self._client.ping()  # fail early on a wrong URL
        self._node_reader = asyncio.create_task(self._read_node_loop(), name="redis-bus-nodes")
        with contextlib.suppress(TimeoutError):  # it goes on trying: a node starts anyway
            await asyncio.wait_for(self._nodes_ready.wait(), _JOIN_WAIT)
        self._reader = asyncio.create_task(self._read_loop(), name="redis-bus-reader")

    async def close(self) -> None:
        self._closing = True
        for reader in (self._reader, self._node_reader):
            if reader is not None:
                reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await reader
        await self._client.aclose()
        await self._pubsub_client.aclose()
        await self._node_client.aclose()

    async def join_standings(self, day: date, suits: int) -> None:
        await self._subscribe(self._channel(day, suits))

    async def join_room(self, code: str) -> None:
        await self._subscribe(self._room_channel(code))

    async def _subscribe(self, channel: str) -> None:
        if channel in self._joined:
            return
        self._joined.add(channel)
        pubsub = self._pubsub
        if pubsub is None:
            # the reader subscribes to every joined room when it (re)connects: wait for it,
            # so that events published after this returns are not missed (in real time, as
            # are the reader's back-offs below: they wait on a socket to Redis)
            self._changed.set()
            try:
                await asyncio.wait_for(self._ready.wait(), _JOIN_WAIT)
            except TimeoutError:
                log.warning("race reader not connected; %s joins when it is", channel)
            return
        try:
            await pubsub.subscribe(channel)
        except (RedisError, OSError) as error:
            log.warning("subscribe %s failed (the reader resubscribes): %s", channel, error)

    async def leave_standings(self, day: date, suits: int) -> None:
        await self._unsubscribe(self._channel(day, suits))

    async def leave_room(self, code: str) -> None:
        await self._unsubscribe(self._room_channel(code))

    async def publish_room(self, code: str, frame: str) -> None:
        async with self.breaker.call():
            await self._client.publish(self._room_channel(code), frame)

    async def publish_revoked(self, credential_ids: Sequence[int]) -> None:
        async with self.breaker.call():
            await self._client.publish(
                self._revoked_channel(), " ".join(str(i) for i in credential_ids)
            )

    async def publish_to_players(self, player_ids: Sequence[int], frame: str) -> None:
        # the ids on the first line, the frame (one line of JSON) on the second
        message = " ".join(str(i) for i in player_ids) + "\n" + frame
        async with self.breaker.call():
            await self._client.publish(self._players_channel(), message)

    async def _unsubscribe(self, channel: str) -> None:
        if channel not in self._joined:
            return
        self._joined.discard(channel)
        pubsub = self._pubsub
        if pubsub is not None:
            try:
                await pubsub.unsubscribe(channel)
            except (RedisError, OSError) as error:
                log.warning("unsubscribe %s failed: %s", channel, error)

    async def publish_standings(self, updates: Sequence[StandingUpdate]) -> None:
        # One pipeline for the lot (a pipeline's own cost in redis-py is most of an event's),
        # and for each race one write of its standings and one message of all its events,
        # in order, a line each (an encoded frame is one line of JSON): every node then
        # reads one message per race per batch, not one per event.
        races: dict[str, tuple[dict[str, str | None], list[str]]] = {}
        for update in updates:
            channel = self._channel(update.day, update.suits)
            race = races.get(channel)
            if race is None:
                race = races[channel] = ({}, [])
            latest, events = race
            latest[update.player] = update.entry  # a player's last standing in the batch
            events.append(update.event)
        async with self._client.pipeline(transaction=False) as pipe:
            for channel, (latest, events) in races.items():
                standings = f"{channel}:players"
                gone = [player for player, entry in latest.items() if entry is None]
                if gone:
                    pipe.hdel(standings, *gone)
                recorded = {player: entry for player, entry in latest.items() if entry is not None}
                if recorded:
                    pipe.hset(standings, mapping=recorded)  # type: ignore[arg-type]
                    pipe.expire(standings, KEEP_SECONDS)
                pipe.publish(channel, "\n".join(events))
            async with self.breaker.call():
                await pipe.execute()

    async def count_for_day(self, day: date, name: str) -> int:
        key = f"{self._prefix}:count:{day.isoformat()}:{name}"
        async with self._client.pipeline(transaction=True) as pipe:
            pipe.incr(key)
            pipe.expire(key, COUNT_SECONDS)
            async with self.breaker.call():
                count, _ = await pipe.execute()
        return int(count)

    async def standings_entries(self, day: date, suits: int) -> list[str]:
        async with self.breaker.call():
            values = await self._client.hvals(f"{self._channel(day, suits)}:players")
        # the client decodes nothing (no decode_responses): every value is bytes
        return [value.decode() if isinstance(value, bytes) else value for value in values]

    async def _read_loop(self) -> None:
        """The races' and rooms' reader: the channels joined, once one is."""

        def subscribed(pubsub: redis.client.PubSub) -> None:
            self._pubsub = pubsub
            self._ready.set()

        def ended() -> None:
            self._pubsub = None
            self._ready.clear()

        await self._reading(
            "race", self._pubsub_client, lambda: self._joined, self._race_message, subscribed, ended
        )

    def _race_message(self, channel: str, data: bytes) -> None:
        rooms = f"{self._prefix}:room:"
        if channel.startswith(rooms):
            self._deliver_room(channel[len(rooms) :], data.decode())
            return
        try:
            day, suits = self._parse_channel(channel)
        except ValueError:
            return
        for event in data.decode().split("\n"):
            self._deliver(day, suits, event)

    async def _read_node_loop(self) -> None:
        """Read the channels every node hears (revoked credentials, frames to players):
        what is published while it is away is lost (a revoked token is still refused from
        the database at its next sign-in)."""
        channels = {self._revoked_channel(), self._players_channel()}
        await self._reading(
            "node",
            self._node_client,
            lambda: channels,
            self._node_message,
            lambda _: self._nodes_ready.set(),
            lambda: None,
        )

    def _node_message(self, channel: str, data: bytes) -> None:
        if channel == self._revoked_channel():
            self._deliver_revoked([int(i) for i in data.split()])
        elif channel == self._players_channel():
            ids, _, frame = data.decode().partition("\n")
            self._deliver_to_players([int(i) for i in ids.split()], frame)

    async def _reading(
        self,
        name: str,
        client: redis.Redis,
        channels: Callable[[], Collection[str]],
        handle: Callable[[str, bytes], None],
        subscribed: Callable[[redis.client.PubSub], None],
        ended: Callable[[], None],
    ) -> None:
        """A reader in a reconnect loop with backoff, subscribed to ``channels()`` (waiting
        while there are none), handing each message to ``handle``."""
        backoff = _BACKOFF_FIRST
        while not self._closing:
            wanted = channels()
            if not wanted:
                self._changed.clear()
                await self._changed.wait()
                continue
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(*wanted)
                subscribed(pubsub)
                backoff = _BACKOFF_FIRST
                while not self._closing:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None and message.get("type") == "message":
                        handle(message["channel"].decode(), message["data"])
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as error:
                log.warning("%s reader lost Redis (%s); retrying in %.1f s", name, error, backoff)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, _BACKOFF_MAX)
            except Exception:  # a bad handler must not end the reader for everyone
                log.exception("%s reader failed; restarting", name)
                await asyncio.sleep(backoff)
            finally:
                ended()
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call,unused-ignore]  # untyped before redis-py 8.2
