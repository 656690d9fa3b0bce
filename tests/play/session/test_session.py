"""Sessions without sockets: a parsed message in, replies out (a fake store, the in-process bus)."""

from __future__ import annotations

import ast
import asyncio
import inspect
from collections.abc import AsyncIterator
from datetime import UTC, datetime, time, timedelta
from typing import Any, get_args

import pytest

from server.bus import InProcessBus
from server.engine import Game
from server.play.clock import ManualClock, day_end
from server.play.daily.deals import candidate_codes
from server.play.daily.standings import AROUND_ROWS, FOLLOWS_PER_ACCOUNT, TOP_ROWS
from server.play.games.player_game import PlayerGame
from server.play.games.resends import REPLAY_MEMORY
from server.play.hub import Hub
from server.play.session import session as session_module
from server.protocol import (
    ClientMessage,
    ErrorCode,
    Pong,
)
from server.solver import solve
from tests.play.talk import Talk, signed_in
from tests.support.fakes import FakeStore, NoRaceRooms, NoSocial, fixed_prover
from tests.support.servers import NO_NEW_PLAYERS_BOARD, first_legal

SECRET = "unit-test-secret"


@pytest.fixture
async def hub() -> AsyncIterator[Hub]:
    store = FakeStore()
    hub = Hub(
        store=store,
        bus=InProcessBus(),
        clock=ManualClock(datetime(2026, 3, 1, 10, 0, tzinfo=UTC)),
        secret=SECRET,
        prover=fixed_prover(par=42),
        race_store=NoRaceRooms(),  # type: ignore[arg-type]
        social_store=NoSocial(),  # type: ignore[arg-type]
        thresholds=NO_NEW_PLAYERS_BOARD,
    )
    yield hub
    await hub.close()
    await store.close()


def fake_store(hub: Hub) -> FakeStore:
    store = hub.store
    assert isinstance(store, FakeStore)
    return store


def solved_line(code: str) -> list[str]:
    """A winning line for ``code``, from the bundled solver (first found, unshortened)."""
    solution = solve(Game.from_code(code), shorten=False)
    assert solution.moves, f"no solution found for {code}"
    return [move.text() for move in solution.moves]


@pytest.mark.parametrize(
    "message",
    [
        {"type": "start"},
        {"type": "move", "move": "1-2"},
        {"type": "undo"},
        {"type": "restart"},
        {"type": "resign"},
        {"type": "auto", "column": 1},
        {"type": "resume", "game": "abc"},
        {"type": "rank"},
    ],
)
async def test_game_actions_need_an_account(hub: Hub, message: dict[str, Any]) -> None:
    reply = await Talk(hub).one(**message, id=9)
    assert reply["code"] == ErrorCode.NOT_AUTHENTICATED and reply["id"] == 9


async def test_practice_move_undo_restart(hub: Hub) -> None:
    talk = await signed_in(hub, "bob")
    state = (await talk.one(type="start", mode="practice", code="SS1-S2-AAAAABD"))["state"]
    assert state["code"] == "SS1-S2-AAAAABD" and state["seq"] == 0 and state["moves"] == 0
    move = first_legal("SS1-S2-AAAAABD")
    moved = await talk.one(type="move", move=move, id=1)
    assert moved["type"] == "moved" and moved["seq"] == 1 and moved["score"] == 499
    undone = (await talk.one(type="undo", id=2))["state"]
    assert undone["moves"] == 0 and undone["seq"] == 2 and not undone["can_undo"]
    await talk.one(type="move", move=move, id=3)
    restarted = (await talk.one(type="restart", id=4))["state"]
    assert restarted["moves"] == 0 and restarted["seq"] == 4
    assert talk.session.game is not None
    assert talk.session.game.actions == [move, "undo", move, "restart"]


