"""The store's parts, one mixin of :class:`~server.store.store.Store` per job, each the
implementation of its narrow protocol in :mod:`server.store.api`: players
(:class:`PlayerPart`), daily deals (:class:`DealPart`), games and their action log
(:class:`GamePart`), leaderboards (:class:`BoardPart`), fair play (:class:`FairPlayPart`) and
what comes after the daily (:class:`AfterDayPart`).

Each checks its callers' arguments and hands the work to the records it names
(:class:`GameRecords`, :class:`Leaderboard`, ...), which :class:`Store` makes; each is
guarded by the store's boundary (a driver's failure is :class:`StoreUnavailable`).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from server.kinds import MODES, DayBoard, Mode, Result
from server.names import look_key, name_key
from server.store.accounts.credentials import insert_credential
from server.store.action_log import ActionLog
from server.store.boundary import store_boundary
from server.store.database import Database
from server.store.errors import InvalidRequest, NameTaken, StoreError
from server.store.games import (
    IN_QUEUE,
    AfterDayRecords,
    DayFigures,
    FairPlayRecords,
    GameRecords,
    ReportRecord,
)
from server.store.leaderboard import Leaderboard, result_key
from server.store.models import (
    LOOK_KEY_LENGTH,
    NAME_LENGTH,
    DailyDeal,
    GameRow,
    InstallSecret,
    Player,
)
from server.store.records import (
    CLEARED,
    CONFIRMED,
    HELD,
    PASSED,
    DailyDealRecord,
    Decision,
    FairPlayRecord,
    GameInProgress,
    GameLog,
    GameRecord,
    LeaderboardSlice,
    LogEntry,
    PlayerHistory,
    PlayerRecord,
    RankResult,
    ReviewStatus,
    TrustRecord,
    record_of,
)


def _deal(row: DailyDeal) -> DailyDealRecord:
    solution = None if row.solution is None else tuple(row.solution.split())
    return record_of(DailyDealRecord, row, solution=solution)


def _line(moves: Sequence[str] | None) -> str | None:
    return None if moves is None else " ".join(moves)


def _require_aware(name: str, value: datetime) -> None:
    if value.tzinfo is None:
        raise InvalidRequest(f"{name} must be timezone-aware, got {value!r}")


class StoreRecords:
    """What the parts share, made by :class:`~server.store.store.Store`."""

    _database: Database
    _games: GameRecords
    _leaderboard: Leaderboard
    _fair_play: FairPlayRecords
    _after: AfterDayRecords
    #: Where every accepted action goes before it is answered (see action_log).
    log: ActionLog


# A player's record made, or read by name or id: prebuilt, in Core
# (no ORM rows).
_PLAYER_COLUMNS = [getattr(Player, field.name) for field in dataclasses.fields(PlayerRecord)]
_PLAYERS = sa.select(*_PLAYER_COLUMNS)
_INSERT_PLAYER = sa.insert(Player).returning(*_PLAYER_COLUMNS)
_PLAYER_BY_NAME_KEY = _PLAYERS.where(Player.name_key == sa.bindparam("key"))
_PLAYER_BY_LOOK_KEY = _PLAYERS.where(Player.look_key == sa.bindparam("key"))
_PLAYER_BY_ID = _PLAYERS.where(Player.id == sa.bindparam("key"))
#: The longest language tag an account keeps (``players.language``).
LANGUAGE_LENGTH = 8
#: The most characters an account's settings take as JSON (``players.settings``).
SETTINGS_LENGTH = 1024


@store_boundary
class PlayerPart(StoreRecords):
    """Accounts: :class:`~server.store.api.PlayerStore`."""

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
        """A new account, signed in by its first credential (the token whose hash is
        given, made by ``label`` from ``address``); ``bot`` declares a bot account (for
        good: it is never changed). Raises :class:`NameTaken` when another account has
        this name in any case, or one that looks like it (its ``holder``)."""
        if not name or len(name) > NAME_LENGTH:
            raise InvalidRequest(f"a name has 1 to {NAME_LENGTH} characters, got {len(name)}")
        if not token_hash:
            raise InvalidRequest("empty token hash")
        _require_aware("now", now)
        looks = look_key(name)
        if len(looks) > LOOK_KEY_LENGTH:
            raise InvalidRequest(f"the name {name!r} has too long a look key")
        values = {
            "name": name,
            "name_key": name_key(name),
            "look_key": looks,
            "created_at": now,
            "bot": bot,
        }
        try:
            async with self._database.engine.begin() as connection:
                made = (await connection.execute(_INSERT_PLAYER, values)).one()
                await insert_credential(
                    connection,
                    player_id=made.id,
                    kind="registration",
                    label=label,
                    secret_hash=token_hash,
                    now=now,
                    address=address,
                )
        except IntegrityError as error:
            holder = await self.player_by_name(name) or await self._one_player(
                _PLAYER_BY_LOOK_KEY, looks
            )
            if holder is not None:
                raise NameTaken(f"the name {name!r} is taken", holder=holder.name) from None
            raise StoreError("this token hash belongs to another player") from error
        return record_of(PlayerRecord, made)

    async def set_language(self, *, player_id: int, language: str) -> None:
        """The language the account's player chose (a tag of ``server.i18n.LANGUAGES``)."""
        if not language or len(language) > LANGUAGE_LENGTH:
            raise InvalidRequest(f"a language tag has 1 to {LANGUAGE_LENGTH} characters")
        async with self._database.engine.begin() as connection:
            await connection.execute(
                sa.update(Player).where(Player.id == player_id).values(language=language)
            )

    async def set_settings(self, *, player_id: int, settings: Mapping[str, object]) -> None:
        """The settings the account's player keeps, all of them (names to JSON values)."""
        try:
            size = len(json.dumps(settings))
        except (TypeError, ValueError) as error:
            raise InvalidRequest(f"settings are JSON: {error}") from None
        if size > SETTINGS_LENGTH:
            raise InvalidRequest(f"settings take at most {SETTINGS_LENGTH} characters as JSON")
        async with self._database.engine.begin() as connection:
            await connection.execute(
                sa.update(Player).where(Player.id == player_id).values(settings=dict(settings))
            )

    async def player_by_name(self, name: str) -> PlayerRecord | None:
        return await self._one_player(_PLAYER_BY_NAME_KEY, name_key(name))

    async def player_by_id(self, player_id: int) -> PlayerRecord | None:
        return await self._one_player(_PLAYER_BY_ID, player_id)

    async def _one_player(self, query: sa.Select[Any], key: object) -> PlayerRecord | None:
        row = await self._database.first(query, {"key": key})
        return None if row is None else record_of(PlayerRecord, row)


