"""A TCP proxy a test owns, to take a service away and give it back.

Put it in front of PostgreSQL or Redis and point the server at the proxy::

    async with TcpProxy("127.0.0.1", 5432) as proxy:   # listens on 127.0.0.1:<proxy.port>
        ...                  # the server talks to the database through the proxy
        proxy.cut()          # every connection is closed; new ones are closed at once
        ...                  # the service is down
        proxy.restore()      # new connections reach the service again

``freeze()`` keeps every connection open but forwards nothing (a hung backend: the bytes
wait in the proxy), until ``restore()`` lets them through. ``delay`` (seconds, settable
at any time) holds every chunk that long in each direction, as a long network path does:
latency, not a lower throughput (chunks keep their order and overlap).
``bytes_asked()`` counts what clients sent, forwarded or held: what was asked of the
service, also while it hangs.

Leaving the block stops the proxy and closes every connection it holds. It runs on the
event loop of the code using it, with no thread or process of its own, so tests and
benchmarks can both use it.
"""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType
from typing import Final, Literal

State = Literal["open", "cut", "frozen"]

_CHUNK: Final = 65536
#: The first bytes a client sends on a connection are kept (to tell its clients apart).
_HEAD: Final = 1024


class _Pair:
    """One client connection and its connection to the target."""

    __slots__ = ("asked", "client", "closed", "head", "tasks", "upstream")

    def __init__(self, client: asyncio.StreamWriter, upstream: asyncio.StreamWriter) -> None:
        self.client = client
        self.upstream = upstream
        self.tasks: list[asyncio.Task[None]] = []
        self.closed = False
        #: Bytes the client sent (forwarded or held), and the first of them.
        self.asked = 0
        self.head = b""

    def close(self) -> None:
        """Drop both sides at once (a reset, as when a service or its host goes away)."""
        if self.closed:
            return
        self.closed = True
        for writer in (self.client, self.upstream):
            writer.transport.abort()