async def test_placement_help_comes_with_states_and_moves_when_hello_asks(hub: Hub) -> None:
    code = "SS1-S4-AAAAABD"
    plain = await signed_in(hub, "erin")
    state = (await plain.one(type="start", mode="practice", code=code))["state"]
    assert "legal" not in state  # a client that did not ask gets what it always got
    assert "legal" not in await plain.one(type="move", move=first_legal(code))
    talk = Talk(hub)
    assert (await talk.one(type="hello", legal=True))["type"] == "welcome"
    await talk.one(type="register", name="frank")
    state = (await talk.one(type="start", mode="practice", code=code))["state"]
    engine = Game.from_code(code)
    assert state["legal"][3] == [[6, 10]]  # 3C of column 4 onto 4C or 4D
    assert state["legal"] == [
        [[t + 1 for t in engine.targets(s, n)] for n in range(1, engine.movable_count(s) + 1)]
        for s in range(10)
    ]
    moved = await talk.one(type="move", move="4-6", id=1)
    engine.play("4-6")
    # column 6 now ends 4C 3C: the 3C onto the 4D of column 10, the pair nowhere
    assert moved["legal"][5] == [[t + 1 for t in engine.targets(5, n)] for n in (1, 2)]
    assert moved["legal"][5] == [[10], []]
    assert (await talk.one(type="undo", id=2))["state"]["legal"] == state["legal"]
    (_, finished) = await talk(type="resign", id=3)
    assert finished["type"] == "finished"
    (resumed, _) = await talk(type="resume", game=state["game"])
    assert resumed["state"]["finished"] and "legal" not in resumed["state"]


async def test_illegal_and_malformed_moves_change_nothing(hub: Hub) -> None:
    talk = await signed_in(hub, "carol")
    await talk.one(type="start", mode="practice", code="SS1-S1-AAAAAAA")
    game = talk.session.game
    assert game is not None
    before = game.engine.snapshot()
    bad = await talk.one(type="move", move="banana", id=1)
    assert bad["code"] == ErrorCode.BAD_MOVE
    illegal = await talk.one(type="move", move="3-3", id=2)
    assert illegal["code"] == ErrorCode.ILLEGAL_MOVE and illegal["rule"] == "same-column"
    assert illegal["message"] == "A card must move to another column."
    assert (await talk.one(type="undo", id=3))["rule"] == "nothing-to-undo"
    assert game.engine.snapshot() == before and game.seq == 0 and game.actions == []


async def test_a_resent_move_id_is_answered_again_not_applied_twice(hub: Hub) -> None:
    talk = await signed_in(hub, "dave")
    await talk.one(type="start", mode="practice", code="SS1-S4-AAAAABD")
    move = first_legal("SS1-S4-AAAAABD")
    first = await talk.one(type="move", move=move, id="m1")
    again = await talk.one(type="move", move=move, id="m1")
    assert again == first
    assert talk.session.game is not None and talk.session.game.engine.moves == 1


async def test_a_move_resent_with_other_spaces_or_case_is_answered_not_played(
    hub: Hub,
) -> None:
    talk = await signed_in(hub, "ola")
    await talk.one(type="start", mode="practice", code="SS1-S4-AAAAABD")
    first = await talk.one(type="move", move="4-6x1", id="a")  # column 4's 3C onto a 4C
    # with spaces, with a capital X: the same text of a move, the same answer
    for spelling in (" 4 - 6x1 ", "4-6X1", "4 -6 x 1"):
        assert await talk.one(type="move", move=spelling, id="a") == first
    game = talk.session.game
    assert game is not None and game.engine.moves == 1 and game.seq == 1
    # the same id asking for something else is played: a client counting its ids afresh
    assert (await talk.one(type="undo", id="a"))["state"]["seq"] == 2


async def test_a_resent_move_is_made_again_from_what_it_did_with_the_help_if_still_last(
    hub: Hub,
) -> None:
    talk = Talk(hub)
    await talk.one(type="hello", legal=True)
    await talk.one(type="register", name="dora")
    code = "SS1-S4-AAAAABD"
    await talk.one(type="start", mode="practice", code=code)
    first_move = first_legal(code)
    first = await talk.one(type="move", move=first_move, id=1)
    assert "legal" in first
    assert await talk.one(type="move", move=first_move, id=1) == first  # still the last
    second_move = first_legal(code, [first_move])
    second = await talk.one(type="move", move=second_move, id=2)
    # an older one: the same figures, and no placement help (the board has moved on)
    older = await talk.one(type="move", move=first_move, id=1)
    assert older == {key: value for key, value in first.items() if key != "legal"}
    assert await talk.one(type="move", move=second_move, id=2) == second
    game = talk.session.game
    assert game is not None and game.engine.moves == 2


async def test_unknown_practice_code_is_refused(hub: Hub) -> None:
    talk = await signed_in(hub, "erin")
    reply = await talk.one(type="start", mode="practice", code="SS1-S3-AAAAAAA", id=1)
    assert reply["code"] == ErrorCode.BAD_CODE
    assert (await talk.one(type="move", move="1-2"))["code"] == ErrorCode.NO_GAME