@store_boundary
class DealPart(StoreRecords):
    """Daily deals, and the install's secrets: :class:`~server.store.api.DealStore`."""

    async def get_daily_deal(self, *, day: date, suits: int) -> DailyDealRecord | None:
        async with self._database.reads() as session:
            deal = await session.get(DailyDeal, (day, suits))
        return None if deal is None else _deal(deal)

    async def put_daily_deal(
        self,
        *,
        day: date,
        suits: int,
        code: str,
        par: int | None,
        solution: Sequence[str] | None = None,
    ) -> DailyDealRecord:
        """Store the deal unless one exists; either way return the stored one."""
        insert = self._database.insert(DailyDeal).values(
            day=day, suits=suits, code=code, par=par, solution=_line(solution)
        )
        async with self._database.sessions.begin() as session:
            await session.execute(insert.on_conflict_do_nothing(index_elements=["day", "suits"]))
            deal = await session.scalar(
                sa.select(DailyDeal).where(DailyDeal.day == day, DailyDeal.suits == suits)
            )
        assert deal is not None  # inserted or already there, in this transaction
        return _deal(deal)

    async def install_secret(self, *, name: str, candidate: str, now: datetime) -> str:
        """The install's secret ``name``: the one stored, or ``candidate`` stored now if there
        is none (its first start). Nodes starting at once on one database agree: the first
        write wins, and every node reads it back."""
        _require_aware("now", now)
        insert = self._database.insert(InstallSecret).values(
            name=name, value=candidate, created_at=now
        )
        async with self._database.sessions.begin() as session:
            await session.execute(insert.on_conflict_do_nothing(index_elements=["name"]))
            stored = await session.scalar(
                sa.select(InstallSecret.value).where(InstallSecret.name == name)
            )
        assert stored is not None  # inserted or already there, in this transaction
        return stored

    async def set_daily_solution(self, *, day: date, suits: int, solution: Sequence[str]) -> None:
        """Keep the solver's line of a deal stored without one (found later, once)."""
        update = (
            sa.update(DailyDeal)
            .where(DailyDeal.day == day, DailyDeal.suits == suits, DailyDeal.solution.is_(None))
            .values(solution=_line(solution))
        )
        async with self._database.sessions.begin() as session:
            await session.execute(update, execution_options={"synchronize_session": False})


