"""An in-memory stand-in for the Store, for unit tests of sessions only.

Integration tests use the real Store on both backends (the ``backend`` fixture).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from datetime import date, datetime
from typing import Any

from server.engine import GameCode
from server.kinds import DayBoard, Mode
from server.names import look_key, name_key
from server.play.daily.deals import Proof, Prover
from server.store import (
    HELD,
    PASSED,
    QUEUED,
    ActionLog,
    AlreadyReported,
    AttemptExists,
    DailyDealRecord,
    DayFigures,
    FairPlayRecord,
    GameEnd,
    GameInProgress,
    GameLog,
    GameRecord,
    LeaderboardSlice,
    LogEntry,
    NameTaken,
    PlayerHistory,
    PlayerRecord,
    RankResult,
    Result,
    StaleGame,
    StoreUnavailable,
    TrustRecord,
)
from server.store.leaderboard import decode_cursor, encode_cursor, leaderboard_entry
from server.store.lease import Leases, ProcessLeases
from server.store.order import ResultKey

from .fake_accounts import FakeAccounts


class FakeLogWriter:
    """Keeps the log in the fake store, with the real log's rules: a (game, seq) once, a
    result once, all of a batch or nothing. ``failing`` makes every write unavailable;
    ``lost_acks`` writes the next batches but reports them unavailable (commits that landed
    after their timeout)."""

    def __init__(self, store: FakeStore) -> None:
        self.store = store
        self.failing = False
        self.lost_acks = 0
        self.batches: list[int] = []

    async def write(self, entries: Sequence[LogEntry], results: Sequence[GameEnd]) -> None:
        if self.failing:
            raise StoreUnavailable("the fake database is down")
        logs = self.store.logs
        if any(
            (e.game_id, e.seq) in {(x.game_id, x.seq) for x in logs.get(e.game_id, [])}
            for e in entries
        ):
            raise StaleGame("a seq exists")
        if any(self.store.games[end.game_id].finished_at is not None for end in results):
            raise StaleGame("already finished")
        for entry in entries:
            logs.setdefault(entry.game_id, []).append(entry)
        for end in results:
            record = self.store.games[end.game_id]
            self.store.games[end.game_id] = dataclasses.replace(record, **dict(end.result))
        self.batches.append(len(entries))
        if self.lost_acks:
            self.lost_acks -= 1
            raise StoreUnavailable("the fake database took it, but its answer was lost")

    async def close(self) -> None:
        pass


class FakeBoards:
    """The fake's leaderboards (:class:`~server.store.BoardStore`), over its games."""

    games: dict[str, GameRecord]
    #: Results put on a board's rank cache, in order (a bot's at once, one cleared later).
    ranked: list[tuple[str, Result]]

    def _board(self, board: DayBoard | None) -> list[GameRecord]:
        """One leaderboard's results, in the real order (imported, never restated)."""
        done = [
            g
            for g in self.games.values()
            if g.mode == "daily" and g.board == board and g.finished_at and not g.held
        ]
        return sorted(done, key=lambda g: ResultKey.of(g).sort_key())

    async def leaderboard_page(
        self, board: DayBoard, *, limit: int, after: str | None = None
    ) -> LeaderboardSlice:
        found = self._board(board)
        start = 0
        if after is not None:  # the real cursors: a row's key (BadCursor for anything else)
            key = decode_cursor(after).sort_key()
            start = sum(ResultKey.of(g).sort_key() <= key for g in found)
        page = found[start : start + limit]
        more = start + limit < len(found)
        cursor = encode_cursor(ResultKey.of(page[-1])) if more else None
        rows = [leaderboard_entry(start + i + 1, g) for i, g in enumerate(page)]
        return LeaderboardSlice(rows, cursor, len(found))

    async def rank_of(self, board: DayBoard, *, player_id: int, around: int = 5) -> RankResult:
        found = self._board(board)
        for i, g in enumerate(found):
            if g.player_id == player_id:
                near = found[max(0, i - around) : i + around + 1]
                first = max(0, i - around)
                rows = [leaderboard_entry(first + k + 1, h) for k, h in enumerate(near)]
                return RankResult(i + 1, len(found), rows)
        return RankResult(None, len(found), [])

    async def ranks_of(self, game_ids: list[str]) -> dict[str, int]:
        ranks = {}
        for game_id in game_ids:
            g = self.games.get(game_id)
            if g is None or g.day is None:
                continue
            board = [h.id for h in self._board(g.board)]
            if game_id in board:
                ranks[game_id] = board.index(game_id) + 1
        return ranks

    async def place_of(self, record: GameRecord) -> tuple[int, int] | None:
        if record.result is None or record.day is None:
            return None
        board = self._board(record.board)
        others = [g for g in board if g.id != record.id]
        key = ResultKey.of(record).sort_key()
        return sum(ResultKey.of(g).sort_key() < key for g in others) + 1, len(others)

    async def rank_again(self, record: GameRecord) -> None:
        if record.result is not None:
            self.ranked.append((record.id, record.result))


