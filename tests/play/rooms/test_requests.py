"""What players ask of race rooms (server/play/rooms/requests.py), on stand-ins for the
parts around it: who may open a room and with which options, a practice code taken or
refused, a taken room code drawn again, who is told of a change, when a public room
counts down by itself, leaving before and after the start, and a rematch. (The rooms'
transactions are the store's, tested on both databases; rooms end to end:
tests/net/test_rooms.py.)"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import AsyncIterator, Callable
from datetime import UTC, date, datetime
from typing import Any, cast

import pytest

from server.play.clock import ManualClock
from server.play.daily.deals import DailySchedule
from server.play.errors import Refused
from server.play.rooms.bus import RoomFanout
from server.play.rooms.followers import RoomFollowers
from server.play.rooms.requests import RoomRequests
from server.play.rooms.rules import CODE_DRAWS, RoomSettings
from server.play.rooms.runs import RaceRuns
from server.play.rooms.timers import RoomTasks
from server.play.rooms.views import RoomViews
from server.play.sending import Push
from server.protocol import ErrorCode, RaceNew
from server.store import CodeTaken, PlayerRecord, RaceRecord, RaceStore, RoomOptions
from server.store.races import EXPIRED, OPEN, OVER, STARTED, RaceState
from server.store.races.records import EntrantRecord
from tests.support.fakes import FakeStore, fixed_prover

T0 = datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
CODE = "KXR4M-7M2PQ"
ROOM_CODE = re.compile(r"[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}")
SETTINGS = RoomSettings(countdown=7.0, time_limit=600.0, quick_wait=20.0, open_rooms=2)

ANN = PlayerRecord(id=1, name="ann", created_at=T0)
BOB = PlayerRecord(id=2, name="bob", created_at=T0)
CAT = PlayerRecord(id=3, name="cat", created_at=T0)
ROBOT = PlayerRecord(id=9, name="robot", created_at=T0, bot=True)


def room(
    *racers: PlayerRecord, code: str = CODE, state: RaceState = OPEN, public: bool = False
) -> RaceRecord:
    entrants = tuple(EntrantRecord(p.id, p.name, p.bot, T0, None) for p in racers)
    return RaceRecord(
        code=code, owner_id=racers[0].id if racers else 1, owner_name="ann", suits=1,
        chosen_deal=None, deal=None, public=public, capacity=10, allow_bots=False,
        countdown=7.0, time_limit=600.0, state=state, revision=1, created_at=T0,
        auto_start_at=None, starts_at=None, ends_at=None, finished_at=None, previous=None,
        next=None, entrants=entrants,
    )  # fmt: skip


class Races:
    """The rooms' transactions, as asked: each answers ``answer`` (the room and whether it
    is news), after raising :class:`CodeTaken` for the first ``taken`` new codes."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, dict[str, Any]]] = []
        self.answer: tuple[RaceRecord, bool] = (room(ANN), True)
        self.left: RaceRecord = room()
        self.taken = 0

    def _ask(self, name: str, arguments: dict[str, Any]) -> None:
        self.asked.append((name, arguments))
        if name in ("create", "quick", "rematch") and self.taken > 0:
            self.taken -= 1
            raise CodeTaken("drawn before")

    async def create(self, **arguments: Any) -> RaceRecord:
        self._ask("create", arguments)
        return self.answer[0]

    async def join(self, code: str, **arguments: Any) -> tuple[RaceRecord, bool]:
        self._ask("join", {"code": code, **arguments})
        return self.answer

    async def quick(self, **arguments: Any) -> tuple[RaceRecord, bool]:
        self._ask("quick", {**arguments, "new_code": arguments["new_code"]()})
        return self.answer

    async def leave(self, code: str, **arguments: Any) -> RaceRecord:
        self._ask("leave", {"code": code, **arguments})
        return self.left

    async def rematch(self, code: str, **arguments: Any) -> tuple[RaceRecord, bool]:
        self._ask("rematch", {"code": code, **arguments})
        return self.answer

    def new_codes(self) -> list[str]:
        return [
            arguments.get("code") or arguments["new_code"]
            for name, arguments in self.asked
            if name in ("create", "quick")
        ] + [arguments["new_code"] for name, arguments in self.asked if name == "rematch"]


