"""The conversation's answers to ``day_stats``, ``replay``, ``review``, ``report`` and
``daily_result`` (what comes after a game: :mod:`server.play.after.day`,
:mod:`server.play.after.review`, :mod:`server.play.after.endings`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.play.errors import Refused
from server.play.games.player_game import PlayerGame
from server.protocol import (
    DailyResultRequest,
    DayStatsRequest,
    ErrorCode,
    Queued,
    ReplayRequest,
    Reported,
    ReportRequest,
    ReviewProgress,
    ReviewRequest,
)

if TYPE_CHECKING:
    from .conversation import Conversation, Replies


async def day_stats(conversation: Conversation, message: DayStatsRequest) -> Replies:
    player = conversation.player  # where you stand, signed in, as for rank and history
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

    def progress(news: ReviewProgress) -> None:  # while the solver makes it, how far it got
        conversation.send(news)

    found = await conversation.hub.reviews.review(
        player,
        record,
        deal=deal,
        address=conversation.address,
        waiting=waiting,
        progress=progress,
    )
    return [found.model_copy(update={"id": message.id})]


async def report(conversation: Conversation, message: ReportRequest) -> Replies:
    await conversation.hub.after.report(
        conversation.signed_in_player(), message.game, message.reason
    )
    return [Reported(id=message.id, game=message.game)]


async def daily_result(conversation: Conversation, message: DailyResultRequest) -> Replies:
    """The player's finished daily of a day, told again as its end told it (``finished``,
    with its share text in the connection's language), its rank and streak as of now; the
    game is read, never taken up (nor its race followed)."""
    player = conversation.signed_in_player()
    hub = conversation.hub
    day = message.day or hub.today()
    said = {"suits": message.suits, "day": day.isoformat()}
    record = await hub.store.daily_attempt(player_id=player.id, day=day, suits=message.suits)
    if record is None:
        raise Refused(
            ErrorCode.NOT_FOUND, "you played no %(suits)s-suit daily on %(day)s", params=said
        )
    if record.finished_at is None:
        raise Refused(
            ErrorCode.NOT_FOUND,
            "your %(suits)s-suit daily of %(day)s is not finished: finish it first",
            params=said,
        )
    logged = await hub.store.load_game(record.id)
    assert logged is not None  # it was just read
    game = PlayerGame.from_log(logged, hub.store)
    finished = await hub.endings.finished_message(game, streak_upto=day)
    return [finished.model_copy(update={"id": message.id})]
