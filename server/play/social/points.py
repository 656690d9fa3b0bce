"""How a league scores (pure: no I/O).

Each day, the members who finished that day's daily of the league's suit count (a result on
a board, not held for review) are placed among themselves in the day's board order (the
same order, so no two share a place), and the member in place ``p`` of ``n`` earns
``n - p + 1`` points: the day's best among five earns 5, the last 1, who did not play 0. A
season is a calendar month: its table sums each member's points (then days won, then days
played, then name). A member counts on the days they were a member: from the day they
joined, to the day before they left.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from server.store.social import DayResult, MemberRecord


@dataclass(frozen=True)
class Placed:
    result: DayResult
    place: int
    points: int


@dataclass(frozen=True)
class Standing:
    player_id: int
    name: str
    points: int
    days: int
    wins: int


def member_on(spans: Sequence[MemberRecord], day: date) -> bool:
    """Whether one player's memberships (``spans``) hold ``day``."""
    return any(m.joined_on <= day and (m.left_on is None or day < m.left_on) for m in spans)


def by_day(
    results: Iterable[DayResult], memberships: Sequence[MemberRecord]
) -> dict[date, list[Placed]]:
    """Each day's results of those who were members that day, placed and scored.
    ``results`` come in leaderboard order within each day."""
    spans: dict[int, list[MemberRecord]] = defaultdict(list)
    for membership in memberships:
        spans[membership.player_id].append(membership)
    days: dict[date, list[DayResult]] = defaultdict(list)
    for result in results:
        if member_on(spans[result.player_id], result.day):
            days[result.day].append(result)
    return {
        day: [
            Placed(result, place, len(rows) - place + 1)
            for place, result in enumerate(rows, start=1)
        ]
        for day, rows in days.items()
    }


def season(placed: dict[date, list[Placed]]) -> list[Standing]:
    """The season's table, best first."""
    points: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    names: dict[int, str] = {}
    for rows in placed.values():
        for row in rows:
            tally = points[row.result.player_id]
            tally[0] += row.points
            tally[1] += 1
            tally[2] += row.place == 1
            names[row.result.player_id] = row.result.name
    table = [
        Standing(player_id, names[player_id], total, days, wins)
        for player_id, (total, days, wins) in points.items()
    ]
    return sorted(table, key=lambda s: (-s.points, -s.wins, -s.days, s.name.casefold()))


def streak(days_played: set[date], today: date) -> int:
    """Days in a row with a result, up to today (or up to yesterday, today not yet
    played)."""
    day = today if today in days_played else today - timedelta(days=1)
    count = 0
    while day in days_played:
        count += 1
        day -= timedelta(days=1)
    return count


def month_of(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def month_bounds(month: str) -> tuple[date, date]:
    """The first and last day of ``2026-12``."""
    year, number = (int(part) for part in month.split("-"))
    first = date(year, number, 1)
    following = date(year + (number == 12), number % 12 + 1, 1)
    return first, following - timedelta(days=1)
