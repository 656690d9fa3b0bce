"""The conversation's answers about friends and leagues: ``follow``, ``unfollow``,
``block``, ``unblock``, ``following``; ``league_new``, ``league_join``, ``league_leave``,
``league_remove``, ``league_hand_over``, ``league_public``, ``league`` and ``leagues``
(:mod:`server.play.social`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from server.kinds import suit_count
from server.play.social import Circle, LeaguePage
from server.protocol import (
    Block,
    Follow,
    FollowedPlayer,
    Following,
    FollowingRequest,
    LeagueDayRow,
    LeagueHandOver,
    LeagueJoin,
    LeagueLeave,
    LeagueMemberInfo,
    LeagueNew,
    LeaguePublic,
    LeagueRemove,
    LeagueRequest,
    Leagues,
    LeaguesRequest,
    LeagueSummary,
    LeagueView,
    MessageId,
    SeasonRow,
    SeasonWinner,
    Unblock,
    Unfollow,
)
from server.store.social import Followed, LeagueRecord

if TYPE_CHECKING:
    from .conversation import Conversation, Replies


def _players(found: list[Followed]) -> list[FollowedPlayer]:
    return [FollowedPlayer(name=f.name, since=f.since.isoformat()) for f in found]


def following_reply(circle: Circle, message_id: MessageId | None) -> Following:
    return Following(
        id=message_id,
        following=_players(circle.following),
        followers=_players(circle.followers),
        blocked=_players(circle.blocked),
    )


async def _circle(conversation: Conversation, message_id: MessageId | None) -> Replies:
    circle = await conversation.hub.friends.circle(conversation.signed_in_player())
    return [following_reply(circle, message_id)]


async def follow(conversation: Conversation, message: Follow) -> Replies:
    await conversation.hub.friends.follow(conversation.signed_in_player(), message.name)
    return await _circle(conversation, message.id)


async def unfollow(conversation: Conversation, message: Unfollow) -> Replies:
    await conversation.hub.friends.unfollow(conversation.signed_in_player(), message.name)
    return await _circle(conversation, message.id)


async def block(conversation: Conversation, message: Block) -> Replies:
    await conversation.hub.friends.block(conversation.signed_in_player(), message.name)
    return await _circle(conversation, message.id)


async def unblock(conversation: Conversation, message: Unblock) -> Replies:
    await conversation.hub.friends.unblock(conversation.signed_in_player(), message.name)
    return await _circle(conversation, message.id)


async def following(conversation: Conversation, message: FollowingRequest) -> Replies:
    return await _circle(conversation, message.id)


def _summary(league: LeagueRecord) -> LeagueSummary:
    return LeagueSummary(
        code=league.code,
        name=league.name,
        owner=league.owner_name,
        suits=suit_count(league.suits),
        members=league.members,
        public=league.public,
    )


async def leagues(conversation: Conversation, message: LeaguesRequest) -> Replies:
    found = await conversation.hub.leagues.of(conversation.signed_in_player())
    return [Leagues(id=message.id, leagues=[_summary(league) for league in found])]


async def _page(
    conversation: Conversation, code: str, message_id: MessageId | None, month: str | None = None
) -> Replies:
    page = await conversation.hub.leagues.page(code, conversation.player, month)
    return [league_view(page, message_id, conversation.hub.public_url or conversation.site)]


def league_view(page: LeaguePage, message_id: MessageId | None, site: str) -> LeagueView:
    """A league's page as the protocol says it (the web's public page shows the same)."""
    league = page.league
    return LeagueView(
        id=message_id,
        code=league.code,
        name=league.name,
        owner=league.owner_name,
        suits=suit_count(league.suits),
        public=league.public,
        invite=f"{site.rstrip('/')}/play?league={league.code}",
        members=[
            LeagueMemberInfo(name=member.name, joined=member.joined_on, streak=streak)
            for member, streak in page.members
        ],
        day=page.day,
        today=[
            LeagueDayRow(
                name=p.result.name,
                place=p.place,
                points=p.points,
                won=p.result.won,
                moves=p.result.moves,
                score=p.result.score,
                removed=p.result.removed,
                elapsed=p.result.elapsed,
            )
            for p in page.today
        ],
        finished_today=page.finished_today,
        month=page.month,
        season=[
            SeasonRow(place=n, name=s.name, points=s.points, days=s.days, wins=s.wins)
            for n, s in enumerate(page.season, start=1)
        ],
        winners=[
            SeasonWinner(month=month, name=s.name, points=s.points) for month, s in page.winners
        ],
    )


async def league(conversation: Conversation, message: LeagueRequest) -> Replies:
    conversation.signed_in_player()
    return await _page(conversation, message.code, message.id, message.month)


async def league_new(conversation: Conversation, message: LeagueNew) -> Replies:
    made = await conversation.hub.leagues.create(
        conversation.signed_in_player(), message.name, message.suits
    )
    return await _page(conversation, made.code, message.id)


async def league_join(conversation: Conversation, message: LeagueJoin) -> Replies:
    joined = await conversation.hub.leagues.join(conversation.signed_in_player(), message.code)
    return await _page(conversation, joined.code, message.id)


async def league_leave(conversation: Conversation, message: LeagueLeave) -> Replies:
    player = conversation.signed_in_player()
    await conversation.hub.leagues.leave(player, message.code)
    found = await conversation.hub.leagues.of(player)
    return [Leagues(id=message.id, leagues=[_summary(league) for league in found])]


async def league_remove(conversation: Conversation, message: LeagueRemove) -> Replies:
    await conversation.hub.leagues.remove(
        conversation.signed_in_player(), message.code, message.name
    )
    return await _page(conversation, message.code, message.id)


async def league_hand_over(conversation: Conversation, message: LeagueHandOver) -> Replies:
    await conversation.hub.leagues.hand_over(
        conversation.signed_in_player(), message.code, message.name
    )
    return await _page(conversation, message.code, message.id)


async def league_public(conversation: Conversation, message: LeaguePublic) -> Replies:
    await conversation.hub.leagues.set_public(
        conversation.signed_in_player(), message.code, message.public
    )
    return await _page(conversation, message.code, message.id)
