"""The session's answers to ``day_stats``, ``replay``, ``review`` and ``report`` (what
comes after a game: :mod:`server.play.after.day`, :mod:`server.play.after.review`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from server.protocol import (
    DayStatsRequest,
    Queued,
    ReplayRequest,
    Reply,
    Reported,
    ReportRequest,
    ReviewRequest,
    encode,
)

if TYPE_CHECKING:
    from .session import Session

Replies = list[Reply]


async def day_stats(session: Session, message: DayStatsRequest) -> Replies:
    player = None
    if message.player is not None:
        player = await session.hub.accounts.named(message.player)
    stats = await session.hub.after.day_stats(
        day=message.day, suits=message.suits, board=message.board, player=player
    )
    return [stats.model_copy(update={"id": message.id})]


async def replay(session: Session, message: ReplayRequest) -> Replies:
    found = await session.hub.after.replay(session.player, message.game)
    return [found.model_copy(update={"id": message.id})]


async def review(session: Session, message: ReviewRequest) -> Replies:
    player = session._signed_in_player()  # a review costs the solver's time: an account's
    record = await session.hub.after.finished_game(player, message.game)
    deal = await session.hub.after.review_deal(record)

    def waiting(position: int) -> None:  # while it waits for the solver, where it stands
        session.push(encode(Queued(game=record.id, position=position)))

    found = await session.hub.reviews.review(
        player, record, deal=deal, address=session.address, waiting=waiting
    )
    return [found.model_copy(update={"id": message.id})]


async def report(session: Session, message: ReportRequest) -> Replies:
    await session.hub.after.report(session._signed_in_player(), message.game, message.reason)
    return [Reported(id=message.id, game=message.game)]


AFTER_HANDLERS: dict[str, Callable[[Session, Any], Awaitable[Replies]]] = {
    "day_stats": day_stats,
    "replay": replay,
    "review": review,
    "report": report,
}
