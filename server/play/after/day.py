"""After the daily: everyone's results of a day, a result's percentile, streak and share
text, replays with who may see them, and players' reports of ranked results.

Who may see a finished game's replay (:meth:`AfterDay.may_see`):

- its owner, always;
- everyone, for a ranked daily once its day is over, and for a race room's game once its
  race is over;
- a held result (off the board for fair-play review, or not screened yet): its owner and
  the reviewers only;
- nobody else, ever, for a daily whose day is not over (its deal is still being played).

A finished game's replay never changes: the node keeps the last ones read (at most
:data:`REPLAY_CACHE_ACTIONS` actions in all), and asks the store only who may see them.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Final, Literal

from server.i18n import gettext, ngettext
from server.i18n.formats import clock
from server.kinds import DayBoard, SuitCount
from server.play.clock import Clock, utc_day
from server.play.daily.deals import DailySchedule
from server.play.errors import Refused
from server.protocol import (
    Board,
    DayStats,
    ErrorCode,
    MovesBin,
    RemovedCount,
    Replay,
    ReplayStep,
    Streak,
    YouAreHere,
)
from server.store import (
    AfterResultStore,
    DailyDealRecord,
    GameRecord,
    PlayerRecord,
    RaceRecord,
    RaceStore,
    name_key,
)
from server.store.races import OVER

#: Bins of the winners' move counts at most (their width grows to fit).
HISTOGRAM_BINS: Final = 20
#: How long a day's figures are reused (seconds): today's change with every result.
STATS_SECONDS: Final = 5.0
PAST_STATS_SECONDS: Final = 300.0
#: Reports a player may make in a day.
REPORTS_PER_DAY: Final = 10
#: Runs of a deal: 52 cards, 13 to a run.
RUNS: Final = 4
#: Actions of the finished games' replays a node keeps at most (the least recently read
#: go first): a few megabytes.
REPLAY_CACHE_ACTIONS: Final = 100_000


def percentile_of(rank: int, total: int) -> float:
    """The share of a board's ``total`` ranked results that the one at ``rank`` beats or
    ties (itself included), 0 to 100: first of 10 is 100, last of 10 is 10.

    >>> percentile_of(1, 4), percentile_of(4, 4)
    (100.0, 25.0)
    """
    if total <= 0 or not 1 <= rank <= total:
        return 0.0
    return round(100 * (total - rank + 1) / total, 1)


def top_share(rank: int, total: int) -> int:
    """The "top N%" a rank is in (rounded up: first of 3 is the top 34%, never the top 0%)."""
    return max(1, math.ceil(100 * rank / total)) if total else 100


def streak_of(days: Sequence[date], today: date) -> Streak:
    """Runs of consecutive days in ``days`` (sorted, distinct): the current one ends today,
    or yesterday while today's daily may still come; and the best one.

    >>> streak_of([date(2026, 1, 1), date(2026, 1, 2), date(2026, 1, 4)], date(2026, 1, 5))
    Streak(current=1, best=2)
    """
    best = run = 0
    previous: date | None = None
    for day in days:
        if day > today:
            break
        run = run + 1 if previous is not None and (day - previous).days == 1 else 1
        best = max(best, run)
        previous = day
    current = run if previous is not None and (today - previous).days <= 1 else 0
    return Streak(current=current, best=best)


def day_url(base: str, day: date, suits: int, board: Board = "humans") -> str:
    """The day's page, on ``board``: absolute when the server knows its public address."""
    on = "" if board == "humans" else f"&board={board}"
    return f"{base.rstrip('/')}/day/{day.isoformat()}?suits={suits}{on}"