async def test_the_daily_is_the_first_proven_candidate_and_one_attempt(hub: Hub) -> None:
    talk = await signed_in(hub, "fay")
    state = (await talk.one(type="start", suits=2))["state"]
    assert state["code"] == next(candidate_codes(SECRET, hub.today(), 2))
    assert state["mode"] == "daily" and state["day"] == "2026-03-01"
    resumed = (await talk.one(type="start", suits=2))["state"]
    assert resumed["game"] == state["game"]
    replies = await talk(type="resign", id=7)
    assert [r["type"] for r in replies] == ["state", "finished"]
    assert replies[1]["resigned"] and replies[1]["rank"] == 1 and "par" not in replies[1]
    again = await talk.one(type="start", suits=2, id=8)
    assert again["code"] == ErrorCode.ALREADY_PLAYED


async def test_starting_the_same_daily_twice_then_leaving_lets_go_of_it(hub: Hub) -> None:
    talk = await signed_in(hub, "rex")
    game_id = (await talk.one(type="start", suits=1))["state"]["game"]
    await talk.one(type="start", suits=1)
    await talk.one(type="resume", game=game_id)
    assert game_id in hub.live
    await talk.session.close()
    assert game_id not in hub.live


async def test_the_daily_clock_runs_from_the_first_start(hub: Hub) -> None:
    clock = hub.clock
    assert isinstance(clock, ManualClock)
    talk = await signed_in(hub, "gus")
    await talk.one(type="start", suits=1)
    clock.advance(seconds=90)
    await talk.session.close()
    talk2 = Talk(hub)
    talk2.session.player = talk.session.player
    state = (await talk2.one(type="start", suits=1))["state"]
    assert state["elapsed"] == 90.0


async def test_par_is_shown_once_the_day_is_over(hub: Hub) -> None:
    clock = hub.clock
    assert isinstance(clock, ManualClock)
    talk = await signed_in(hub, "hal")
    game_id = (await talk.one(type="start", suits=4))["state"]["game"]
    clock.advance(days=1)
    state = (await talk.one(type="resume", game=game_id))["state"]
    assert state["par"] == 42
    info = await talk.one(type="daily")
    # a day's three deals are made together, when the first is asked for
    assert {d["suits"]: d.get("par") for d in info["yesterday"]} == {1: 42, 2: 42, 4: 42}
    assert all("par" not in d for d in info["deals"])


def digests(talk: Talk) -> list[dict[str, Any]]:
    return [frame for frame in talk.pushed if frame["type"] == "race_digest"]


async def test_followers_get_a_digest_a_second_not_every_move(hub: Hub) -> None:
    clock = hub.clock
    assert isinstance(clock, ManualClock)
    alice = Talk(hub)  # a bot: its result is ranked at once, never held for review
    await alice.one(type="register", name="alice", bot=True)
    bob = await signed_in(hub, "bob")
    code = (await alice.one(type="start", suits=1))["state"]["code"]
    standings = await bob.one(type="race", suits=1, id=1)
    assert [(p["player"], p["rank"]) for p in standings["players"]] == [("alice", 1)]
    assert (standings["total"], standings["playing"], standings["finished"]) == (1, 1, 0)
    move = first_legal(code)
    for _ in range(5):
        await alice.one(type="move", move=move)
        await alice.one(type="undo")
    await alice.one(type="move", move=move)
    await hub.standings.flush()
    assert digests(bob) == []  # nothing before the second is over
    clock.advance(seconds=1)
    (digest,) = digests(bob)  # eleven actions, one frame
    assert [(p["player"], p["moves"]) for p in digest["players"]] == [("alice", 1)]
    clock.advance(seconds=5)
    assert len(digests(bob)) == 1  # nothing changed: nothing sent
    await alice(type="resign")
    await hub.standings.flush()
    clock.advance(seconds=0)  # after a quiet second, a change goes out at once
    assert len(digests(bob)) == 2
    last = digests(bob)[-1]
    assert (last["playing"], last["finished"]) == (0, 1) and last["players"][0]["resigned"]