@store_boundary
class GamePart(StoreRecords):
    """Games and their action log: :class:`~server.store.api.GameStore`."""

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
        """Record a new game. A daily game is one per (player, day, suits): a second start
        raises :class:`AttemptExists` carrying the first."""
        if mode not in MODES:
            raise InvalidRequest(f"mode must be one of {MODES}, got {mode!r}")
        if (mode == "daily") != (day is not None):
            raise InvalidRequest("a daily game has a day and a practice game has none")
        if not game_id:
            raise InvalidRequest("empty game id")
        _require_aware("started_at", started_at)
        game = GameRow(
            id=game_id,
            player_id=player_id,
            mode=mode,
            code=code,
            suits=suits,
            day=day,
            started_at=started_at,
        )
        return await self._games.start(game)

    async def get_game(self, game_id: str) -> GameRecord | None:
        return await self._games.get(game_id)

    async def daily_attempt(self, *, player_id: int, day: date, suits: int) -> GameRecord | None:
        return await self._games.daily_attempt(player_id, day, suits)

    async def daily_progress(self, *, player_id: int, day: date) -> dict[int, bool]:
        """The player's daily attempts of ``day``: by suit count, whether it is finished."""
        return await self._games.daily_progress(player_id, day)

    async def load_game(self, game_id: str) -> GameLog | None:
        """A game with its whole action log: what rebuilds it on any node."""
        return await self._games.load(game_id)

    async def requests_after(self, game_id: str, after: int) -> list[LogEntry]:
        """The entries of the game's log after seq ``after`` that carry a client's message
        id, in order: what answers a resend after a resume, on any node."""
        return await self._games.requests_after(game_id, after)

    async def last_seq(self, game_id: str) -> int:
        """The seq of the game's newest logged action (0 for none): is a copy up to date?"""
        return await self._games.last_seq(game_id)

    def append(
        self,
        entries: Sequence[LogEntry],
        result: Result | None = None,
        *,
        ranked_on: DayBoard | None = None,
    ) -> Awaitable[None]:
        """Commit a game's actions (and its result, with its end entry) through the action
        log; fails with :class:`StaleGame` or :class:`StoreUnavailable`, writing nothing.

        A daily's result (``ranked_on`` its board) then goes to the
        rank cache; the cache is rebuilt from the database when missing, so a failure there
        is logged.

        Not a coroutine: an action that ends nothing (nearly every one) is the action
        log's own future, which fails only with the store's errors, so it needs no
        boundary of its own and costs no frame on the move's way down and back up.
        """
        if result is None:
            return self.log.append(entries)
        return self._append_ended(entries, result, ranked_on)

    async def _append_ended(
        self, entries: Sequence[LogEntry], result: Result, ranked_on: DayBoard | None
    ) -> None:
        _require_aware("finished_at", result.finished_at)
        # made first: it refuses what cannot be ranked before anything is written
        key = result_key(entries[0].game_id, result)
        await self.log.append(entries, result)
        if ranked_on is not None:
            await self._leaderboard.add(ranked_on, key)

    # -- the end of a day

    async def unfinished_dailies(self, *, before: date) -> list[str]:
        """The ids of daily games of days before ``before`` still unfinished (to close them
        as they stand, through the action log, when their day is over)."""
        return await self._games.unfinished_dailies(before)

    # -- history

    async def history(self, *, player_id: int, limit: int = 20) -> PlayerHistory:
        """The player's finished games, newest first, and all-time figures over every
        finished game (daily and practice): games, wins, best score per suit count."""
        if limit < 0:
            raise InvalidRequest(f"limit must be non-negative, got {limit}")
        return await self._games.history(player_id, limit)

    async def games_in_progress(
        self, *, player_id: int, today: date, now: datetime, limit: int = 20
    ) -> list[GameInProgress]:
        """The player's unfinished games that can be taken up again, newest started first:
        practice games, today's dailies (``today``) and the games of race rooms racing at
        ``now`` (not one still counting down, nor one whose race is over)."""
        if limit < 0:
            raise InvalidRequest(f"limit must be non-negative, got {limit}")
        _require_aware("now", now)
        return await self._games.in_progress(player_id, today, now, limit)

    async def finished_games(self, *, batch: int = 1000) -> AsyncIterator[GameLog]:
        """Every finished game with its action log, in game id order, read in batches."""
        if batch < 1:
            raise InvalidRequest(f"batch must be at least 1, got {batch}")
        async for logged in self._games.finished(batch):
            yield logged


