"""The session's answers to ``daily``, ``race``, ``leaderboard``, ``rank`` and ``history``
(the daily, its race and its boards: :mod:`server.play.after.queries`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from server.protocol import (
    DailyRequest,
    HistoryRequest,
    LeaderboardRequest,
    RaceRequest,
    RankRequest,
    Reply,
)

if TYPE_CHECKING:
    from .session import Session

Replies = list[Reply]


async def daily(session: Session, message: DailyRequest) -> Replies:
    info = await session.hub.queries.daily_info(session.player)
    return [info.model_copy(update={"id": message.id})]


async def race(session: Session, message: RaceRequest) -> Replies:
    day = session.hub.today()
    await session._follow_daily_race(day, message.suits)  # following needs an account
    standings = await session.hub.queries.race_standings(
        message.suits, day, session._signed_in_player().name
    )
    return [standings.model_copy(update={"id": message.id})]


async def leaderboard(session: Session, message: LeaderboardRequest) -> Replies:
    page = await session.hub.queries.leaderboard(
        day=message.day,
        suits=message.suits,
        limit=message.limit,
        after=message.after,
        board=message.board,
    )
    return [page.model_copy(update={"id": message.id})]


async def rank(session: Session, message: RankRequest) -> Replies:
    if message.player is None:
        player = session._signed_in_player()
    else:
        player = await session.hub.accounts.named(message.player)
    info = await session.hub.queries.rank(
        day=message.day,
        suits=message.suits,
        player=player,
        around=message.around,
        board=message.board,
    )
    return [info.model_copy(update={"id": message.id})]


async def history(session: Session, message: HistoryRequest) -> Replies:
    player = (
        session._signed_in_player()
        if message.player is None
        else await session.hub.accounts.named(message.player)
    )
    own = session.player is not None and session.player.id == player.id
    found = await session.hub.queries.history(player, message.limit, own=own)
    return [found.model_copy(update={"id": message.id})]


QUERY_HANDLERS: dict[str, Callable[[Session, Any], Awaitable[Replies]]] = {
    "daily": daily,
    "leaderboard": leaderboard,
    "rank": rank,
    "history": history,
    "race": race,
}