async def test_a_digest_shows_the_leaders_and_the_rows_around_ones_own(hub: Hub) -> None:
    clock = hub.clock
    assert isinstance(clock, ManualClock)
    racers = [await signed_in(hub, f"r{n:02}") for n in range(20)]
    for talk in racers:
        await talk.one(type="start", suits=1)
    last = racers[-1]  # everyone has the same figures: by name, r19 is last
    standings = await last.one(type="race", suits=1)
    ranks = [p["rank"] for p in standings["players"]]
    assert ranks == [*range(1, TOP_ROWS + 1), *range(20 - AROUND_ROWS, 21)]
    assert standings["players"][-1]["player"] == "r19" and standings["total"] == 20
    await racers[0](type="resign")  # a change: the next digest goes out
    await hub.standings.flush()
    clock.advance(seconds=1)
    (digest,) = digests(last)
    assert digest["players"][-1]["player"] == "r19" and len(digest["players"]) == len(ranks)
    (leader_digest,) = digests(racers[1])
    assert len(leader_digest["players"]) == TOP_ROWS  # near the top: the leaders suffice


async def test_a_new_day_is_announced(hub: Hub) -> None:
    talk = await signed_in(hub, "ivy")
    clock = hub.clock
    assert isinstance(clock, ManualClock)
    assert not await hub.days.check_day()
    clock.advance(days=1)
    assert await hub.days.check_day()
    (changed,) = [e for e in talk.pushed if e["type"] == "daily_changed"]
    assert changed["day"] == "2026-03-02" and len(changed["deals"]) == 3
    assert all(set(deal) == {"suits"} for deal in changed["deals"])  # no codes for today
    # yesterday's deals (made when a start or a `daily` asked for them) are public now
    assert changed["yesterday"] == []  # none was asked for in this hub


async def test_every_action_is_in_the_log_before_its_reply(hub: Hub) -> None:
    store = fake_store(hub)
    clock = hub.clock
    assert isinstance(clock, ManualClock)
    talk = await signed_in(hub, "jo")
    game_id = (await talk.one(type="start", mode="practice", code="SS1-S1-AAAAAAA"))["state"][
        "game"
    ]
    move = first_legal("SS1-S1-AAAAAAA")
    await talk.one(type="move", move=move, id="a")
    assert [(e.seq, e.action, e.request) for e in store.logs[game_id]] == [(1, move, move)]
    clock.advance(seconds=2.5)
    await talk.one(type="undo", id="b")
    await talk.one(type="restart")
    logged = store.logs[game_id]
    assert [e.action for e in logged] == [move, "undo", "restart"]
    assert [e.request_id for e in logged] == ['"a"', '"b"', None]
    assert logged[1].at_ms - logged[0].at_ms == 2500  # the server's clock, in milliseconds
    replies = await talk(type="resign", id=9)
    assert [r["type"] for r in replies] == ["state", "finished"]
    assert [e.action for e in store.logs[game_id]][-1] == "resign"
    assert store.games[game_id].resigned and store.games[game_id].finished_at is not None


async def test_a_log_that_fails_refuses_the_action_and_changes_nothing(hub: Hub) -> None:
    store = fake_store(hub)
    talk = await signed_in(hub, "lou")
    game_id = (await talk.one(type="start", mode="practice", code="SS1-S1-AAAAAAA"))["state"][
        "game"
    ]
    move = first_legal("SS1-S1-AAAAAAA")
    await talk.one(type="move", move=move, id=1)
    game = talk.session.game
    assert game is not None
    before = game.engine.snapshot()
    store.writer.failing = True
    for message in (
        {"type": "move", "move": first_legal("SS1-S1-AAAAAAA", [move]), "id": 2},
        {"type": "undo", "id": 3},
        {"type": "restart", "id": 4},
        {"type": "resign", "id": 5},
    ):
        reply = await talk.one(**message)
        assert reply["code"] == ErrorCode.UNAVAILABLE and reply["id"] == message["id"]
        assert game.engine.snapshot() == before and game.seq == 1 and not game.finished
    store.writer.failing = False
    # a resend after the outage is played once
    moved = await talk.one(type="move", move=first_legal("SS1-S1-AAAAAAA", [move]), id=2)
    assert moved["type"] == "moved" and moved["seq"] == 2
    assert [e.seq for e in store.logs[game_id]] == [1, 2]


