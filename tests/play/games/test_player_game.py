"""``PlayerGame.play``: an action applied, committed through the game's writer, and told as
an ``Outcome``; put back when the commit fails."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from server.engine import Game, IllegalMoveError, Move
from server.kinds import DayBoard, Result
from server.play.games.player_game import Outcome, PlayerGame
from server.store import LogEntry, StoreUnavailable
from tests.support.servers import first_legal

CODE = "SS1-S1-AAAAAAA"
STARTED = datetime(2026, 1, 1, 12, tzinfo=UTC)


class RecordingWriter:
    def __init__(self) -> None:
        self.appended: list[tuple[list[LogEntry], Result | None]] = []
        self.fail: Exception | None = None

    async def append(
        self,
        entries: Sequence[LogEntry],
        result: Result | None = None,
        *,
        ranked_on: DayBoard | None = None,
    ) -> None:
        if self.fail is not None:
            raise self.fail
        self.appended.append((list(entries), result))


def new_game(writer: RecordingWriter) -> PlayerGame:
    return PlayerGame(
        id="g1", player_id=1, player_name="p", mode="practice", code=CODE, day=None,
        started_at=STARTED, writer=writer,
    )  # fmt: skip


async def test_a_move_is_committed_with_its_request_and_told_as_an_outcome() -> None:
    writer = RecordingWriter()
    game = new_game(writer)
    text = first_legal(CODE)
    outcome = await game.play(Move.from_text(text), STARTED, message_id=7, request=text)
    engine = Game.from_code(CODE)
    applied = engine.push(Move.from_text(text)).text()
    assert outcome == Outcome(
        "move", "g1", 1, applied, False, engine.moves, engine.score, 0, False, None
    )
    assert not outcome.ended and game.seq == 1
    ((entries, result),) = writer.appended
    assert entries == [LogEntry("g1", 1, applied, int(STARTED.timestamp() * 1000), "7", text)]
    assert result is None


async def test_a_failed_commit_puts_the_game_back_and_is_raised() -> None:
    writer = RecordingWriter()
    game = new_game(writer)
    board = game.engine.board_text()
    writer.fail = StoreUnavailable("down")
    with pytest.raises(StoreUnavailable):
        await game.play(Move.from_text(first_legal(CODE)), STARTED)
    assert game.seq == 0 and game.engine.board_text() == board and writer.appended == []
    with pytest.raises(IllegalMoveError):  # nothing to undo: refused, nothing written
        await game.play("undo", STARTED)
    assert game.seq == 0


async def test_a_resignation_ends_the_game_and_commits_its_result() -> None:
    writer = RecordingWriter()
    game = new_game(writer)
    await game.play(Move.from_text(first_legal(CODE)), STARTED)
    undone = await game.play("undo", STARTED)
    assert (undone.kind, undone.applied, undone.seq, undone.ended) == ("undo", "undo", 2, False)
    later = STARTED + timedelta(seconds=90)
    resigned = await game.play("resign", later)
    assert resigned.kind == "resign" and resigned.applied == "resign" and resigned.ended
    assert resigned.result is not None and resigned.result.resigned
    assert resigned.result.elapsed == 90 and game.finished
    entries, result = writer.appended[-1]
    assert [entry.action for entry in entries] == ["resign"] and result == resigned.result
