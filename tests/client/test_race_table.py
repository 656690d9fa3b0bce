"""The race at the table, without a screen: the room, the reveal, the race and its results,
from the messages of a scripted connection."""

from __future__ import annotations

from typing import Any

import pytest

from client_cli.race_table import Phase, RaceTable, browser_link, ordinal, race_time
from server.protocol import RaceJoin, RaceNew, RaceRematch, RaceRoom, RaceUpdate, RoomEntry, State
from tests.support.client import CODE, ScriptedConnection, Ticks, race_state, room


def phase(table: RaceTable) -> Phase:
    """The table's phase, read afresh (a message received changes it)."""
    return table.phase


async def test_the_table_follows_the_room_to_the_race_and_its_results() -> None:
    connection = ScriptedConnection([RaceRoom(id=1, room=room())])
    ticks = Ticks()
    table = RaceTable(connection, clock=ticks)  # type: ignore[arg-type]
    notices: list[Any] = []
    table.listener = notices.append
    await table.open(RaceNew(type="race_new", suits=4))
    assert table.phase == "room" and table.owner and table.game is None
    table.receive(RaceRoom(event="joined", room=room(revision=2, racers=("ann", "bob"))))
    assert set(table.standings) == {"ann", "bob"}
    table.receive(
        RaceRoom(event="countdown", room=room("countdown", 3, ("ann", "bob"), starts_in=10.0))
    )
    ticks.now += 4
    assert table.countdown_left() == pytest.approx(6.0)
    table.receive(RaceRoom(room=room("open", 2, ("ann",))))  # an older view: ignored
    assert table.room is not None and table.room.revision == 3

    table.receive(race_state())  # the reveal
    assert phase(table) == "racing" and table.game is not None
    assert table.race_room == "KXR4M-7M2PQ"
    bob = RoomEntry(player="bob", moves=7, score=493, removed=1)
    table.receive(RaceUpdate(code="KXR4M-7M2PQ", event="removed", entry=bob))
    assert table.standings["bob"] == bob and table.race_log[-1] == "bob removed a run (1/4)"
    assert [entry.player for entry in table.ordered()] == ["bob", "ann"]

    winner = RoomEntry(player="bob", won=True, finished=True, elapsed=65.0, place=1)
    second = RoomEntry(player="ann", moves=3, finished=True, resigned=True, place=2)
    table.receive(
        RaceRoom(
            event="over",
            room=room("over", 4, deal=CODE).model_copy(update={"racers": [winner, second]}),
        )
    )
    assert table.phase == "over" and table.finished
    assert notices[-1].text == (
        "Race over: bob won in 1:05.0; you placed 2nd of 2. m rematch · q quit"
    )

    connection.replies.append(
        RaceRoom(id=2, room=room(revision=1).model_copy(update={"code": "ASDFG"}))
    )
    again = await table.rematch()
    assert isinstance(connection.requests[-1], RaceRematch)
    assert again.code == "ASDFG" and table.phase == "room" and table.game is None
    assert table.view is None and not table.finished


async def test_the_view_of_the_reveal_keeps_the_racers_updates_that_overtook_it() -> None:
    # the server pushes it once every racer has their game: a racer may have moved by then
    connection = ScriptedConnection([RaceRoom(id=1, room=room("countdown", 2, ("ann", "bob")))])
    table = RaceTable(connection)  # type: ignore[arg-type]
    await table.open(RaceJoin(type="race_join", code="KXR4M-7M2PQ"))
    table.receive(race_state())  # the reveal
    ann = RoomEntry(player="ann", moves=1, score=499)
    table.receive(RaceUpdate(code="KXR4M-7M2PQ", event="moved", entry=ann))
    table.receive(RaceRoom(event="started", room=room("racing", 2, ("ann", "bob"), deal=CODE)))
    assert table.room is not None and table.room.state == "racing"
    assert table.standings == {"ann": ann, "bob": RoomEntry(player="bob")}
    assert table.race_log[-1] == "go!"


@pytest.mark.parametrize(
    ("finished", "said"),
    [(False, "Back in the race: your move."), (True, "Your game in this race is over")],
)
async def test_coming_back_to_a_race_under_way_is_no_reveal(finished: bool, said: str) -> None:
    connection = ScriptedConnection([RaceRoom(id=1, room=room("racing", 4, ("ann", "bob")))])
    table = RaceTable(connection)  # type: ignore[arg-type]
    notices: list[Any] = []
    table.listener = notices.append
    await table.open(RaceJoin(type="race_join", code="QWERT"))
    view = race_state().state.model_copy(update={"finished": finished})
    table.receive(State(state=view))
    assert table.phase == "racing"
    assert notices[-1].text.startswith(said) and "Go!" not in notices[-1].text
    assert table.opening_line().text.startswith(said)


@pytest.mark.parametrize(
    ("place", "text"),
    [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (13, "13th"),
     (21, "21st"), (111, "111th"), (112, "112th"), (123, "123rd")],
)  # fmt: skip
def test_places_read_as_ordinals(place: int, text: str) -> None:
    assert ordinal(place) == text


@pytest.mark.parametrize(
    ("seconds", "text"), [(0, "0:00.0"), (65.04, "1:05.0"), (59.96, "1:00.0"), (600.5, "10:00.5")]
)
def test_a_racers_time_has_tenths(seconds: float, text: str) -> None:
    assert race_time(seconds) == text


@pytest.mark.parametrize(
    ("server", "link"),
    [
        ("ws://127.0.0.1:8765", "http://127.0.0.1:8765/play?race=KXR4M-7M2PQ"),
        ("wss://simon.example", "https://simon.example/play?race=KXR4M-7M2PQ"),
        ("wss://simon.example/ws", "https://simon.example/play?race=KXR4M-7M2PQ"),
    ],
)
def test_a_browser_joins_a_room_over_http_on_the_same_host(server: str, link: str) -> None:
    assert browser_link(server, "KXR4M-7M2PQ") == link