async def test_an_unavailable_move_that_was_logged_after_all_is_not_played_again(
    hub: Hub,
) -> None:
    store = fake_store(hub)
    talk = await signed_in(hub, "lea")
    code = "SS1-S4-AAAAABD"
    game_id = (await talk.one(type="start", mode="practice", code=code))["state"]["game"]
    moves: list[str] = []
    for _ in range(REPLAY_MEMORY + 4):
        moves.append(first_legal(code, moves))
    store.writer.lost_acks = 1  # the first move's commit lands, its answer does not
    assert (await talk.one(type="move", move=moves[0], id=1))["code"] == ErrorCode.UNAVAILABLE
    for number, move in enumerate(moves[1:], 2):  # sent on meanwhile: played after it
        assert (await talk.one(type="move", move=move, id=number))["seq"] == number
    # the refused move sent again, with its id, more than 8 actions later
    again = await talk.one(type="move", move=moves[0], id=1)
    assert again["type"] == "moved" and again["seq"] == 1 and again["move"] == moves[0]
    assert [entry.action for entry in store.logs[game_id]] == moves


async def test_a_win_is_logged_with_its_result_in_one_commit(hub: Hub) -> None:
    store = fake_store(hub)
    talk = await signed_in(hub, "max")
    state = (await talk.one(type="start", suits=1))["state"]
    game = talk.session.game
    assert game is not None
    # one move from the win: play a solved line but the last move
    solution = solved_line(state["code"])
    for move in solution[:-1]:
        assert (await talk.one(type="move", move=move))["type"] == "moved"
    batches = len(store.writer.batches)
    replies = await talk(type="move", move=solution[-1], id="win")
    assert [r["type"] for r in replies] == ["moved", "finished"]
    assert replies[0]["won"] and replies[1]["won"]
    assert store.writer.batches[batches:] == [2]  # the move and the end, one commit
    assert [e.action for e in store.logs[state["game"]][-2:]] == [solution[-1], "won"]
    # the solver's line in no time at all, from a human account: held for review, unranked
    assert replies[1]["review"] == "held" and "rank" not in replies[1]
    screened = store.screenings[state["game"]]
    assert screened.status == "held" and screened.reasons  # (no solver line known here)
    assert not store.ranked


async def test_actions_of_many_games_share_one_commit(hub: Hub) -> None:
    store = fake_store(hub)
    talks = [await signed_in(hub, f"group{i}") for i in range(5)]
    code = "SS1-S1-AAAAAAA"
    for talk in talks:
        await talk.one(type="start", mode="practice", code=code)
    batches = len(store.writer.batches)
    move = first_legal(code)
    replies = await asyncio.gather(*(talk.one(type="move", move=move) for talk in talks))
    assert all(reply["type"] == "moved" for reply in replies)
    assert store.writer.batches[batches:] == [5]


async def test_resume_from_the_log_keeps_seq_and_resent_ids(hub: Hub) -> None:
    talk = await signed_in(hub, "kim")
    game_id = (await talk.one(type="start", mode="practice", code="SS1-S1-AAAAAAB"))["state"][
        "game"
    ]
    move = first_legal("SS1-S1-AAAAAAB")
    first = await talk.one(type="move", move=move, id=11)
    await talk.session.close()
    assert game_id not in hub.live
    talk2 = Talk(hub)
    talk2.session.player = talk.session.player
    state = (await talk2.one(type="resume", game=game_id, seq=1))["state"]
    assert state["seq"] == 1 and state["moves"] == 1
    assert await talk2.one(type="move", move=move, id=11) == first


async def test_a_client_counting_ids_afresh_is_not_taken_for_a_resend(hub: Hub) -> None:
    talk = await signed_in(hub, "nia")
    code = (await talk.one(type="start", suits=1))["state"]["code"]
    first = first_legal(code)
    await talk.one(type="move", move=first, id=1)
    await talk.one(type="undo", id=2)
    await talk.session.close()
    again = Talk(hub)  # a new client process: ids from 1 again, the daily taken up by start
    again.session.player = talk.session.player
    await again.one(type="start", suits=1, id=1)
    assert (await again.one(type="move", move=first, id=1))["seq"] == 3
    assert (await again.one(type="undo", id=2))["state"]["seq"] == 4


async def test_someone_elses_game_cannot_be_resumed(hub: Hub) -> None:
    owner = await signed_in(hub, "lee")
    game_id = (await owner.one(type="start", mode="practice"))["state"]["game"]
    thief = await signed_in(hub, "max")
    assert (await thief.one(type="resume", game=game_id))["code"] == ErrorCode.NOT_FOUND