class FakeStore(FakeAccounts, FakeBoards):
    def __init__(self) -> None:
        super().__init__()
        self.players: dict[int, tuple[PlayerRecord, str]] = {}
        self.deals: dict[tuple[date, int], DailyDealRecord] = {}
        self.games: dict[str, GameRecord] = {}
        self.logs: dict[str, list[LogEntry]] = {}
        self.writer = FakeLogWriter(self)
        self.log = ActionLog(self.writer, window=0)
        self.ranked: list[tuple[str, Result]] = []
        self.screenings: dict[str, FairPlayRecord] = {}
        self.reports: dict[tuple[str, int], tuple[str, datetime]] = {}
        self.reviews: dict[str, str] = {}
        self.trusts: dict[int, TrustRecord] = {}
        #: Nodes on one fake store share it, and its leases with it.
        self.leases: Leases = ProcessLeases()

    async def close(self) -> None:
        await self.log.close()

    async def create_player(
        self,
        *,
        name: str,
        token_hash: str,
        now: datetime,
        bot: bool = False,
        label: str = "",
        address: str = "",
    ) -> PlayerRecord:
        holder = next(
            (
                p
                for p, _ in self.players.values()
                if name_key(p.name) == name_key(name) or look_key(p.name) == look_key(name)
            ),
            None,
        )
        if holder is not None:
            raise NameTaken(name, holder=holder.name)
        player = PlayerRecord(id=len(self.players) + 1, name=name, created_at=now, bot=bot)
        self.players[player.id] = (player, token_hash)
        await self.add_credential(
            player_id=player.id,
            kind="registration",
            label=label,
            secret_hash=token_hash,
            now=now,
            address=address,
        )
        return player

    async def player_by_name(self, name: str) -> PlayerRecord | None:
        key = name_key(name)
        return next((p for p, _ in self.players.values() if name_key(p.name) == key), None)

    async def player_by_id(self, player_id: int) -> PlayerRecord | None:
        found = self.players.get(player_id)
        return None if found is None else found[0]

    async def set_language(self, *, player_id: int, language: str) -> None:
        player, token_hash = self.players[player_id]
        self.players[player_id] = (dataclasses.replace(player, language=language), token_hash)

    async def set_settings(self, *, player_id: int, settings: Mapping[str, object]) -> None:
        player, token_hash = self.players[player_id]
        self.players[player_id] = (
            dataclasses.replace(player, settings=dict(settings)),
            token_hash,
        )

    async def get_daily_deal(self, *, day: date, suits: int) -> DailyDealRecord | None:
        return self.deals.get((day, suits))

    async def put_daily_deal(
        self,
        *,
        day: date,
        suits: int,
        code: str,
        par: int | None,
        solution: Sequence[str] | None = None,
    ) -> DailyDealRecord:
        line = None if solution is None else tuple(solution)
        return self.deals.setdefault((day, suits), DailyDealRecord(day, suits, code, par, line))

    async def set_daily_solution(self, *, day: date, suits: int, solution: Sequence[str]) -> None:
        deal = self.deals[(day, suits)]
        if deal.solution is None:
            self.deals[(day, suits)] = dataclasses.replace(deal, solution=tuple(solution))

    async def start_game(
        self,
        *,
        game_id: str,
        player_id: int,
        mode: Mode,
        code: str,
        suits: int,
        day: date | None,
        started_at: datetime,
    ) -> GameRecord:
        if mode == "daily":
            existing = await self.daily_attempt(player_id=player_id, day=day, suits=suits)  # type: ignore[arg-type]
            if existing is not None:
                raise AttemptExists(existing)
        record = GameRecord(
            id=game_id,
            player_id=player_id,
            player_name=self.players[player_id][0].name,
            mode=mode,
            code=code,
            suits=suits,
            day=day,
            bot=self.players[player_id][0].bot,
            started_at=started_at,
            finished_at=None,
            won=None,
            resigned=None,
            moves=None,
            score=None,
            removed=None,
            elapsed=None,
            held=mode == "daily" and not self.players[player_id][0].bot,
        )
        self.games[game_id] = record
        return record

    async def get_game(self, game_id: str) -> GameRecord | None:
        return self.games.get(game_id)

    async def daily_attempt(self, *, player_id: int, day: date, suits: int) -> GameRecord | None:
        return next(
            (
                g
                for g in self.games.values()
                if g.mode == "daily"
                and g.player_id == player_id
                and g.day == day
                and g.suits == suits
            ),
            None,
        )

    async def load_game(self, game_id: str) -> GameLog | None:
        record = self.games.get(game_id)
        return None if record is None else GameLog(record, list(self.logs.get(game_id, [])))

    async def screening(self, game_id: str) -> FairPlayRecord | None:
        return self.screenings.get(game_id)

    async def record_screening(
        self,
        *,
        game_id: str,
        held: bool,
        reasons: Sequence[str],
        evidence: dict[str, Any],
        at: datetime,
        newcomer: bool = False,
    ) -> FairPlayRecord:
        if game_id in self.screenings:
            return self.screenings[game_id]
        record = self.screenings[game_id] = FairPlayRecord(
            game_id, HELD if held else PASSED, list(reasons), evidence, at, None
        )
        self.games[game_id] = dataclasses.replace(
            self.games[game_id], held=record.status == HELD, newcomer=newcomer
        )
        return record

    async def queue_leaders(self, board: DayBoard, *, at: datetime, top: int = 3) -> list[str]:
        queued = []
        for g in self._board(board)[:top]:
            screened = self.screenings.get(g.id)
            if screened is not None and screened.status == PASSED:
                self.screenings[g.id] = dataclasses.replace(screened, status=QUEUED)
                queued.append(g.id)
        return queued

    async def account_dailies(self, *, player_id: int) -> list[tuple[GameRecord, FairPlayRecord]]:
        found = [
            (g, self.screenings[g.id])
            for g in self.games.values()
            if g.player_id == player_id and g.mode == "daily" and g.id in self.screenings
        ]
        return sorted(found, key=lambda pair: (pair[0].day, pair[0].suits, pair[0].id))

    async def trust(self, *, player_ids: list[int]) -> dict[int, TrustRecord]:
        return {i: self.trusts[i] for i in player_ids if i in self.trusts}

    async def put_trust(self, record: TrustRecord) -> None:
        self.trusts[record.player_id] = record

    async def daily_days(self, *, player_id: int, before: date | None = None) -> list[date]:
        return sorted(
            {
                g.day
                for g in self.games.values()
                if g.mode == "daily"
                and g.player_id == player_id
                and g.finished_at
                and g.day is not None
                and (before is None or g.day < before)
            }
        )

    async def unscreened(self) -> list[str]:
        return [
            g.id
            for g in self.games.values()
            if g.mode == "daily" and g.finished_at and g.held and g.id not in self.screenings
        ]

    async def daily_progress(self, *, player_id: int, day: date) -> dict[int, bool]:
        return {
            g.suits: g.finished_at is not None
            for g in self.games.values()
            if g.mode == "daily" and g.player_id == player_id and g.day == day
        }

    async def unfinished_dailies(self, *, before: date) -> list[str]:
        return sorted(
            g.id
            for g in self.games.values()
            if g.mode == "daily" and g.day is not None and g.day < before and not g.finished_at
        )

    async def last_seq(self, game_id: str) -> int:
        return len(self.logs.get(game_id, []))

    async def requests_after(self, game_id: str, after: int) -> list[LogEntry]:
        return [
            entry
            for entry in self.logs.get(game_id, [])
            if entry.seq > after and entry.request_id is not None
        ]

    def append(
        self,
        entries: Sequence[LogEntry],
        result: Result | None = None,
        *,
        ranked_on: DayBoard | None = None,
    ) -> Awaitable[None]:
        return self._append(entries, result, ranked_on)

    async def _append(
        self, entries: Sequence[LogEntry], result: Result | None, ranked_on: DayBoard | None
    ) -> None:
        await self.log.append(entries, result)
        if result is not None and ranked_on is not None:
            self.ranked.append((entries[0].game_id, result))

    async def history(self, *, player_id: int, limit: int = 20) -> PlayerHistory:
        done = [g for g in self.games.values() if g.player_id == player_id and g.finished_at]
        done.sort(key=lambda g: g.finished_at, reverse=True)  # type: ignore[arg-type, return-value]
        best: dict[int, int] = {}
        for g in done:
            best[g.suits] = max(best.get(g.suits, -(10**9)), g.score or 0)
        return PlayerHistory(done[:limit], len(done), sum(bool(g.won) for g in done), best)

    async def games_in_progress(
        self, *, player_id: int, today: date, now: datetime, limit: int = 20
    ) -> list[GameInProgress]:
        # no race rooms here: practice games and today's dailies
        going = [
            g
            for g in self.games.values()
            if g.player_id == player_id
            and not g.finished_at
            and (g.mode == "practice" or g.day == today)
        ]
        going.sort(key=lambda g: (g.started_at, g.id), reverse=True)
        return [
            GameInProgress(
                g.id, g.mode, g.code, g.suits, g.day, g.started_at, self._moves(g.id), None
            )
            for g in going[:limit]
        ]

    def _moves(self, game_id: str) -> int:
        moves = 0
        for entry in self.logs.get(game_id, []):
            if entry.action == "restart":
                moves = 0
            elif entry.action == "undo":
                moves -= 1
            elif entry.action not in ("won", "resign", "closed"):
                moves += 1
        return moves

    async def finished_games(self, *, batch: int = 1000) -> AsyncIterator[GameLog]:
        for g in list(self.games.values()):
            if g.finished_at is not None:
                yield GameLog(g, list(self.logs.get(g.id, [])))

    async def day_figures(self, board: DayBoard) -> DayFigures:
        found = self._board(board)
        winners = [g for g in found if g.won]
        moves: dict[int, int] = {}
        not_won: dict[int, int] = {}
        for g in found:
            if g.won:
                moves[g.moves or 0] = moves.get(g.moves or 0, 0) + 1
            else:
                not_won[g.removed or 0] = not_won.get(g.removed or 0, 0) + 1
        times = sorted(g.elapsed or 0.0 for g in winners)
        quartiles = None
        if times:
            at = [max(0, -(-len(times) * share // 4) - 1) for share in (1, 2, 3)]
            quartiles = (times[at[0]], times[at[1]], times[at[2]])
        return DayFigures(len(found), len(winners), moves, not_won, quartiles)

    async def report(self, *, game_id: str, player_id: int, reason: str, at: datetime) -> None:
        if (game_id, player_id) in self.reports:
            raise AlreadyReported(game_id)
        self.reports[game_id, player_id] = (reason, at)

    async def reports_since(self, *, player_id: int, since: datetime) -> int:
        return sum(
            1 for (_, who), (_, at) in self.reports.items() if who == player_id and at >= since
        )

    async def keep_review(self, *, game_id: str, body: str, at: datetime) -> None:
        self.reviews.setdefault(game_id, body)

    async def kept_review(self, game_id: str) -> str | None:
        return self.reviews.get(game_id)


def fixed_prover(par: int | None = 10) -> Prover:
    """A quick stand-in for the solver: every deal counts as proven, with this par."""

    async def prove(code: str) -> Proof:
        return Proof(True, par)

    return prove


class NoRaceRooms:
    """The race rooms' queries of a store that has none (unit tests on :class:`FakeStore`
    that play no race room): no game is a race game, no room is due. Race rooms are tested
    on the real store (tests/net/test_rooms.py)."""

    async def race_of_game(self, game_id: str) -> None:
        return None

    async def places_of(self, game_ids: Sequence[str]) -> dict[str, tuple[str, int | None]]:
        return {}

    async def due(self, *, now: datetime, open_for: float) -> list[Any]:
        return []

    async def get_many(self, codes: Any) -> dict[str, Any]:
        return {}


class NoSocial:
    """Follows and leagues of a store that has none (unit tests on :class:`FakeStore`):
    nobody follows anybody, nobody is in a league. They are tested on the real store
    (tests/net/test_friends.py)."""

    async def follower_ids(self, player_id: int) -> list[int]:
        return []

    async def league_mate_ids(self, player_id: int, *, suits: int) -> list[int]:
        return []


class HeldReviews:
    """A real review worker whose every search is held until :attr:`release` is set."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.asked = asyncio.Event()
        self.release = asyncio.Event()

    async def run(self, task: Any, *args: Any) -> Any:
        self.asked.set()
        await self.release.wait()
        return await self.real.run(task, *args)

    def close(self) -> None:
        self.real.close()


class FourSuitsHeld:
    """A daily prover whose 4-suit proofs (the longest) wait until :attr:`release` is set;
    the other suit counts are ``inner``'s at once."""

    def __init__(self, inner: Prover) -> None:
        self.inner = inner
        self.release = asyncio.Event()

    async def __call__(self, code: str) -> Proof:
        if GameCode.parse(code).suits == 4:
            await self.release.wait()
        return await self.inner(code)