def share_text(
    *,
    day: date,
    suits: int,
    won: bool,
    moves: int,
    removed: int,
    elapsed: float,
    par: int | None,
    rank: int | None,
    total: int,
    streak: Streak | None,
    base_url: str = "",
    board: Board = "humans",
) -> str:
    """A daily's result to share: its day, suit count, outcome, time, standing and streak,
    and the day's page on the result's ``board`` (where a friend finds it). Nothing in it
    gives the deal away: no code, no card, no move.

    >>> print(share_text(day=date(2026, 12, 1), suits=1, won=True, moves=52, removed=8,
    ...     elapsed=187, par=46, rank=18, total=100, streak=Streak(current=5, best=5)))
    Simple Simon 2026-12-01 · 1 suit · won in 52 moves (par 46) · 3:07 · top 18% · 5 days in a row
    /day/2026-12-01?suits=1
    """
    # in the language being spoken (the player's), each count with its plural form
    parts = [
        f"Simple Simon {day.isoformat()}",
        ngettext("%(count)s suit", "%(count)s suits", suits) % {"count": suits},
    ]
    if won:
        parts.append(ngettext("won in %(count)s move", "won in %(count)s moves", moves)
                     % {"count": moves})  # fmt: skip
        if par is not None:
            parts[-1] += " " + gettext("(par %(par)s)") % {"par": par}
    else:
        parts.append(gettext("%(removed)s of %(runs)s runs") % {"removed": removed, "runs": RUNS})
    parts.append(clock(elapsed))
    if rank == 1:
        parts.append(gettext("first of %(total)s") % {"total": total})
    elif rank is not None and total:
        parts.append(gettext("top %(percent)s%%") % {"percent": top_share(rank, total)})
    if streak is not None and streak.current > 1:
        parts.append(
            ngettext("%(count)s day in a row", "%(count)s days in a row", streak.current)
            % {"count": streak.current}
        )
    return " · ".join(parts) + "\n" + day_url(base_url, day, suits, board)


