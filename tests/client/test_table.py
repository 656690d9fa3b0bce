"""Reconciliation of the previewed game with the server's answers, on a scripted connection."""

from __future__ import annotations

from typing import Any

import pytest

from client_cli.table import Notice, OnlineTable, game_from_view
from server.engine import Game, IllegalMoveError, Move, Rule
from server.protocol import (
    AutoMove,
    DailyChanged,
    DailyCode,
    Error,
    ErrorCode,
    Finished,
    MoveRequest,
    RaceDigest,
    RaceEntry,
    RaceStandings,
    Resume,
    Start,
    State,
    TodayDeal,
    Undo,
)
from tests.support.client import CODE, ScriptedConnection, moved, view_of


async def started(mode: str = "practice") -> tuple[OnlineTable, ScriptedConnection, list[Any]]:
    replies: list[Any] = [State(id=1, state=view_of(Game.from_code(CODE), 0, mode=mode))]
    if mode == "daily":
        replies.append(RaceStandings(day="2026-01-02", suits=4, players=[]))
    connection = ScriptedConnection(replies)
    table = OnlineTable(connection)  # type: ignore[arg-type]
    notices: list[Notice | None] = []
    table.listener = notices.append
    await table.start(mode, 4, CODE)  # type: ignore[arg-type]
    return table, connection, notices


async def test_start_sends_start_and_shows_the_servers_game() -> None:
    table, connection, _ = await started()
    assert isinstance(connection.requests[0], Start)
    assert connection.requests[0].code == CODE
    assert table.game == Game.from_code(CODE)
    assert table.seq == 0 and not table.pending


async def test_a_move_is_previewed_at_once_and_confirmed_by_moved() -> None:
    table, connection, _ = await started()
    await table.move(Move.from_text("3-4"))
    assert table.game is not None and table.game.moves == 1  # before any answer
    request = connection.sent[-1]
    assert isinstance(request, MoveRequest) and request.move == "3-4x1"
    assert len(table.pending) == 1

    server = Game.from_code(CODE)
    server.play("3-4")
    table.receive(moved(request.id, server, "3-4x1", 1))
    assert not table.pending
    assert table.confirmed is not None and table.confirmed.position_key() == server.position_key()
    assert table.game.position_key() == server.position_key()
    assert table.seq == 1


async def test_a_confirmed_move_can_be_undone_though_the_start_state_had_nothing_to_undo() -> None:
    table, connection, _ = await started()
    await table.move(Move.from_text("3-4"))
    server = Game.from_code(CODE)
    server.play("3-4")
    table.receive(moved(connection.sent[-1].id, server, "3-4x1", 1))
    assert table.view is not None and not table.view.can_undo  # the start's state said so
    await table.undo()
    assert isinstance(connection.sent[-1], Undo)
    assert table.game is not None and table.game.moves == 0  # previewed at once


async def test_an_illegal_move_is_refused_locally_and_never_sent() -> None:
    table, connection, _ = await started()
    with pytest.raises(IllegalMoveError) as refused:
        await table.move(Move.from_text("1-2"))
    assert refused.value.rule is Rule.NOT_ONE_HIGHER
    assert connection.sent == []


async def test_an_error_rolls_the_preview_back_and_names_the_rule() -> None:
    table, connection, notices = await started()
    await table.move(Move.from_text("3-4"))
    await table.move(Move.from_text("9-1"))
    first, second = connection.sent
    server = Game.from_code(CODE)
    server.play("3-4")
    table.receive(moved(first.id, server, "3-4x1", 1))
    table.receive(
        Error(
            id=second.id,
            code=ErrorCode.ILLEGAL_MOVE,
            message=Rule.NOT_ONE_HIGHER.sentence,  # the server's, in English
            rule=Rule.NOT_ONE_HIGHER.value,
        )
    )
    assert not table.pending
    assert table.game is not None and table.game.position_key() == server.position_key()
    last = notices[-1]
    assert last is not None and last.kind == "refused"
    assert last.rule == Rule.NOT_ONE_HIGHER.value
    assert Rule.NOT_ONE_HIGHER.sentence in last.text and "9-1" in last.text


async def test_the_server_move_wins_over_a_different_preview() -> None:
    table, connection, _ = await started()
    server = Game.from_code(CODE)
    await table.move(Move.from_text("3-4"))
    server.play("3-4")
    table.receive(moved(connection.sent[-1].id, server, "3-4x1", 1))
    await table.auto(8)  # the preview puts A♦ on 2♦ in column 4: its own suit
    assert table.game is not None and table.game.column(3)[-1] == server.column(8)[-1]
    request = connection.sent[-1]
    assert isinstance(request, AutoMove) and request.column == 9
    server.play("9-1x1")  # a different choice: the server's word is final
    table.receive(moved(request.id, server, "9-1x1", 2))
    assert table.game.position_key() == server.position_key()


async def test_a_state_replaces_the_game_and_answers_the_queue_up_to_it() -> None:
    table, connection, _ = await started()
    await table.move(Move.from_text("3-4"))
    await table.undo()
    assert table.game is not None and table.game.moves == 0  # the undo is previewed too
    move, undo = connection.sent
    assert isinstance(undo, Undo)
    server = Game.from_code(CODE)
    server.play("3-4")
    table.receive(moved(move.id, server, "3-4x1", 1))
    server.undo()
    table.receive(State(id=undo.id, state=view_of(server, 2)))
    assert not table.pending
    assert table.seq == 2
    assert table.game.position_key() == server.position_key()