def test_a_game_remembers_the_replies_to_its_last_eight_ids() -> None:
    game = PlayerGame(
        id="g", player_id=1, player_name="p", mode="practice", code="SS1-S1-AAAAAAA",
        day=None, started_at=datetime(2026, 1, 1, tzinfo=UTC), writer=FakeStore(),
    )  # fmt: skip
    for n in range(REPLAY_MEMORY + 2):
        game.replies.remember(n, "1-2", [Pong(id=n, server_time=f"reply {n}")])
    assert game.replies.answered(0, "1-2") is None and game.replies.answered(1, "1-2") is None
    remembered = game.replies.answered(2, "1-2")
    assert remembered is not None and remembered.replies == (Pong(id=2, server_time="reply 2"),)
    assert game.replies.answered(None, "1-2") is None
    assert game.replies.answered(2, "3-4") is None  # the same id asking for another move
    assert len(game.replies) == REPLAY_MEMORY == 8


async def test_a_copy_left_behind_on_another_node_plays_against_the_true_game() -> None:
    store = FakeStore()  # one database, two nodes
    clock = ManualClock(datetime(2026, 3, 1, 10, 0, tzinfo=UTC))
    node_a, node_b = (
        Hub(
            store=store,
            bus=InProcessBus(),
            clock=clock,
            secret=SECRET,
            prover=fixed_prover(),
            race_store=NoRaceRooms(),  # type: ignore[arg-type]
            social_store=NoSocial(),  # type: ignore[arg-type]
        )
        for _ in range(2)
    )
    code = "SS1-S1-AAAAAAB"
    on_a = await signed_in(node_a, "nia")
    game_id = (await on_a.one(type="start", mode="practice", code=code))["state"]["game"]
    first = first_legal(code)
    await on_a.one(type="move", move=first)
    on_b = Talk(node_b)
    on_b.session.player = on_a.session.player
    await on_b.one(type="resume", game=game_id)
    second = first_legal(code, [first])
    assert (await on_b.one(type="move", move=second))["seq"] == 2
    # node A still holds the game at seq 1: a move legal only after seq 2 is not refused
    third = first_legal(code, [first, second])
    moved = await on_a.one(type="move", move=third)
    assert moved["type"] == "moved" and moved["seq"] == 3
    assert [e.action for e in store.logs[game_id]] == [first, second, third]
    for hub in (node_a, node_b):
        await hub.close()
    await store.close()


# -- the daily deal is revealed at start --------------------------------------------------


async def test_an_unfinished_daily_is_closed_when_its_day_ends(hub: Hub) -> None:
    clock = hub.clock
    assert isinstance(clock, ManualClock)
    here, gone = await signed_in(hub, "max"), await signed_in(hub, "ned")
    code = (await here.one(type="start", suits=1))["state"]["code"]
    await here.one(type="move", move=first_legal(code))
    away = (await gone.one(type="start", suits=1))["state"]["game"]
    await gone.session.close()  # not held by the hub any more: closed from the store
    watcher = await signed_in(hub, "oz")
    await watcher.one(type="race", suits=1)
    day_end = datetime.combine(hub.today() + timedelta(days=1), time(0), UTC)
    clock.advance(days=1)
    assert await hub.days.check_day()
    store = fake_store(hub)
    for game_id, moves in ((here.session.game.id, 1), (away, 0)):  # type: ignore[union-attr]
        record = await store.get_game(game_id)
        assert record is not None and record.finished_at == day_end  # as it stood then
        assert (record.won, record.resigned, record.moves) == (False, False, moves)
        assert store.logs[game_id][-1].action == "closed"
    refused, closed = await here(type="move", move="1-2")  # closed by the day's end
    assert refused["code"] == ErrorCode.DAY_OVER and closed["state"]["finished"]
    await hub.standings.flush()
    clock.advance(seconds=1)
    last = digests(watcher)[-1]  # the race's last word
    assert sorted(p["player"] for p in last["players"] if p["finished"]) == ["max", "ned"]


# -- bot accounts ----------------------------------------------------------------------


