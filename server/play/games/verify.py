"""Re-verify stored games: replay each action log with the engine, compare the result."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from server.engine import IllegalMoveError, InvalidCodeError, InvalidMoveError
from server.engine.actions import replay
from server.store import END_ACTIONS, RESIGN, WON, DealtGameStore, GameLog


@dataclass(frozen=True, slots=True)
class Mismatch:
    game_id: str
    player: str
    reason: str


def check_record(logged: GameLog) -> str | None:
    """Why a finished game's stored result is not what its action log gives, or None."""
    record = logged.game
    ends = [entry.seq for entry in logged.entries if entry.action in END_ACTIONS]
    if ends != [len(logged.entries)]:
        return "its action log does not end with exactly one end entry"
    try:
        game = replay(record.code, logged.actions)
    except (IllegalMoveError, InvalidMoveError, InvalidCodeError) as error:
        return f"its actions do not replay: {error}"
    found = {
        "moves": game.moves,
        "score": game.score,
        "removed": game.removed_count,
        "won": game.is_won,
    }
    stored = {
        "moves": record.moves,
        "score": record.score,
        "removed": record.removed,
        "won": record.won,
    }
    wrong = [
        f"{key} stored {stored[key]}, replayed {found[key]}"
        for key in found
        if found[key] != stored[key]
    ]
    if record.won and record.resigned:
        wrong.append("both won and resigned")
    end = logged.entries[-1].action
    if bool(record.resigned) != (end == RESIGN) or bool(record.won) != (end == WON):
        wrong.append(
            f"stored won={record.won} resigned={record.resigned}, but the log ends {end!r}"
        )
    return "; ".join(wrong) or None


async def verify_store(store: DealtGameStore) -> tuple[int, list[Mismatch]]:
    """Check every finished game; return how many were checked and the mismatches.

    A daily game must also have been played on that day's deal, as stored.
    """
    checked = 0
    mismatches: list[Mismatch] = []
    daily_codes: dict[tuple[date, int], str | None] = {}
    async for logged in store.finished_games():
        checked += 1
        record = logged.game
        reason = check_record(logged)
        if record.mode == "daily" and reason is None:
            assert record.day is not None  # the schema ties daily games to a day
            key = (record.day, record.suits)
            if key not in daily_codes:
                deal = await store.get_daily_deal(day=record.day, suits=record.suits)
                daily_codes[key] = None if deal is None else deal.code
            if daily_codes[key] != record.code:
                reason = (
                    f"a daily of {record.day} with {record.suits} suits played on {record.code}, "
                    f"but that day's deal is {daily_codes[key]}"
                )
        if reason is not None:
            mismatches.append(Mismatch(record.id, record.player_name, reason))
    return checked, mismatches
