"""Reviews wait for the solver's one worker in a fair line, over a real websocket, on both
backends: taken in turn between client addresses (not first come, first served), each
waiting asker told where it stands (``queued``), and the line bounded (``busy``, with a
``retry_after``).

The server's review worker is replaced by one that holds each review until the test lets
it go and answers it as unknown at once: which review the worker takes next is then the
line's choice alone, whatever the machine's load.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from server.engine import GameCode
from server.net import RunningServer
from tests.conftest import Backend
from tests.support.players import registered, resigned_practice_games
from tests.support.servers import Client, fresh_clock, server_settings, serving, unique_name

#: Two client addresses (the server counts a client by its address).
CROWD = "127.0.0.1"
LONER = "127.0.0.2"
#: Deadline for one step (against a hang, not a speed target).
STEP = 30.0


class HeldWorker:
    """The review worker, each review held until its event is set; the codes in the order
    the worker got them."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.asked: asyncio.Queue[tuple[str, asyncio.Event]] = asyncio.Queue()

    async def run(self, task: Any, code: str, actions: list[str], *rest: Any) -> Any:
        go = asyncio.Event()
        self.asked.put_nowait((code, go))
        await go.wait()
        return [(None, None)] * (len(actions) + 1)  # every position unknown

    async def next(self) -> tuple[str, asyncio.Event]:
        return await asyncio.wait_for(self.asked.get(), STEP)

    def close(self) -> None:
        self.real.close()


def held_worker(server: RunningServer) -> HeldWorker:
    reviews = server.hub.reviews
    held = HeldWorker(reviews._worker)
    reviews._worker = held  # type: ignore[assignment]
    return held


class Asker:
    """One account on a connection of its own, from ``address``, with a finished game of
    a deal of its own (its code tells its review apart in the worker)."""

    def __init__(self, client: Client, code: str, game: str) -> None:
        self.client = client
        self.code = code
        self.game = game

    async def ask(self) -> None:
        await self.client.send({"id": "review", "type": "review", "game": self.game})

    async def queued(self) -> int:
        """The position the next ``queued`` message tells (other pushed frames skipped)."""
        async with asyncio.timeout(STEP):
            while True:
                frame = await self.client.receive(STEP)
                if frame.get("type") == "queued":
                    assert frame["game"] == self.game, frame
                    position: int = frame["position"]
                    return position

    async def reviewed(self) -> dict[str, Any]:
        return await self.client.reply_to("review", STEP)


@contextlib.asynccontextmanager
async def askers(server: RunningServer, addresses: list[str]) -> AsyncIterator[list[Asker]]:
    """An :class:`Asker` from each of ``addresses``, in order."""
    async with contextlib.AsyncExitStack() as stack:
        found = []
        for number, address in enumerate(addresses):
            client = await stack.enter_async_context(
                Client.connect(server.url, local_addr=(address, 0))
            )
            await registered(client, unique_name("line"))
            code = str(GameCode(1, 1000 + number))
            [game] = await resigned_practice_games(client, 1, code=code)
            found.append(Asker(client, code, game))
        yield found


async def test_reviews_take_turns_between_addresses_and_each_asker_hears_its_place(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend), clock=fresh_clock()) as server:
        held = held_worker(server)
        async with askers(server, [CROWD] * 5 + [LONER]) as people:
            *crowd, loner = people
            await crowd[0].ask()
            code, first = await held.next()  # the worker is busy with it: the rest wait
            assert code == crowd[0].code
            for place, asker in enumerate(crowd[1:], 1):
                await asker.ask()
                assert await asker.queued() == place
            # one address's five accounts do not keep the other's one waiting behind them
            await loner.ask()
            assert await loner.queued() == 1
            for place, asker in enumerate(crowd[1:], 2):
                assert await asker.queued() == place, "not told it moved back"
            order = [code]
            go = first
            for _ in range(5):
                go.set()
                code, go = await held.next()
                order.append(code)
            go.set()
            assert order == [asker.code for asker in [crowd[0], loner, *crowd[1:]]]
            for asker in people:
                review = await asker.reviewed()
                assert review["type"] == "review" and review["game"] == asker.game, review


async def test_an_address_back_after_waiting_banks_no_turns(backend: Backend) -> None:
    # the loner's address has asked nothing while the crowd waited: on coming back it goes
    # before the crowd's rest once, not before all of them
    async with serving(server_settings(backend), clock=fresh_clock()) as server:
        held = held_worker(server)
        async with askers(server, [CROWD] * 4 + [LONER] * 2) as people:
            crowd, loners = people[:4], people[4:]
            await crowd[0].ask()
            code, go = await held.next()
            for place, asker in enumerate(crowd[1:], 1):
                await asker.ask()
                assert await asker.queued() == place
            go.set()  # crowd[0] done: crowd[1] in the worker, crowd[2] and [3] wait
            code, go = await held.next()
            assert code == crowd[1].code
            # one of the loners' turns comes before the crowd's next, the other's after it
            await loners[0].ask()
            assert await loners[0].queued() == 1
            await loners[1].ask()
            assert await loners[1].queued() == 3
            order = [code]
            for _ in range(4):
                go.set()
                code, go = await held.next()
                order.append(code)
            go.set()
            expected = [crowd[1], loners[0], crowd[2], loners[1], crowd[3]]
            assert order == [asker.code for asker in expected]
            for asker in people:
                assert (await asker.reviewed())["type"] == "review"


async def test_a_full_line_refuses_busy_with_a_retry_after(backend: Backend) -> None:
    async with serving(server_settings(backend), clock=fresh_clock()) as server:
        held = held_worker(server)
        server.hub.reviews.most_in_flight = 2
        async with askers(server, [CROWD, LONER, LONER]) as (one, two, three):
            await one.ask()
            _, go = await held.next()
            await two.ask()
            assert await two.queued() == 1
            refused = await three.client.request(
                {"type": "review", "game": three.game}, timeout=STEP
            )
            assert refused["type"] == "error" and refused["code"] == "busy", refused
            assert refused["detail"]["retry_after"] >= 1, refused
            go.set()
            _, go = await held.next()
            go.set()
            for asker in (one, two):
                assert (await asker.reviewed())["type"] == "review"
