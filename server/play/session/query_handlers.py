"""The conversation's answers to ``daily``, ``race``, ``leaderboard``, ``rank``, ``history``
and ``unfinished`` (the daily, its race and its boards, the player's games:
:mod:`server.play.after.queries`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.protocol import (
    DailyRequest,
    HistoryRequest,
    LeaderboardRequest,
    RaceRequest,
    RankRequest,
    UnfinishedRequest,
)

if TYPE_CHECKING:
    from .conversation import Conversation, Replies


async def daily(conversation: Conversation, message: DailyRequest) -> Replies:
    info = await conversation.hub.queries.daily_info(conversation.player)
    return [info.model_copy(update={"id": message.id})]


async def race(conversation: Conversation, message: RaceRequest) -> Replies:
    day = conversation.hub.today()
    await conversation.follow_daily_race(day, message.suits)  # following needs an account
    standings = await conversation.hub.queries.race_standings(
        message.suits, day, conversation.signed_in_player().name
    )
    return [standings.model_copy(update={"id": message.id})]


async def leaderboard(conversation: Conversation, message: LeaderboardRequest) -> Replies:
    page = await conversation.hub.queries.leaderboard(
        day=message.day,
        suits=message.suits,
        limit=message.limit,
        after=message.after,
        board=message.board,
    )
    return [page.model_copy(update={"id": message.id})]


async def rank(conversation: Conversation, message: RankRequest) -> Replies:
    if message.player is None:
        player = conversation.signed_in_player()
    else:
        player = await conversation.hub.accounts.named(message.player)
    info = await conversation.hub.queries.rank(
        day=message.day,
        suits=message.suits,
        player=player,
        around=message.around,
        board=message.board,
    )
    return [info.model_copy(update={"id": message.id})]


async def history(conversation: Conversation, message: HistoryRequest) -> Replies:
    player = (
        conversation.signed_in_player()
        if message.player is None
        else await conversation.hub.accounts.named(message.player)
    )
    own = conversation.player is not None and conversation.player.id == player.id
    found = await conversation.hub.queries.history(player, message.limit, own=own)
    return [found.model_copy(update={"id": message.id})]


async def unfinished(conversation: Conversation, message: UnfinishedRequest) -> Replies:
    found = await conversation.hub.queries.unfinished(
        conversation.signed_in_player(), message.limit
    )
    return [found.model_copy(update={"id": message.id})]