@store_boundary
class BoardPart(StoreRecords):
    """Daily leaderboards: :class:`~server.store.api.BoardStore`.

    Each day and suit count has three boards (a :class:`~server.kinds.DayBoard` names
    one): the humans', the new players' and the bots'.
    """

    async def leaderboard_page(
        self, board: DayBoard, *, limit: int, after: str | None = None
    ) -> LeaderboardSlice:
        """One page of a daily leaderboard, best first; ``after`` is a page's ``next`` (a
        cursor it did not make raises :class:`BadCursor`)."""
        return await self._leaderboard.page(board, limit=limit, after=after)

    async def rank_of(self, board: DayBoard, *, player_id: int, around: int = 5) -> RankResult:
        """The player's rank that day, and up to ``around`` rows either side of their own."""
        return await self._leaderboard.rank_of(board, player_id=player_id, around=around)

    async def unrank(self, record: GameRecord) -> None:
        """Take a daily off the rank cache (after a review confirmed one that was on its
        board: a leader's)."""
        result, board = record.result, record.board
        if result is None or board is None:
            return
        await self._leaderboard.remove(board, result_key(record.id, result))

    async def place_of(self, record: GameRecord) -> tuple[int, int] | None:
        """Where a finished daily stands, or would stand if it were not held, on its own
        board: (rank, results on that board without it)."""
        result, board = record.result, record.board
        if result is None or board is None:
            return None
        return await self._leaderboard.place(board, result_key(record.id, result))

    async def ranks_of(self, game_ids: list[str]) -> dict[str, int]:
        """The rank of each of these games on its own day's board, in one query (those on
        no board left out): a player's history."""
        return await self._leaderboard.ranks_of(game_ids)

    async def rank_again(self, record: GameRecord) -> None:
        """Put a finished daily back in the rank cache (after a review cleared it)."""
        result, board = record.result, record.board
        if result is None or board is None:
            return
        await self._leaderboard.add(board, result_key(record.id, result))


