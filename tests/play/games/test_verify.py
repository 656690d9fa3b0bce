"""Re-verifying stored games: a finished game's stored result against its action log
replayed, and a daily against its day's deal."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime
from functools import cache
from typing import Any, cast

import pytest

from server.engine import Game
from server.play.games.verify import Mismatch, check_record, verify_store
from server.solver import solve
from server.store import RESIGN, WON, DailyDealRecord, GameRecord, LogEntry, PlayStore
from server.store.records import GameLog

CODE = "SS1-S1-AAAAABD"
DAY = date(2026, 3, 1)
T0 = datetime(2026, 3, 1, 12, tzinfo=UTC)


@cache
def winning_line() -> tuple[str, ...]:
    game = Game.from_code(CODE)
    return tuple(game.push(move).text() for move in solve(Game.from_code(CODE)).moves)


def logged(actions: list[str], **stored: object) -> GameLog:
    """A finished daily of ``actions``, stored with the result they make unless ``stored``
    says otherwise."""
    game = Game.from_code(CODE)
    for action in actions:
        if action == "undo":
            game.undo()
        elif action not in (WON, RESIGN):
            game.play(action)
    values: dict[str, Any] = dict(
        won=game.is_won, resigned=actions[-1] == RESIGN, moves=game.moves, score=game.score,
        removed=game.removed_count,
    )  # fmt: skip
    values.update(stored)
    record = GameRecord(
        id="g1", player_id=1, player_name="ann", mode="daily", code=CODE, suits=1, day=DAY,
        bot=False, started_at=T0, finished_at=T0, elapsed=60.0, **values,
    )  # fmt: skip
    entries = [LogEntry("g1", seq, action, at_ms=seq) for seq, action in enumerate(actions, 1)]
    return GameLog(record, entries)


def test_a_won_game_whose_result_its_log_gives_is_no_mismatch() -> None:
    assert check_record(logged([*winning_line(), WON])) is None


def test_a_resigned_game_whose_result_its_log_gives_is_no_mismatch() -> None:
    assert check_record(logged([*winning_line()[:3], "undo", RESIGN])) is None


@pytest.mark.parametrize(
    ("stored", "says"),
    [
        ({"score": 1000}, "score stored 1000, replayed"),
        ({"moves": 1}, "moves stored 1, replayed"),
        ({"removed": 0, "won": False}, "removed stored 0, replayed 4; won stored False"),
    ],
)
def test_a_stored_figure_the_log_does_not_give_is_named(
    stored: dict[str, object], says: str
) -> None:
    reason = check_record(logged([*winning_line(), WON], **stored))
    assert reason is not None and says in reason


def test_a_result_that_contradicts_its_end_entry_is_a_mismatch() -> None:
    reason = check_record(logged([*winning_line()[:3], RESIGN], resigned=False))
    assert reason == "stored won=False resigned=False, but the log ends 'resign'"
    both = check_record(logged([*winning_line(), WON], resigned=True))
    assert both is not None and "both won and resigned" in both


def test_a_log_without_exactly_one_end_entry_last_is_a_mismatch() -> None:
    won = logged([*winning_line(), WON])
    no_end = dataclasses.replace(won, entries=won.entries[:-1])
    two_ends = logged([*winning_line()[:2], RESIGN, RESIGN])
    for log in (no_end, two_ends):
        assert check_record(log) == "its action log does not end with exactly one end entry"


def test_actions_that_do_not_replay_are_a_mismatch() -> None:
    log = logged([*winning_line()[:2], RESIGN])
    broken = [log.entries[0], log.entries[0]._replace(seq=2, action="1-1"), log.entries[2]]
    reason = check_record(dataclasses.replace(log, entries=broken))
    assert reason is not None and reason.startswith("its actions do not replay:")


def renamed(log: GameLog, game_id: str, **changes: Any) -> GameLog:
    return dataclasses.replace(log, game=dataclasses.replace(log.game, id=game_id, **changes))


class Logs:
    """The two reads of a store that verifying uses."""

    def __init__(self, games: list[GameLog], deal: str | None) -> None:
        self.games = games
        self.deal = deal
        self.deal_reads = 0

    async def finished_games(self, *, batch: int = 1000) -> AsyncIterator[GameLog]:
        for game in self.games:
            yield game

    async def get_daily_deal(self, *, day: date, suits: int) -> DailyDealRecord | None:
        self.deal_reads += 1
        return None if self.deal is None else DailyDealRecord(day, suits, self.deal, par=None)


async def test_every_finished_game_is_checked_and_a_daily_on_another_deal_is_a_mismatch() -> None:
    good = logged([*winning_line(), WON])
    practice = renamed(good, "g2", mode="practice", day=None)
    wrong = renamed(logged([*winning_line()[:1], RESIGN], score=0), "g3")
    logs = Logs([good, practice, wrong], CODE)
    checked, mismatches = await verify_store(cast(PlayStore, logs))
    assert checked == 3 and [m.game_id for m in mismatches] == ["g3"]
    assert logs.deal_reads == 1  # one read per day and suit count

    elsewhere = Logs([good, practice], "SS1-S1-AAAAABE")
    checked, mismatches = await verify_store(cast(PlayStore, elsewhere))
    assert checked == 2
    says = f"a daily of {DAY} with 1 suits played on {CODE}, but that day's deal is SS1-S1-AAAAABE"
    assert mismatches == [Mismatch("g1", "ann", says)]