class TcpProxy:
    """Forwards TCP connections from ``127.0.0.1:<port>`` to ``target_host:target_port``."""

    def __init__(
        self, target_host: str, target_port: int, *, host: str = "127.0.0.1", delay: float = 0.0
    ) -> None:
        self.target_host = target_host
        self.target_port = target_port
        self.host = host
        self.state: State = "open"
        #: Seconds each chunk is held, each way.
        self.delay = delay
        #: Connections accepted so far, and bytes forwarded each way.
        self.accepted = 0
        self.bytes_up = 0
        self.bytes_down = 0
        self._server: asyncio.Server | None = None
        self._pairs: set[_Pair] = set()
        self._every_pair: list[_Pair] = []  # also the closed ones, for bytes_asked
        self._handlers: set[asyncio.Task[None]] = set()
        self._flowing = asyncio.Event()
        self._flowing.set()

    # -- life ------------------------------------------------------------------

    async def start(self) -> TcpProxy:
        self._server = await asyncio.start_server(self._accept, self.host, 0)
        return self

    @property
    def port(self) -> int:
        assert self._server is not None, "start the proxy first"
        port: int = self._server.sockets[0].getsockname()[1]
        return port

    @property
    def connections(self) -> int:
        """Connections open through the proxy now."""
        return len(self._pairs)

    def bytes_asked(self, *, excluding: bytes | None = None) -> int:
        """Bytes clients sent so far, forwarded or not (a frozen proxy holds them), leaving
        out the connections whose first bytes hold ``excluding`` (a client's name)."""
        return sum(
            pair.asked
            for pair in self._every_pair
            if excluding is None or excluding not in pair.head
        )

    def _cut(self) -> bool:
        return self.state == "cut"

    async def stop(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
        self.state = "cut"  # a connection still being set up is closed too
        self._drop_all()
        self._flowing.set()  # frozen pumps wake up and see their pair closed
        # Every handler ends on its own once its sockets are closed (cancelling a stream
        # handler makes asyncio log the cancellation as an error).
        handlers = list(self._handlers)
        if handlers:
            _, pending = await asyncio.wait(handlers, timeout=5)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        if server is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 5)

    async def __aenter__(self) -> TcpProxy:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()

    # -- faults ----------------------------------------------------------------

    def cut(self) -> None:
        """The service is gone: close every open connection, and every new one at once."""
        self.state = "cut"
        self._flowing.set()
        self._drop_all()

    def freeze(self) -> None:
        """The service hangs: connections stay open (new ones too) but no byte goes through."""
        self.state = "frozen"
        self._flowing.clear()

    def restore(self) -> None:
        """The service is back: new connections go through, frozen ones flow again."""
        self.state = "open"
        self._flowing.set()

    def to_clients(self, data: bytes) -> None:
        """Bytes the service never sent, written to every open connection's client (between
        the service's own chunks: call it while nothing is on its way)."""
        for pair in self._pairs:
            pair.client.write(data)

    def _drop_all(self) -> None:
        for pair in list(self._pairs):
            pair.close()

    # -- forwarding -------------------------------------------------------------

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            await self._serve(reader, writer)
        finally:
            self._handlers.discard(task)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        if self.state == "cut":
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection(self.target_host, self.target_port)
        except OSError:
            writer.transport.abort()
            return
        pair = _Pair(writer, up_writer)
        if self._cut():  # cut while connecting
            pair.close()
            return
        self._pairs.add(pair)
        self._every_pair.append(pair)
        pair.tasks = [
            asyncio.create_task(self._pump(reader, up_writer, pair, up=True)),
            asyncio.create_task(self._pump(up_reader, writer, pair, up=False)),
        ]
        try:
            await asyncio.gather(*pair.tasks, return_exceptions=True)
        finally:
            pair.close()
            self._pairs.discard(pair)

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, pair: _Pair, *, up: bool
    ) -> None:
        loop = asyncio.get_running_loop()
        # chunks read and the time each is due on the other side (with a delay)
        held: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        sender = asyncio.create_task(self._send_held(held, writer, pair, up=up))
        try:
            while not pair.closed:
                data = await reader.read(_CHUNK)
                if not data:
                    break
                if up:
                    pair.asked += len(data)
                    if len(pair.head) < _HEAD:
                        pair.head = (pair.head + data)[:_HEAD]
                held.put_nowait((loop.time() + self.delay, data))
        except (ConnectionError, OSError):
            pass
        finally:
            await held.put((0.0, b""))  # the end, after what is held
            await asyncio.gather(sender, return_exceptions=True)
            pair.close()  # one side ended: end the other

    async def _send_held(
        self,
        held: asyncio.Queue[tuple[float, bytes]],
        writer: asyncio.StreamWriter,
        pair: _Pair,
        *,
        up: bool,
    ) -> None:
        loop = asyncio.get_running_loop()
        try:
            while not pair.closed:
                due, data = await held.get()
                if not data:
                    break
                if due > loop.time():
                    await asyncio.sleep(due - loop.time())
                await self._flowing.wait()  # frozen: the bytes wait here
                if pair.closed:
                    break
                writer.write(data)
                if up:
                    self.bytes_up += len(data)
                else:
                    self.bytes_down += len(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pair.close()


def proxied_database_url(url: str, proxy: TcpProxy) -> str:
    """``url`` (an SQLAlchemy database URL) with its host and port replaced by the proxy's."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(host=proxy.host, port=proxy.port).render_as_string(hide_password=False)


def proxied_redis_url(url: str, proxy: TcpProxy) -> str:
    """``url`` (a ``redis://`` URL) with its host and port replaced by the proxy's."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = f"{userinfo}@" if userinfo else ""
    return urlunsplit(parts._replace(netloc=f"{netloc}{proxy.host}:{proxy.port}"))


def target_of(url: str, default_port: int) -> tuple[str, int]:
    """The host and port a database or Redis URL points at (to put a proxy in front)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or default_port


__all__ = ["TcpProxy", "proxied_database_url", "proxied_redis_url", "target_of"]
