"""Small builders shared by the store tests."""

from __future__ import annotations

import itertools
import uuid
from datetime import UTC, date, datetime, timedelta

from server.engine import Game
from server.engine.actions import UNDO
from server.store import (
    CLOSED,
    RESIGN,
    WON,
    GameRecord,
    LogEntry,
    PlayerRecord,
    PlayStore,
    Result,
)

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
_days = itertools.count()


def unique_day() -> date:
    """A day no other test of the module uses, so leaderboards start empty."""
    return date(2030, 1, 1) + timedelta(days=next(_days))


def unique_name(prefix: str = "p") -> str:
    return f"{prefix}{uuid.uuid4().hex[:12]}"


async def new_player(
    store: PlayStore, name: str | None = None, *, bot: bool = False
) -> PlayerRecord:
    return await store.create_player(
        name=name or unique_name(), token_hash=uuid.uuid4().hex, now=T0, bot=bot
    )


async def start(
    store: PlayStore,
    player: PlayerRecord,
    *,
    day: date | None = None,
    suits: int = 1,
    game_id: str | None = None,
    started_at: datetime = T0,
) -> GameRecord:
    """A game of ``player`` just started: the daily of ``day``, or practice without one."""
    return await store.start_game(
        game_id=game_id or uuid.uuid4().hex,
        player_id=player.id,
        mode="practice" if day is None else "daily",
        code=f"SS1-S{suits}-AAAAAAB",
        suits=suits,
        day=day,
        started_at=started_at,
    )


async def finished_daily(
    store: PlayStore,
    player: PlayerRecord,
    day: date,
    *,
    score: int,
    elapsed: float,
    finished_at: datetime,
    suits: int = 1,
    game_id: str | None = None,
    removed: int | None = None,
) -> GameRecord:
    """A daily game of ``player`` started and finished with the given result: won when
    ``removed`` is 4 (by default, when the score is above 500)."""
    if removed is None:
        removed = 4 if score > 500 else 0
    game = await start(
        store,
        player,
        day=day,
        suits=suits,
        game_id=game_id,
        started_at=finished_at - timedelta(seconds=elapsed),
    )
    return await finish(
        store,
        game,
        ["1-2"],
        Result(
            won=removed == 4,
            resigned=removed < 4,
            moves=max(0, 900 - score),
            score=score,
            removed=removed,
            elapsed=elapsed,
            finished_at=finished_at,
        ),
    )


def millis(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def entries(
    game: GameRecord, actions: list[str], *, first: int = 1, at: datetime = T0
) -> list[LogEntry]:
    """Log entries of ``actions`` for ``game``, numbered from ``first``."""
    return [LogEntry(game.id, seq, action, millis(at)) for seq, action in enumerate(actions, first)]


async def finish(
    store: PlayStore, game: GameRecord, actions: list[str], result: Result
) -> GameRecord:
    """Log ``actions`` and the game's end with ``result``, as the server does (a human's
    daily passing its fair-play screening); the finished record."""
    end = WON if result.won else RESIGN if result.resigned else CLOSED
    board = game.board if game.bot else None
    await store.append(
        entries(game, [*actions, end], at=result.finished_at), result, ranked_on=board
    )
    if game.held:  # a human's daily: ranked once its screening passes it, as on the server
        await store.record_screening(
            game_id=game.id, held=False, reasons=[], evidence={}, at=result.finished_at
        )
    finished = await store.get_game(game.id)
    assert finished is not None
    if game.held:
        await store.rank_again(finished)
    return finished


async def resigned_long_daily(
    store: PlayStore, *, day: date, actions: int, finished_at: datetime
) -> GameRecord:
    """A new player's daily of ``day`` that took ``actions`` actions (a move and its undo,
    again and again: the longest game costs nothing to make) and was then resigned."""
    player = await new_player(store)
    game = await start(store, player, day=day)
    move = next(Game.from_code(game.code).legal_moves()).text()
    played = [move if n % 2 == 0 else UNDO for n in range(actions)]
    result = Result(
        won=False,
        resigned=True,
        moves=actions,
        score=0,
        removed=0,
        elapsed=600.0,
        finished_at=finished_at,
    )
    return await finish(store, game, played, result)
