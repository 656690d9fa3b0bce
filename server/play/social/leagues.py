"""Private leagues: a name, an invitation code (a room code's 50 bits), members, and each
day's points among them summed into monthly seasons (:mod:`.points`).

Only members see a league, unless its owner made its page public. An account owns at most
:data:`MOST_OWNED` leagues and belongs to at most :data:`MOST_JOINED`; a league holds at
most :data:`MOST_MEMBERS`: every limit counted in the database, so nodes together grant no
more. The owner removes members and may hand the league over; an owner who leaves hands it
first (or, alone in it, ends it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from server.play.accounts import Accounts
from server.play.clock import Clock, utc_day
from server.play.errors import Refused
from server.play.rooms.rules import room_code
from server.protocol import ErrorCode, room_code_form
from server.store import GameStore, PlayerRecord
from server.store.social import DayResult, LeagueRecord, MemberRecord, SocialStore

from .points import Placed, Standing, by_day, month_bounds, month_of, season, streak

#: Leagues an account owns at most, leagues it belongs to, members a league holds.
MOST_OWNED = 5
MOST_JOINED = 20
MOST_MEMBERS = 200
#: Past seasons whose winners a league's page shows, at most.
WINNERS_SHOWN = 12
#: How far back a member's streak is counted.
STREAK_DAYS = 60


@dataclass(frozen=True)
class LeaguePage:
    league: LeagueRecord
    members: list[tuple[MemberRecord, int]]  # each member now, and their streak
    day: date
    today: list[Placed]
    finished_today: list[str] | None  # today before the viewer's own daily: who has
    month: str
    season: list[Standing]
    winners: list[tuple[str, Standing]]  # past seasons' (month, winner), the latest first


class Leagues:
    def __init__(
        self, store: SocialStore, games: GameStore, accounts: Accounts, clock: Clock
    ) -> None:
        self._store = store
        self._games = games
        self._accounts = accounts
        self._clock = clock

    def _today(self) -> date:
        return utc_day(self._clock.now())

    async def create(self, owner: PlayerRecord, name: str, suits: int) -> LeagueRecord:
        name = " ".join(name.split())
        if not name:
            raise Refused(ErrorCode.INVALID_MESSAGE, "a league needs a name")
        made = await self._store.create_league(
            code=room_code(),
            name=name,
            owner_id=owner.id,
            suits=suits,
            now=self._clock.now(),
            most_owned=MOST_OWNED,
            most_joined=MOST_JOINED,
        )
        if made is None:
            raise Refused(
                ErrorCode.LIMIT_REACHED,
                "an account owns at most %(owned)s leagues and is in at most %(joined)s",
                params={"owned": MOST_OWNED, "joined": MOST_JOINED},
            )
        return made

    async def find(self, code: str, viewer: PlayerRecord | None) -> LeagueRecord:
        """The league with ``code``, if ``viewer`` may see it (a member, or it is public)."""
        form = room_code_form(code)
        league = None if form is None else await self._store.league_by_code(form)
        if league is not None and (league.public or await self._is_member(league, viewer)):
            return league
        raise Refused(
            ErrorCode.NO_SUCH_LEAGUE,
            "no league of yours has the code %(code)r",
            params={"code": code.strip()},
        )

    async def _is_member(self, league: LeagueRecord, player: PlayerRecord | None) -> bool:
        if player is None:
            return False
        members = await self._store.league_members(league.id)
        return any(member.player_id == player.id for member in members)

    async def join(self, player: PlayerRecord, code: str) -> LeagueRecord:
        form = room_code_form(code)
        league = None if form is None else await self._store.league_by_code(form)
        if league is None:
            raise Refused(
                ErrorCode.NO_SUCH_LEAGUE,
                "no league has the code %(code)r",
                params={"code": code.strip()},
            )
        outcome = await self._store.join_league(
            league_id=league.id,
            player_id=player.id,
            day=self._today(),
            most_members=MOST_MEMBERS,
            most_joined=MOST_JOINED,
        )
        if outcome == "full":
            raise Refused(
                ErrorCode.LEAGUE_FULL,
                "this league has %(most)s members already",
                params={"most": MOST_MEMBERS},
            )
        if outcome == "too-many":
            raise Refused(
                ErrorCode.LIMIT_REACHED,
                "you are in %(most)s leagues already: leave one first",
                params={"most": MOST_JOINED},
            )
        return league

    async def leave(self, player: PlayerRecord, code: str) -> None:
        league = await self.find(code, player)
        members = await self._store.league_members(league.id)
        if not any(member.player_id == player.id for member in members):
            raise Refused(ErrorCode.NOT_IN_LEAGUE, "you are not in this league")
        if league.owner_id == player.id:
            if len(members) > 1:
                raise Refused(
                    ErrorCode.NOT_LEAGUE_OWNER,
                    "you own this league: hand it over to another member first",
                )
            await self._store.delete_league(league.id)
            return
        await self._store.leave_league(league_id=league.id, player_id=player.id, day=self._today())

    async def _owned(self, owner: PlayerRecord, code: str) -> LeagueRecord:
        league = await self.find(code, owner)
        if league.owner_id != owner.id:
            raise Refused(ErrorCode.NOT_LEAGUE_OWNER, "only the league's owner may do that")
        return league

    async def _member(self, league: LeagueRecord, name: str) -> PlayerRecord:
        other = await self._accounts.named(name)
        if not await self._is_member(league, other):
            raise Refused(
                ErrorCode.NOT_IN_LEAGUE,
                "%(name)s is not in this league",
                params={"name": other.name},
            )
        return other

    async def remove(self, owner: PlayerRecord, code: str, name: str) -> None:
        league = await self._owned(owner, code)
        other = await self._member(league, name)
        if other.id == owner.id:
            raise Refused(ErrorCode.NOT_LEAGUE_OWNER, "hand the league over before you leave it")
        await self._store.leave_league(league_id=league.id, player_id=other.id, day=self._today())

    async def hand_over(self, owner: PlayerRecord, code: str, name: str) -> None:
        league = await self._owned(owner, code)
        other = await self._member(league, name)
        await self._store.set_league_owner(league_id=league.id, owner_id=other.id)

    async def set_public(self, owner: PlayerRecord, code: str, public: bool) -> None:
        league = await self._owned(owner, code)
        await self._store.set_league_public(league_id=league.id, public=public)

    async def of(self, player: PlayerRecord) -> list[LeagueRecord]:
        return await self._store.leagues_of(player.id)

    async def page(
        self, code: str, viewer: PlayerRecord | None, month: str | None = None
    ) -> LeaguePage:
        """The league's page as ``viewer`` sees it (None: the public web page)."""
        league = await self.find(code, viewer)
        today = self._today()
        shown = month or month_of(today)
        first, last = month_bounds(shown)
        oldest_winners = month_bounds(month_of(first - timedelta(days=31 * WINNERS_SHOWN)))[0]
        since = min(first, oldest_winners, today - timedelta(days=STREAK_DAYS))
        until = max(min(last, today), today)
        memberships = await self._store.league_members(league.id, since=since)
        results = await self._store.league_results(
            league.id, suits=league.suits, day_from=since, day_to=until
        )
        placed = by_day(results, memberships)
        todays = placed.get(today, [])
        finished_today = None
        if viewer is None or not await self._finished(viewer, today, league.suits):
            finished_today = sorted((p.result.name for p in todays), key=str.casefold)
            todays = []
        return LeaguePage(
            league=league,
            members=_streaks(memberships, results, today),
            day=today,
            today=todays,
            finished_today=finished_today,
            month=shown,
            season=season({d: rows for d, rows in placed.items() if first <= d <= last}),
            winners=_winners(placed, month_of(today), since),
        )

    async def _finished(self, player: PlayerRecord, day: date, suits: int) -> bool:
        attempt = await self._games.daily_attempt(player_id=player.id, day=day, suits=suits)
        return attempt is not None and attempt.finished_at is not None


def _streaks(
    memberships: list[MemberRecord], results: list[DayResult], today: date
) -> list[tuple[MemberRecord, int]]:
    played: dict[int, set[date]] = {}
    for result in results:
        played.setdefault(result.player_id, set()).add(result.day)
    return [
        (member, streak(played.get(member.player_id, set()), today))
        for member in memberships
        if member.left_on is None
    ]


def _winners(
    placed: dict[date, list[Placed]], current: str, since: date
) -> list[tuple[str, Standing]]:
    months: dict[str, dict[date, list[Placed]]] = {}
    for day, rows in placed.items():
        months.setdefault(month_of(day), {})[day] = rows
    winners = []
    for month in sorted(months, reverse=True):
        if month >= current or month < month_of(since):
            continue
        table = season(months[month])
        if table:
            winners.append((month, table[0]))
    return winners[:WINNERS_SHOWN]