class Around:
    """The parts a request tells, recording what each was told: the room's views (which
    look rooms up in ``rooms``), its followers, the fanout and the runs."""

    def __init__(self) -> None:
        self.told: list[tuple[Any, ...]] = []
        self.rooms: dict[str, RaceRecord] = {}

    async def record(self, code: str) -> RaceRecord:
        return self.rooms[code]

    async def unfollow(self, code: str, push: Push) -> None:
        self.told.append(("unfollow", code, push))

    async def changed(self, record: RaceRecord, event: str) -> None:
        self.told.append(("changed", record.code, event))

    async def publish_view(self, record: RaceRecord, event: str) -> None:
        self.told.append(("published", record.code, event))

    async def begin(self, code: str, *, by: int | None) -> RaceRecord:
        self.told.append(("begin", code, by))
        return room(ANN, BOB, code=code, state=STARTED)

    async def auto_start(self, code: str) -> None:
        self.told.append(("auto_start", code))


@dataclasses.dataclass
class Parts:
    requests: RoomRequests
    races: Races
    around: Around
    store: FakeStore
    clock: ManualClock
    tasks: RoomTasks


@pytest.fixture
async def parts() -> AsyncIterator[Parts]:
    races, around, store = Races(), Around(), FakeStore()
    clock, tasks = ManualClock(T0), RoomTasks()
    requests = RoomRequests(
        daily=DailySchedule(store, secret="s", prover=fixed_prover(par=None)),
        races=cast(RaceStore, races),
        clock=clock,
        settings=SETTINGS,
        tasks=tasks,
        views=cast(RoomViews, around),
        followers=cast(RoomFollowers, around),
        fanout=cast(RoomFanout, around),
        runs=cast(RaceRuns, around),
    )
    yield Parts(requests, races, around, store, clock, tasks)
    await tasks.close()
    await store.close()


def race_new(**fields: Any) -> RaceNew:
    return RaceNew(type="race_new", **fields)


async def refusal(request: Any) -> ErrorCode:
    with pytest.raises(Refused) as refused:
        await request
    return refused.value.code


# -- opening a room ------------------------------------------------------------------------------


async def test_a_new_room_has_the_requests_options_and_the_servers_rules(parts: Parts) -> None:
    record = await parts.requests.create(
        ANN, race_new(suits=2, public=True, capacity=4, time_limit=300)
    )
    assert record == parts.races.answer[0]
    [(name, arguments)] = parts.races.asked
    assert name == "create" and ROOM_CODE.fullmatch(arguments.pop("code"))
    assert arguments == {
        "owner": ANN,
        "options": RoomOptions(
            suits=2, chosen_deal=None, public=True, capacity=4, allow_bots=False,
            countdown=7.0, time_limit=300.0,
        ),
        "now": T0,
        "most_open": 2,
    }  # fmt: skip
    await parts.requests.create(ANN, race_new())
    assert parts.races.asked[-1][1]["options"] == RoomOptions(
        suits=1, countdown=7.0, time_limit=600.0
    )  # the server's default time limit


async def test_a_bots_room_must_allow_bots(parts: Parts) -> None:
    assert await refusal(parts.requests.create(ROBOT, race_new())) is ErrorCode.BOTS_NOT_ALLOWED
    assert parts.races.asked == []
    await parts.requests.create(ROBOT, race_new(allow_bots=True))
    assert parts.races.asked[-1][1]["owner"] == ROBOT


async def test_a_practice_code_is_the_deal_and_its_suit_count(parts: Parts) -> None:
    await parts.requests.create(ANN, race_new(suits=1, code=" ss1-s4-qwertyu "))
    options = parts.races.asked[-1][1]["options"]
    assert (options.chosen_deal, options.suits) == ("SS1-S4-QWERTYU", 4)
    assert await refusal(parts.requests.create(ANN, race_new(code="SS1-S3-QWERTYU"))) is (
        ErrorCode.BAD_CODE
    )
    assert len(parts.races.asked) == 1