@store_boundary
class FairPlayPart(StoreRecords):
    """Screenings, trust and reviews: :class:`~server.store.api.FairPlayStore` (the
    review queue's decisions are an operator's, outside the play layer's protocol)."""

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
        """Keep a finished human daily's screening, once (a second screening of the same
        game returns the first), and put the result on the board unless it is held: the
        new players' board if ``newcomer``, else the public one."""
        _require_aware("at", at)
        status: ReviewStatus = HELD if held else PASSED
        return await self._fair_play.record(
            game_id, status, list(reasons), evidence, at, newcomer=newcomer
        )

    async def unscreened(self) -> list[str]:
        """Finished human dailies waiting for their screening (one was under way when a
        node stopped): the ids, oldest first."""
        return await self._fair_play.unscreened()

    async def screening(self, game_id: str) -> FairPlayRecord | None:
        return await self._fair_play.get(game_id)

    async def held_results(self) -> list[tuple[GameRecord, FairPlayRecord]]:
        """Results held for review, oldest first, with their screening."""
        return await self._fair_play.held()

    async def review_queue(self) -> list[tuple[GameRecord, FairPlayRecord]]:
        """The review queue, oldest first: results held, and leaders queued on their board."""
        return await self._fair_play.held(IN_QUEUE)

    async def queue_leaders(self, board: DayBoard, *, at: datetime, top: int = 3) -> list[str]:
        """Queue the ``top`` results of a human board for review (they stay on the board,
        and show as verified once cleared); the ids newly queued, each with an audit row."""
        _require_aware("at", at)
        return await self._fair_play.queue_leaders(board, top=top, at=at)

    async def account_dailies(self, *, player_id: int) -> list[tuple[GameRecord, FairPlayRecord]]:
        """The account's screened dailies, oldest day first, with their screening."""
        return await self._fair_play.account_dailies(player_id)

    async def trust(self, *, player_ids: list[int]) -> dict[int, TrustRecord]:
        """The accounts' evidence across days, for those that have any."""
        return await self._fair_play.trust(list(player_ids))

    async def put_trust(self, record: TrustRecord) -> None:
        """Keep an account's evidence across days."""
        _require_aware("updated_at", record.updated_at)
        await self._fair_play.put_trust(record)

    async def review(
        self, *, game_id: str, decision: Decision, note: str | None, at: datetime
    ) -> GameRecord:
        """A reviewer's decision on a result in the review queue: ``cleared`` ranks it and
        marks it verified; ``confirmed`` keeps it off the board and flags the account (its
        later dailies are held). Writes an audit row. Raises :class:`StoreError` for a game
        that is not in the queue."""
        if decision not in (CLEARED, CONFIRMED):
            raise InvalidRequest(f"a review clears or confirms, not {decision!r}")
        _require_aware("at", at)
        await self._fair_play.decide(game_id, decision, note, at)
        record = await self._games.get(game_id)
        assert record is not None
        return record

    async def audit(self, game_id: str) -> list[tuple[str, str | None, datetime]]:
        """The review decisions on a game, oldest first: (decision, note, when)."""
        return await self._fair_play.audit(game_id)


@store_boundary
class AfterDayPart(StoreRecords):
    """A day's figures, the days played and reports: :class:`~server.store.api.AfterDayStore`."""

    async def day_figures(self, board: DayBoard) -> DayFigures:
        """A day's board in counts: finished, won, the winners' moves, the others' runs
        removed, the winners' time quartiles (held results are on no board)."""
        return await self._after.day_figures(board)

    async def daily_days(self, *, player_id: int, before: date | None = None) -> list[date]:
        """The days on which the player finished a daily, in order (streaks; and, ``before``
        a day, how long a human account had played by then: the new players' board)."""
        days = await self._after.daily_days(player_id)
        return days if before is None else [day for day in days if day < before]

    async def report(self, *, game_id: str, player_id: int, reason: str, at: datetime) -> None:
        """Keep a player's report of a result; :class:`AlreadyReported` the second time."""
        _require_aware("at", at)
        if not reason or len(reason) > 200:
            raise InvalidRequest("a report's reason has 1 to 200 characters")
        await self._after.report(game_id=game_id, player_id=player_id, reason=reason, at=at)

    async def reports_since(self, *, player_id: int, since: datetime) -> int:
        """How many reports the player made since ``since``."""
        return await self._after.reports_since(player_id, since)

    async def keep_review(self, *, game_id: str, body: str, at: datetime) -> None:
        """Keep a game's review against the solver (its JSON) for every node; a second
        one of the same game is not kept (the first stays)."""
        _require_aware("at", at)
        await self._after.keep_review(game_id, body, at)

    async def kept_review(self, game_id: str) -> str | None:
        """A game's review kept (its JSON), or None."""
        return await self._after.kept_review(game_id)

    async def reported_results(self) -> list[tuple[GameRecord, list[ReportRecord]]]:
        """Reported results in leaderboard order (day, suit count, board, rank), each with
        its reports, oldest first."""
        return await self._after.reported()
