"""The conversation's answers to ``day_stats``, ``replay``, ``review`` and ``report`` (what
comes after a game: :mod:`server.play.after.day`, :mod:`server.play.after.review`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.protocol import (
    DayStatsRequest,
    Queued,
    ReplayRequest,
    Reported,
    ReportRequest,
    ReviewRequest,
)

if TYPE_CHECKING:
    from .conversation import Conversation, Replies


async def day_stats(conversation: Conversation, message: DayStatsRequest) -> Replies:
    player = None
    if message.player is not None:
        player = await conversation.hub.accounts.named(message.player)
    stats = await conversation.hub.after.day_stats(
        day=message.day, suits=message.suits, board=message.board, player=player
    )
    return [stats.model_copy(update={"id": message.id})]


async def replay(conversation: Conversation, message: ReplayRequest) -> Replies:
    found = await conversation.hub.after.replay(conversation.player, message.game)
    return [found.model_copy(update={"id": message.id})]


async def review(conversation: Conversation, message: ReviewRequest) -> Replies:
    player = conversation.signed_in_player()  # a review costs the solver's time: an account's
    record = await conversation.hub.after.finished_game(player, message.game)
    deal = await conversation.hub.after.review_deal(record)

    def waiting(position: int) -> None:  # while it waits for the solver, where it stands
        conversation.send(Queued(game=record.id, position=position))

    found = await conversation.hub.reviews.review(
        player, record, deal=deal, address=conversation.address, waiting=waiting
    )
    return [found.model_copy(update={"id": message.id})]


async def report(conversation: Conversation, message: ReportRequest) -> Replies:
    await conversation.hub.after.report(
        conversation.signed_in_player(), message.game, message.reason
    )
    return [Reported(id=message.id, game=message.game)]