async def test_todays_daily_deal_is_not_raced_until_its_day_is_over(parts: Parts) -> None:
    today = parts.clock.now().date()
    await parts.store.put_daily_deal(day=today, suits=2, code="SS1-S2-DAILYAA", par=None)
    await parts.store.put_daily_deal(
        day=date(2026, 2, 28), suits=2, code="SS1-S2-OLDDAYS", par=None
    )
    assert await refusal(parts.requests.create(ANN, race_new(code="ss1-s2-dailyaa"))) is (
        ErrorCode.DAILY_NOT_OVER
    )
    await parts.requests.create(ANN, race_new(code="SS1-S2-OLDDAYS"))  # yesterday's: practice
    await parts.requests.create(ANN, race_new(code="SS1-S4-DAILYAA"))  # the letters, 4 suits
    assert [a["options"].chosen_deal for _, a in parts.races.asked] == [
        "SS1-S2-OLDDAYS", "SS1-S4-DAILYAA",
    ]  # fmt: skip
    parts.clock.advance(days=1)  # the day is over: practice
    await parts.requests.create(ANN, race_new(code="SS1-S2-DAILYAA"))
    assert parts.races.asked[-1][1]["options"].chosen_deal == "SS1-S2-DAILYAA"


Opening = Callable[[RoomRequests], Any]

OPENINGS: dict[str, Opening] = {
    "create": lambda requests: requests.create(ANN, race_new()),
    "quick": lambda requests: requests.quick(ANN, 1),
    "rematch": lambda requests: requests.rematch(ANN, CODE),
}


@pytest.mark.parametrize("opening", OPENINGS)
async def test_a_taken_room_code_is_drawn_again(parts: Parts, opening: str) -> None:
    parts.around.rooms[CODE] = room(ANN, BOB, state=OVER)
    parts.races.taken = CODE_DRAWS - 1
    await OPENINGS[opening](parts.requests)
    codes = parts.races.new_codes()
    assert len(codes) == CODE_DRAWS and len(set(codes)) == CODE_DRAWS
    assert all(ROOM_CODE.fullmatch(code) for code in codes)


@pytest.mark.parametrize("opening", OPENINGS)
async def test_when_every_code_drawn_is_taken_the_player_tries_again(
    parts: Parts, opening: str
) -> None:
    parts.races.taken = CODE_DRAWS
    assert await refusal(OPENINGS[opening](parts.requests)) is ErrorCode.UNAVAILABLE
    assert len(parts.races.asked) == CODE_DRAWS and parts.around.told == []


# -- joining, and a public room counting down by itself ------------------------------------------


async def test_a_racer_joins_by_a_loosely_typed_code_and_the_room_is_told(parts: Parts) -> None:
    parts.races.answer = (room(ANN, BOB), True)
    assert await parts.requests.join(BOB, " kxr4m 7m2pq ") == parts.races.answer[0]
    assert parts.races.asked == [
        ("join", {"code": CODE, "player": BOB, "now": T0, "auto_wait": 20.0})
    ]
    assert parts.around.told == [("changed", CODE, "joined")]


async def test_a_racer_back_in_a_room_is_no_news(parts: Parts) -> None:
    parts.races.answer = (room(ANN, BOB, CAT, public=True), False)
    await parts.requests.join(BOB, CODE)
    await parts.tasks.close()
    assert parts.around.told == []


async def test_a_code_that_is_no_room_code_is_no_such_race(parts: Parts) -> None:
    assert await refusal(parts.requests.join(BOB, "KXR4U-7M2PQ")) is ErrorCode.NO_SUCH_RACE
    assert parts.races.asked == []


@pytest.mark.parametrize(
    ("racers", "public", "state", "counts_down"),
    [
        ((ANN, BOB, CAT), True, OPEN, True),
        ((ANN, BOB), True, OPEN, False),  # a second racer: it waits (its timer, not here)
        ((ANN, BOB, CAT), False, OPEN, False),  # a private room: its owner starts it
        ((ANN, BOB, CAT), True, STARTED, False),
    ],
)
async def test_a_public_room_counts_down_by_itself_at_enough_racers(
    parts: Parts,
    racers: tuple[PlayerRecord, ...],
    public: bool,
    state: RaceState,
    counts_down: bool,
) -> None:
    parts.races.answer = (room(*racers, public=public, state=state), True)
    await parts.requests.join(racers[-1], CODE)
    await parts.tasks.close()  # the countdown's start is background work
    started = [("auto_start", CODE)] if counts_down else []
    assert parts.around.told == [("changed", CODE, "joined"), *started]


