"""Following players, and the friends' board: you and everyone you follow, on any day.

A follow is one way (as lichess's); a player sees who follows them and may block someone,
which ends their follow and refuses the next. An account follows at most
:data:`MOST_FOLLOWS` players. The friends' board of today, before you finished today's
daily of its suit count, names who of them has finished and shows no score: yours is not
done yet.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.kinds import FriendsBoard
from server.play.accounts import Accounts
from server.play.clock import Clock, utc_day
from server.play.errors import Refused
from server.protocol import ErrorCode
from server.store import GameStore, PlayerRecord
from server.store.social import DayResult, Followed, SocialStore

#: Players an account follows at most.
MOST_FOLLOWS = 500


@dataclass(frozen=True)
class Circle:
    following: list[Followed]
    followers: list[Followed]
    blocked: list[Followed]


@dataclass(frozen=True)
class FriendsResults:
    """A friends' board: its rows, or (today, before yours) only who has finished."""

    rows: list[DayResult]
    finished: list[str] | None = None


class Friends:
    def __init__(
        self, store: SocialStore, games: GameStore, accounts: Accounts, clock: Clock
    ) -> None:
        self._store = store
        self._games = games
        self._accounts = accounts
        self._clock = clock

    async def follow(self, player: PlayerRecord, name: str) -> None:
        other = await self._accounts.named(name)
        outcome = await self._store.follow(
            follower_id=player.id, followed_id=other.id, now=self._clock.now(), most=MOST_FOLLOWS
        )
        match outcome:
            case "self":
                raise Refused(ErrorCode.INVALID_MESSAGE, "you cannot follow yourself")
            case "blocked":
                raise Refused(
                    ErrorCode.BLOCKED,
                    "%(name)s does not let you follow",
                    params={"name": other.name},
                )
            case "too-many":
                raise Refused(
                    ErrorCode.LIMIT_REACHED,
                    "you follow %(most)s players already: unfollow one first",
                    params={"most": MOST_FOLLOWS},
                )

    async def unfollow(self, player: PlayerRecord, name: str) -> None:
        other = await self._accounts.named(name)
        await self._store.unfollow(follower_id=player.id, followed_id=other.id)

    async def block(self, player: PlayerRecord, name: str) -> None:
        other = await self._accounts.named(name)
        if other.id == player.id:
            raise Refused(ErrorCode.INVALID_MESSAGE, "you cannot block yourself")
        await self._store.block(blocker_id=player.id, blocked_id=other.id, now=self._clock.now())

    async def unblock(self, player: PlayerRecord, name: str) -> None:
        other = await self._accounts.named(name)
        await self._store.unblock(blocker_id=player.id, blocked_id=other.id)

    async def circle(self, player: PlayerRecord) -> Circle:
        return Circle(
            await self._store.following_of(player.id),
            await self._store.followers_of(player.id),
            await self._store.blocked_by(player.id),
        )

    async def board(self, board: FriendsBoard) -> FriendsResults:
        rows = await self._store.friends_results(
            viewer_id=board.viewer, day=board.day, suits=board.suits
        )
        if board.day >= utc_day(self._clock.now()) and not await self.finished(board.viewer, board):
            return FriendsResults([], sorted((row.name for row in rows), key=str.casefold))
        return FriendsResults(rows)

    async def finished(self, player_id: int, board: FriendsBoard) -> bool:
        """Whether ``player_id`` finished that day's daily of the board's suit count."""
        attempt = await self._games.daily_attempt(
            player_id=player_id, day=board.day, suits=board.suits
        )
        return attempt is not None and attempt.finished_at is not None