def moves_histogram(
    counts: dict[int, int], bins: int = HISTOGRAM_BINS
) -> tuple[list[MovesBin], int]:
    """The winners' move counts in at most ``bins`` bins of one width (a multiple of it
    starts each): the bins from the fewest moves to the most, empty ones included."""
    if not counts:
        return [], 1
    low, high = min(counts), max(counts)
    width = max(1, math.ceil((high - low + 1) / bins))
    first = low - low % width
    found = [0] * ((high - first) // width + 1)
    for moves, count in counts.items():
        found[(moves - first) // width] += count
    return [MovesBin(moves=first + i * width, count=n) for i, n in enumerate(found)], width


class AfterDay:
    """Day statistics, streaks, replays and reports, over the store (a past day's par from
    the daily deals)."""

    def __init__(
        self,
        *,
        store: AfterResultStore,
        clock: Clock,
        daily: DailySchedule,
        rooms: RaceStore | None = None,
        reviewers: frozenset[str] = frozenset(),
    ) -> None:
        self._store = store
        self._clock = clock
        self._daily = daily
        self._rooms = rooms
        #: Account names (``name_key`` form) that may see held results.
        self.reviewers = reviewers
        self._figures: dict[tuple[DayBoard, bool], tuple[float, DayStats]] = {}
        #: Finished games' replays by game id, the least recently read first.
        self._replays: OrderedDict[str, Replay] = OrderedDict()
        self._replay_actions = 0
        #: Replays read from the store (not from those kept) so far.
        self.replay_loads = 0

    def _today(self) -> date:
        return utc_day(self._clock.now())

    # -- a day's results -----------------------------------------------------------------

    async def day_stats(
        self,
        *,
        day: date | None,
        suits: SuitCount,
        board: Board,
        player: PlayerRecord | None = None,
    ) -> DayStats:
        """Everyone's ranked results of a day's board; with ``player``, where they stand."""
        today = self._today()
        day = day or today
        if day > today:
            raise Refused(
                ErrorCode.NOT_FOUND,
                "the board of %(day)s opens on that day",
                params={"day": day.isoformat()},
            )
        on = DayBoard(day, suits, board)
        stats = await self._board_stats(on, over=day < today)
        if player is None:
            return stats
        ranked = await self._store.rank_of(on, player_id=player.id, around=0)
        if ranked.rank is None or not ranked.around:
            return stats
        own = ranked.around[0]
        you = YouAreHere(
            player=own.player,
            rank=ranked.rank,
            won=own.won,
            moves=own.moves,
            removed=own.removed,
            elapsed=round(own.elapsed, 3),
            percentile=percentile_of(ranked.rank, ranked.total),
        )
        return stats.model_copy(update={"you": you})

    async def _board_stats(self, board: DayBoard, *, over: bool) -> DayStats:
        key = (board, over)
        now = self._clock.monotonic()
        cached = self._figures.get(key)
        if cached is not None and cached[0] > now:
            return cached[1]
        figures = await self._store.day_figures(board)
        day, suits = board.day, board.suits
        histogram, width = moves_histogram(figures.winners_moves)
        par: int | None = None
        dealt: Literal[False] | None = None
        if over:
            deal = await self._daily.stored(day, suits)
            par = None if deal is None else deal.par
            dealt = None if deal is not None else False
        stats = DayStats(
            day=day,
            suits=suits,
            board=board.kind,
            finished=figures.finished,
            won=figures.won,
            moves_histogram=histogram,
            bin_width=width,
            not_won=[
                RemovedCount(removed=removed, count=count)
                for removed, count in sorted(figures.not_won.items())
            ],
            time_quartiles=None
            if figures.time_quartiles is None
            else [round(t, 3) for t in figures.time_quartiles],
            par=par,
            dealt=dealt,
        )
        if len(self._figures) > 64:
            self._figures.clear()
        self._figures[key] = (now + (PAST_STATS_SECONDS if over else STATS_SECONDS), stats)
        return stats

    async def streak(self, player_id: int, *, upto: date | None = None) -> Streak:
        """The player's streak as of ``upto`` (None: today): a past day's run ends that day."""
        on = self._today() if upto is None else min(upto, self._today())
        return streak_of(await self._store.daily_days(player_id=player_id), on)

    # -- replays -------------------------------------------------------------------------

    def is_reviewer(self, player: PlayerRecord | None) -> bool:
        return player is not None and name_key(player.name) in self.reviewers

    async def may_see(self, asker: PlayerRecord | None, record: GameRecord) -> bool:
        """Whether ``asker`` (None: anyone) may see this finished game's moves."""
        if asker is not None and asker.id == record.player_id:
            return True
        if record.day is not None and record.held:
            return self.is_reviewer(asker)
        return record.id in await self.public_replays([record])

    def public_day(self, day: date) -> bool:
        """Whether a day's ranked dailies are anyone's to replay: once the day is over."""
        return day < self._today()

    async def public_replays(self, records: Sequence[GameRecord]) -> set[str]:
        """The ids of those of ``records`` (finished games) that anyone may replay: ranked
        dailies of a day that is over, and race room games of a race that is over."""
        public = {
            record.id
            for record in records
            if record.day is not None and not record.held and self.public_day(record.day)
        }
        practice = [record.id for record in records if record.day is None]
        if self._rooms is None or not practice:
            return public
        raced = await self._rooms.places_of(practice)
        over = set()
        for code in {code for code, _ in raced.values()}:
            race = await self._rooms.get(code)
            if race is not None and self.public_race(race):
                over.add(code)
        return public | {game_id for game_id, (code, _) in raced.items() if code in over}

    @staticmethod
    def public_race(race: RaceRecord) -> bool:
        """Whether a race room's games are anyone's to replay: once its race is over."""
        return race.state == OVER

    def race_replays(self, race: RaceRecord) -> dict[str, str]:
        """The ids of a race room's games that anyone may replay, by racer."""
        if not self.public_race(race):
            return {}
        return {racer.name: racer.game_id for racer in race.entrants if racer.game_id is not None}

    async def finished_game(self, asker: PlayerRecord | None, game_id: str) -> GameRecord:
        """A finished game ``asker`` may see; refused ``not-found`` or ``not-visible``."""
        record = await self._store.get_game(game_id)
        if record is None or record.finished_at is None:
            raise Refused(
                ErrorCode.NOT_FOUND, "no finished game %(game)r", params={"game": game_id}
            )
        if not await self.may_see(asker, record):
            raise Refused(
                ErrorCode.NOT_VISIBLE,
                "this game's moves are not public: a daily's once its day is over, a race's "
                "once the race is over",
            )
        return record

    async def replay(self, asker: PlayerRecord | None, game_id: str) -> Replay:
        """A finished game's actions, if ``asker`` may see them (asked of the store each
        time: a result held for review stops being public); the actions themselves from
        those kept when they are."""
        record = await self.finished_game(asker, game_id)
        kept = self._replays.get(record.id)
        if kept is not None:
            self._replays.move_to_end(record.id)
            return kept
        logged = await self._store.load_game(record.id)
        assert logged is not None  # it was just read
        self.replay_loads += 1
        race = None
        if record.day is None and self._rooms is not None:
            found = await self._rooms.race_of_game(record.id)
            race = None if found is None else found.code
        replay = Replay(
            game=record.id,
            code=record.code,
            player=record.player_name,
            suits=record.suits,
            mode=record.mode,
            day=record.day,
            race=race,
            started=round(record.started_at.timestamp() * 1000),
            moves=[
                ReplayStep(seq=entry.seq, action=entry.action, at=entry.at_ms)
                for entry in logged.entries
            ],
        )
        self._keep(replay)
        return replay

    def _keep(self, replay: Replay) -> None:
        if len(replay.moves) > REPLAY_CACHE_ACTIONS or replay.game in self._replays:
            return
        self._replays[replay.game] = replay
        self._replay_actions += len(replay.moves)
        while self._replay_actions > REPLAY_CACHE_ACTIONS:
            _, old = self._replays.popitem(last=False)
            self._replay_actions -= len(old.moves)

    async def review_deal(self, record: GameRecord) -> DailyDealRecord | None:
        """A daily's deal (its par and solver line) for its review, once its day is over;
        before that a daily is not reviewed (the solver's line from the deal would give away
        its par). None for any other game."""
        if record.day is None:
            return None
        if record.day >= self._today():
            raise Refused(ErrorCode.NOT_VISIBLE, "a daily is reviewed once its day is over")
        return await self._daily.stored(record.day, record.suits)

    # -- reports -------------------------------------------------------------------------

    async def report(self, player: PlayerRecord, game_id: str, reason: str) -> None:
        """Keep ``player``'s report of a ranked daily whose day is over: once per result,
        :data:`REPORTS_PER_DAY` a day."""
        reason = reason.strip()
        if not reason:
            raise Refused(ErrorCode.INVALID_MESSAGE, "say in a few words why")
        record = await self._store.get_game(game_id)
        if record is None or record.day is None or record.finished_at is None:
            raise Refused(
                ErrorCode.NOT_FOUND, "no finished daily %(game)r", params={"game": game_id}
            )
        if record.held or record.day >= self._today():
            raise Refused(
                ErrorCode.NOT_VISIBLE,
                "only a ranked result of a day that is over can be reported",
            )
        if record.player_id == player.id:
            raise Refused(ErrorCode.INVALID_MESSAGE, "a player cannot report their own result")
        now = self._clock.now()
        if (
            await self._store.reports_since(player_id=player.id, since=now - timedelta(days=1))
            >= REPORTS_PER_DAY
        ):
            raise Refused(
                ErrorCode.RATE_LIMITED,
                "at most %(most)s reports a day: try tomorrow",
                params={"most": REPORTS_PER_DAY},
            )
        await self._store.report(game_id=record.id, player_id=player.id, reason=reason, at=now)