async def test_bots_register_as_bots_play_on_their_own_board_and_are_marked(hub: Hub) -> None:
    human = await signed_in(hub, "pat")
    bot = Talk(hub)
    registered = await bot.one(type="register", name="robo", bot=True)
    assert registered["player"]["bot"] is True
    assert (await human.one(type="hello"))["player"]["bot"] is False
    again = await Talk(hub).one(type="auth", token=registered["token"])
    assert again["player"]["bot"] is True  # for good
    await human.one(type="race", suits=1)
    await bot.one(type="start", suits=1)
    await hub.standings.flush()
    clock = hub.clock
    assert isinstance(clock, ManualClock)
    clock.advance(seconds=1)
    (digest,) = digests(human)
    assert [(p["player"], p["bot"]) for p in digest["players"]] == [("robo", True)]
    await human.one(type="start", suits=1)
    for talk in (bot, human):
        await talk(type="resign")
    standings = await human.one(type="race", suits=1)
    assert {p["player"]: p["bot"] for p in standings["players"]} == {"robo": True, "pat": False}
    humans = await human.one(type="leaderboard", suits=1)
    bots = await human.one(type="leaderboard", suits=1, board="bots")
    assert (humans["board"], [r["player"] for r in humans["rows"]]) == ("humans", ["pat"])
    assert (bots["board"], [(r["player"], r["bot"]) for r in bots["rows"]]) == (
        "bots",
        [("robo", True)],
    )
    assert "rank" not in await human.one(type="rank", suits=1, player="robo")  # no result there
    assert (await human.one(type="rank", suits=1, player="robo", board="bots"))["rank"] == 1
    history = await bot.one(type="history")
    assert [game["rank"] for game in history["games"]] == [1]  # ranked on the bots' board


def test_every_client_message_has_one_case_in_the_dispatch() -> None:
    """``mypy`` holds the dispatch to every message (it ends in ``assert_never``); this holds
    it to one ``case`` a message, in the one ``match``."""
    union = get_args(ClientMessage)[0]  # Annotated[Union[...], discriminator]
    models = {model.__name__ for model in get_args(union)}
    tree = ast.parse(inspect.getsource(session_module))
    (answer,) = (
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.AsyncFunctionDef) and node.name == "_answer"
    )
    (match,) = (node for node in ast.walk(answer) if isinstance(node, ast.Match))
    *cases, last = match.cases
    named = [
        case.pattern.cls.id
        for case in cases
        if isinstance(case.pattern, ast.MatchClass) and isinstance(case.pattern.cls, ast.Name)
    ]
    assert len(named) == len(cases) and sorted(named) == sorted(models)
    assert isinstance(last.pattern, ast.MatchAs) and last.pattern.pattern is None
    assert "assert_never" in ast.unparse(last.body[0])


async def test_an_action_after_midnight_is_refused_day_over_and_closes_the_daily(
    hub: Hub,
) -> None:
    clock = hub.clock
    assert isinstance(clock, ManualClock)
    talk = await signed_in(hub, "owl")
    state = (await talk.one(type="start", suits=2))["state"]
    move = first_legal(state["code"])
    await talk.one(type="move", move=move)
    clock.set(day_end(clock.now().date()))
    for message in ({"type": "resign"}, {"type": "restart"}, {"type": "move", "move": move}):
        refused, closed = await talk(**message, id=3)
        assert refused == {**refused, "type": "error", "id": 3, "code": "day-over"}
        assert closed["type"] == "state" and closed["state"]["finished"]
        assert closed["state"]["moves"] == 1 and not closed["state"]["won"]
    stored = fake_store(hub).games[state["game"]]
    assert stored.finished_at == clock.now() and not stored.resigned  # closed, not resigned
    assert [e.action for e in fake_store(hub).logs[state["game"]]] == [move, "closed"]


async def test_a_start_refused_too_many_follows_changes_nothing(hub: Hub) -> None:
    clock = hub.clock
    assert isinstance(clock, ManualClock)
    registered = await Talk(hub).one(type="register", name="fan")
    followers = [Talk(hub) for _ in range(FOLLOWS_PER_ACCOUNT + 1)]
    for talk in followers:
        await talk.one(type="auth", token=registered["token"])
    for talk in followers[:-1]:
        assert (await talk.one(type="race", suits=1))["type"] == "race"
    late = followers[-1]
    practice = (await late.one(type="start", mode="practice", suits=1))["state"]
    refused = await late.one(type="start", suits=1)
    assert refused["code"] == "too-many-follows"
    assert not [g for g in fake_store(hub).games.values() if g.day is not None]  # no attempt
    assert late.session.game is not None and late.session.game.id == practice["game"]
    clock.advance(seconds=60)
    await followers[0].session.close()
    started = (await late.one(type="start", suits=1))["state"]
    assert started["elapsed"] == 0.0 and started["seq"] == 0  # its clock starts now
