"""The store's records: copied from rows field by field, a game's result once finished,
and the actions of a log that replay a game."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from server.kinds import DayBoard, Result
from server.store import CLOSED, END_ACTIONS, RESIGN, WON, GameRecord, LogEntry, PlayerRecord
from server.store.records import GameLog, record_of

T0 = datetime(2026, 3, 1, 12, tzinfo=UTC)
T1 = datetime(2026, 3, 1, 12, 5, tzinfo=UTC)

UNFINISHED = GameRecord(
    id="g", player_id=1, player_name="ann", mode="daily", code="SS1-S1-AAAAABD", suits=1,
    day=T0.date(), bot=False, started_at=T0, finished_at=None, won=None, resigned=None,
    moves=None, score=None, removed=None, elapsed=None,
)  # fmt: skip


def test_a_record_copies_the_fields_of_its_source_but_those_given() -> None:
    row = SimpleNamespace(
        id=7,
        name="ann",
        created_at=T0,
        bot=True,
        flagged=False,
        language=None,
        settings=None,
        extra=1,
    )
    assert record_of(PlayerRecord, row) == PlayerRecord(7, "ann", T0, bot=True)
    assert record_of(PlayerRecord, row, name="Ann", flagged=True) == PlayerRecord(
        7, "Ann", T0, bot=True, flagged=True
    )


def test_a_record_of_a_source_missing_a_field_is_refused() -> None:
    with pytest.raises(AttributeError, match="flagged"):
        record_of(PlayerRecord, SimpleNamespace(id=7, name="ann", created_at=T0, bot=False))


def test_an_unfinished_game_has_no_result() -> None:
    assert UNFINISHED.result is None


def test_a_finished_game_has_its_stored_result() -> None:
    finished = dataclasses.replace(
        UNFINISHED, finished_at=T1, won=True, resigned=False, moves=90, score=820, removed=4,
        elapsed=300.5,
    )  # fmt: skip
    assert finished.result == Result(
        won=True, resigned=False, moves=90, score=820, removed=4, elapsed=300.5, finished_at=T1
    )


def test_a_game_closed_before_a_move_reads_as_nothing_done() -> None:
    closed = dataclasses.replace(UNFINISHED, finished_at=T1)  # the columns left empty
    assert closed.result == Result(
        won=False, resigned=False, moves=0, score=0, removed=0, elapsed=0.0, finished_at=T1
    )


def test_a_logs_actions_leave_out_the_entries_that_end_the_game() -> None:
    assert {WON, RESIGN, CLOSED} == END_ACTIONS
    entries = [
        LogEntry("g", seq, action, at_ms=seq * 1000)
        for seq, action in enumerate(["3-7x1", "undo", "restart", "1-2x2", WON], start=1)
    ]
    assert GameLog(UNFINISHED, entries).actions == ["3-7x1", "undo", "restart", "1-2x2"]
    for end in (RESIGN, CLOSED):
        assert GameLog(UNFINISHED, [LogEntry("g", 1, end, at_ms=0)]).actions == []


def test_a_daily_is_on_the_board_its_flags_name() -> None:
    day = T0.date()
    assert UNFINISHED.board == DayBoard(day, 1, "humans")
    assert dataclasses.replace(UNFINISHED, newcomer=True).board == DayBoard(day, 1, "new")
    assert dataclasses.replace(UNFINISHED, bot=True, suits=4).board == DayBoard(day, 4, "bots")
    assert dataclasses.replace(UNFINISHED, mode="practice", day=None).board is None
