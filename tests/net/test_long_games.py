"""Long games, through a real server on both backends: a game at its cap of actions refuses
one more (``game-too-long``, changing nothing) yet can still be resigned, or closed by its
day's end, and replayed; and the fair-play screening of a finished daily is worked out off
the event loop, which answers others meanwhile."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

import pytest

from server.engine.actions import replay
from server.play.clock import day_end
from server.play.fairplay import evidence as fairplay
from server.play.fairplay import screening
from tests.conftest import Backend
from tests.support.players import finished_of
from tests.support.servers import (
    Client,
    first_legal,
    fresh_clock,
    server_settings,
    serving,
    store_of,
    unique_name,
)

#: The cap of the test servers: small, so a game reaches it in a few requests.
CAP = 12
#: Long enough for any machine, however loaded.
DEADLINE = 30.0


async def _daily_at_the_cap(client: Client) -> dict[str, Any]:
    """A human's 1-suit daily played to :data:`CAP` actions (a move and its undo, again and
    again, and a restart among them: each counts); its state."""
    await client.request({"type": "register", "name": unique_name("long")})
    state = (await client.request({"type": "start", "suits": 1}))["state"]
    move = first_legal(state["code"])
    for n in range(CAP):
        message = {"type": "restart"} if n == 5 else {"type": "undo"} if n % 2 else {}
        reply = await client.request(message or {"type": "move", "move": move})
        assert reply["type"] in ("moved", "state"), (n, reply)
    resumed = await client.request({"type": "resume", "game": state["game"]})
    assert resumed["state"]["seq"] == CAP and not resumed["state"]["finished"]
    return dict(resumed["state"])


async def _refused_at_the_cap(client: Client, state: dict[str, Any]) -> None:
    """Every action but a resignation is refused ``game-too-long``; nothing changes."""
    move = first_legal(state["code"])
    for message in (
        {"type": "move", "move": move},
        {"type": "auto", "column": int(move.split("-")[0])},
        {"type": "undo"},
        {"type": "restart"},
    ):
        refused = await client.request(message)
        assert refused["type"] == "error" and refused["code"] == "game-too-long", refused
        assert str(CAP) in refused["message"] and "resign" in refused["message"]
    again = await client.request({"type": "resume", "game": state["game"]})
    assert again["state"]["seq"] == CAP and again["state"]["board"] == state["board"]


def _replays(code: str, actions: Sequence[str]) -> None:
    replay(code, actions)  # raises on an action the engine refuses


async def test_a_game_at_its_cap_refuses_more_and_can_still_be_resigned(
    backend: Backend,
) -> None:
    async with (
        serving(server_settings(backend, max_game_actions=CAP), clock=fresh_clock()) as server,
        Client.connect(server.url) as player,
    ):
        state = await _daily_at_the_cap(player)
        await _refused_at_the_cap(player, state)

        resigned = await player.request({"type": "resign"})
        assert resigned["type"] == "state", resigned
        assert resigned["state"]["finished"] and resigned["state"]["seq"] == CAP + 1
        finished = await finished_of(player, state["game"])
        assert finished["resigned"] and not finished["won"]

        logged = await store_of(server).load_game(state["game"])
        assert logged is not None and logged.game.finished_at is not None
        actions = [entry.action for entry in logged.entries]
        assert len(actions) == CAP + 1 and actions[-1] == "resign"
        _replays(state["code"], actions)
        # screened like any other daily: its evidence counts every decision
        screened = await store_of(server).screening(state["game"])
        assert screened is not None and screened.evidence["decisions"] == CAP + 1


async def test_a_daily_at_its_cap_is_closed_by_its_days_end(backend: Backend) -> None:
    clock = fresh_clock()
    today = clock.now().date()
    async with (
        serving(server_settings(backend, max_game_actions=CAP), clock=clock) as server,
        Client.connect(server.url) as player,
    ):
        state = await _daily_at_the_cap(player)
        await _refused_at_the_cap(player, state)

        clock.set(day_end(today) + timedelta(seconds=1))
        refused = await player.request({"type": "undo"})
        assert refused["code"] == "day-over", refused  # the day's end comes before the cap
        closed = await player.pushed_event(lambda frame: frame["type"] == "state")
        assert closed["state"]["finished"] and closed["state"]["seq"] == CAP + 1

        logged = await store_of(server).load_game(state["game"])
        assert logged is not None and logged.game.finished_at == day_end(today)
        actions = [entry.action for entry in logged.entries]
        assert actions[-1] == "closed"
        _replays(state["code"], actions)


async def test_a_finished_dailys_screening_leaves_the_loop_free(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fair-play evidence is held in progress (blocked until the test lets it go): the
    server answers another client meanwhile, and the game's end is answered once it is done.
    Worked out on the event loop, it would hold the loop, and the other client's ping with
    it, until the hold ran out."""
    entered, release = threading.Event(), threading.Event()
    waited: list[bool] = []
    real = fairplay.evidence

    def held_evidence(*args: Any, **kwargs: Any) -> fairplay.Evidence:
        entered.set()
        waited.append(release.wait(DEADLINE))  # False: nobody could answer meanwhile
        return real(*args, **kwargs)

    monkeypatch.setattr(fairplay, "evidence", held_evidence)
    monkeypatch.setattr(screening, "evidence", held_evidence, raising=False)
    async with (
        serving(server_settings(backend), clock=fresh_clock()) as server,
        Client.connect(server.url) as player,
        Client.connect(server.url) as other,
    ):
        await player.request({"type": "register", "name": unique_name("long")})
        await other.request({"type": "register", "name": unique_name("other")})
        state = (await player.request({"type": "start", "suits": 1}))["state"]
        await player.request({"type": "move", "move": first_legal(state["code"])})

        await player.send({"type": "resign", "id": "resign"})
        assert await asyncio.to_thread(entered.wait, DEADLINE)
        try:
            pong = await other.request({"type": "ping"}, timeout=DEADLINE)
            assert pong["type"] == "pong", pong
        finally:
            release.set()
        resigned = await player.reply_to("resign", timeout=DEADLINE)
        assert resigned["type"] == "state" and resigned["state"]["finished"]
        await finished_of(player, state["game"])
        assert waited and all(waited)  # let go by the test, after the other's answer
        screened = await store_of(server).screening(state["game"])
        assert screened is not None and screened.evidence["decisions"] == 2
