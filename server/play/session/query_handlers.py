"""The conversation's answers to ``daily``, ``race``, ``leaderboard``, ``rank``, ``history``
and ``unfinished`` (the daily, its race and its boards, the player's games:
:mod:`server.play.after.queries`; a friends' board: :mod:`server.play.social`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.kinds import FriendsBoard
from server.play.errors import Refused
from server.protocol import (
    DailyRequest,
    ErrorCode,
    HistoryRequest,
    LeaderboardPage,
    LeaderboardRequest,
    LeaderboardRow,
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
    if message.board == "friends":
        return [await _friends_board(conversation, message)]
    page = await conversation.hub.queries.leaderboard(
        day=message.day,
        suits=message.suits,
        limit=message.limit,
        after=message.after,
        board=message.board,
    )
    return [page.model_copy(update={"id": message.id})]


async def _friends_board(
    conversation: Conversation, message: LeaderboardRequest
) -> LeaderboardPage:
    """You and everyone you follow, ranked among yourselves (``after`` and ``limit`` as on
    any board; today, before your own daily is done, only who has finished)."""
    player = conversation.signed_in_player()
    day = message.day or conversation.hub.today()
    found = await conversation.hub.friends.board(FriendsBoard(day, message.suits, player.id))
    rows = [
        LeaderboardRow(
            rank=rank,
            player=row.name,
            score=row.score,
            moves=row.moves,
            elapsed=row.elapsed,
            finished_at=row.finished_at.isoformat(),
            won=row.won,
            removed=row.removed,
        )
        for rank, row in enumerate(found.rows, start=1)
    ]
    start = 0
    if message.after is not None:
        if not message.after.isdigit():
            raise Refused(ErrorCode.BAD_CURSOR, "a leaderboard cursor this server did not give")
        start = int(message.after)
    shown = rows[start : start + message.limit]
    more = start + message.limit < len(rows)
    return LeaderboardPage(
        id=message.id,
        day=day,
        suits=message.suits,
        board="friends",
        rows=shown,
        next=str(start + message.limit) if more else None,
        total=len(rows) if found.finished is None else len(found.finished),
        finished=found.finished,
    )


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