async def test_a_quick_race_is_a_public_room_of_the_suit_count(parts: Parts) -> None:
    parts.races.answer = (room(ANN, BOB, CAT, public=True), True)
    assert await parts.requests.quick(CAT, 4) == parts.races.answer[0]
    [(name, arguments)] = parts.races.asked
    assert name == "quick" and ROOM_CODE.fullmatch(arguments.pop("new_code"))
    assert arguments == {
        "player": CAT,
        "options": RoomOptions(suits=4, public=True, countdown=7.0, time_limit=600.0),
        "now": T0,
        "auto_wait": 20.0,
    }
    await parts.tasks.close()
    assert parts.around.told == [("changed", CODE, "joined"), ("auto_start", CODE)]


async def test_a_bots_quick_race_is_in_the_bots_own_lobby(parts: Parts) -> None:
    parts.races.answer = (room(ANN, public=True), True)
    await parts.requests.quick(ROBOT, 1)
    await parts.requests.quick(BOB, 1)
    await parts.tasks.close()
    asked = [keywords["options"].allow_bots for _, keywords in parts.races.asked]
    assert asked == [True, False]  # a bot's room takes bots; a person's never


async def test_a_quick_race_already_joined_is_no_news(parts: Parts) -> None:
    parts.races.answer = (room(ANN, BOB, CAT, public=True), False)
    await parts.requests.quick(BOB, 1)
    await parts.tasks.close()
    assert parts.around.told == []


# -- leaving, starting ---------------------------------------------------------------------------


def push(frame: str) -> None:
    """A follower's connection (never sent to here)."""


async def test_a_racer_leaves_an_open_room_and_stops_following_it(parts: Parts) -> None:
    parts.around.rooms[CODE] = room(ANN, BOB)
    parts.races.left = room(ANN)
    assert await parts.requests.leave(BOB, "kxr4m-7m2pq", push) == room(ANN)
    assert parts.races.asked == [("leave", {"code": CODE, "player_id": 2, "now": T0})]
    assert parts.around.told == [("changed", CODE, "left"), ("unfollow", CODE, push)]


async def test_the_last_racer_out_leaves_the_room_expired(parts: Parts) -> None:
    parts.around.rooms[CODE] = room(ANN)
    parts.races.left = room(state=EXPIRED)
    await parts.requests.leave(ANN, CODE, push)
    assert parts.around.told == [("changed", CODE, "expired"), ("unfollow", CODE, push)]


async def test_a_racer_may_not_leave_a_race_begun(parts: Parts) -> None:
    parts.around.rooms[CODE] = room(ANN, BOB, state=STARTED)
    assert await refusal(parts.requests.leave(BOB, CODE, push)) is ErrorCode.RACE_STARTED
    assert parts.races.asked == [] and parts.around.told == []  # still following it


@pytest.mark.parametrize(
    ("who", "state"), [(CAT, OPEN), (CAT, STARTED), (BOB, OVER), (BOB, EXPIRED)]
)
async def test_a_spectator_or_anyone_after_the_race_only_stops_following(
    parts: Parts, who: PlayerRecord, state: RaceState
) -> None:
    parts.around.rooms[CODE] = room(ANN, BOB, state=state)
    assert await parts.requests.leave(who, CODE, push) == parts.around.rooms[CODE]
    assert parts.races.asked == [] and parts.around.told == [("unfollow", CODE, push)]


async def test_the_owner_starts_the_countdown(parts: Parts) -> None:
    record = await parts.requests.start(ANN, "kxr4m7m2pq")
    assert record.state == STARTED and parts.around.told == [("begin", CODE, 1)]


# -- the rematch ---------------------------------------------------------------------------------


async def test_the_first_to_ask_opens_the_rematch_and_the_old_room_learns_where(
    parts: Parts,
) -> None:
    old = room(ANN, BOB, state=OVER)
    parts.around.rooms[CODE] = old
    parts.races.answer = (room(BOB, code="ABCDE-FGH1J"), True)
    assert await parts.requests.rematch(BOB, "kxr4m-7m2pq") == parts.races.answer[0]
    [(name, arguments)] = parts.races.asked
    assert name == "rematch" and ROOM_CODE.fullmatch(arguments.pop("new_code"))
    assert arguments == {
        "code": CODE, "player": BOB, "now": T0, "auto_wait": 20.0, "most_open": 2,
    }  # fmt: skip
    assert parts.around.told == [("published", CODE, "rematch")]


async def test_the_others_join_the_rematch(parts: Parts) -> None:
    parts.races.answer = (room(BOB, ANN, code="ABCDE-FGH1J"), False)
    await parts.requests.rematch(ANN, CODE)
    assert parts.around.told == [("changed", "ABCDE-FGH1J", "joined")]