async def test_after_a_reconnect_the_game_resumes_and_unanswered_moves_are_resent() -> None:
    table, connection, _ = await started()
    await table.move(Move.from_text("3-4"))
    await table.move(Move.from_text("9-1"))
    first, second = connection.sent
    # The connection drops: the server had played the first move, the answer was lost.
    server = Game.from_code(CODE)
    server.play("3-4")
    connection.replies.append(State(id=99, state=view_of(server, 1)))
    await table.resume()
    resume = connection.requests[-1]
    assert isinstance(resume, Resume) and resume.game == "g1" and resume.seq == 0
    assert connection.sent[2:] == [first, second]  # the same ids: none is applied twice

    table.receive(moved(first.id, server, "3-4x1", 1))  # answered again, already in the state
    server.play("9-1")
    table.receive(moved(second.id, server, "9-1x1", 2))
    assert not table.pending
    assert table.confirmed is not None and table.confirmed.moves == 2
    assert table.game is not None and table.game.position_key() == server.position_key()


async def test_a_finished_daily_shows_the_rank() -> None:
    table, _, notices = await started("daily")
    table.receive(
        Finished(
            game="g1",
            code=CODE,
            mode="daily",
            won=True,
            resigned=False,
            moves=60,
            score=840,
            removed=4,
            elapsed=100.0,
            finished_at="2026-01-02T10:00:00Z",
            rank=3,
        )
    )
    assert table.finished and table.rank == 3
    last = notices[-1]
    assert last is not None and last.kind == "won" and "rank 3" in last.text


async def test_race_digests_replace_the_standings_and_log_what_changed() -> None:
    table, _, _ = await started("daily")

    def digest(*entries: RaceEntry, total: int) -> RaceDigest:
        finished = sum(entry.finished for entry in entries)
        return RaceDigest(
            day="2026-01-02",
            suits=4,
            players=list(entries),
            total=total,
            playing=total - finished,
            finished=finished,
        )

    bob = RaceEntry(player="bob", moves=12, score=588, removed=1, finished=False, won=False)
    cy = RaceEntry(player="cy", moves=3, score=497, removed=0, finished=False, won=False)
    table.receive(digest(bob, cy, total=40))
    assert set(table.race) == {"bob", "cy"} and table.race_total == 40
    assert list(table.race_log) == []  # first seen: nothing to tell apart
    table.receive(
        digest(
            bob.model_copy(update={"removed": 2, "moves": 30}),
            cy.model_copy(update={"left": True}),
            total=41,
        )
    )
    assert list(table.race_log) == ["bob removed a run (2/4)", "cy left"]
    assert table.race_left == {"cy"} and table.race["bob"].removed == 2
    table.receive(digest(bob.model_copy(update={"finished": True, "resigned": True}), total=41))
    assert table.race_log[-1] == "bob resigned: 588" and set(table.race) == {"bob"}


def test_a_view_becomes_an_engine_game_with_its_moves_and_score() -> None:
    game = Game.from_code(CODE)
    game.play("3-4")
    copy = game_from_view(view_of(game, 1))
    assert copy.position_key() == game.position_key()
    assert (copy.moves, copy.score, copy.suits) == (1, 499, 4)


async def test_moves_made_while_disconnected_wait_for_the_resume() -> None:
    table, connection, _ = await started()
    table._connection_status("reconnecting in 0.5 s")
    assert "reconnecting" in table.status
    await table.move(Move.from_text("3-4"))
    assert connection.sent == []  # held: the dropped socket would lose it
    assert table.game is not None and table.game.moves == 1  # still previewed
    connection.replies.append(State(id=99, state=view_of(Game.from_code(CODE), 0)))
    table._connection_status("connected")
    await table.resume()
    assert [type(message) for message in connection.sent] == [MoveRequest]
    assert table.status == ""
    await table.move(Move.from_text("9-4"))
    assert len(connection.sent) == 2  # sent at once again


async def test_bots_are_marked_in_the_race_log_and_a_new_day_tells_no_codes() -> None:
    table, _, notices = await started("daily")
    robo = RaceEntry(
        player="robo", moves=0, score=500, removed=0, finished=False, won=False, bot=True
    )
    table.receive(RaceDigest(day="2026-01-02", suits=4, players=[robo]))
    done = robo.model_copy(update={"finished": True})
    table.receive(RaceDigest(day="2026-01-02", suits=4, players=[done]))
    assert list(table.race_log) == ["BOT robo finished: 500"]
    table.receive(
        DailyChanged(
            day="2026-01-03",
            deals=[TodayDeal(suits=1), TodayDeal(suits=4)],
            yesterday=[DailyCode(suits=4, code=CODE, par=60)],
        )
    )
    last = notices[-1]
    assert last is not None and "3 January 2026" in last.text and "SS1-" not in last.text
    told = len(notices)
    table.receive(  # the same day again: one of its deals finished being proven
        DailyChanged(day="2026-01-03", deals=[TodayDeal(suits=1), TodayDeal(suits=4)])
    )
    assert len(notices) == told  # a new day is told once
