"""Fair-play screening: each finished daily of a human account, judged from the server's own
action log and clock, once, when the game ends.

A human's daily is off the public leaderboard from its start (``games.held``) until its
screening passes it, so a result never shows and then vanishes. The evidence
(:mod:`server.play.fairplay.evidence`) compares the player's think times with a human
floor and their line with the solver's solution of the deal (:meth:`DailySchedule.solution`). A
result past the thresholds stays held for a person to review (``simon-server review``); an
account whose machine play a review confirmed has its later dailies held too.

The screening also decides the board (:mod:`server.play.daily.newcomers`): an account with
too few earlier days of dailies has its result placed on the new players' board of the day,
for good. Each day's top results on every human board then join the review queue by
themselves, staying on their board (:meth:`FairPlayStore.queue_leaders`).

Bots are not screened: they play on the bots' board. A screening interrupted by a crash is
done again by :meth:`Screening.catch_up` (the day ticker calls it).

The evidence is CPU work that grows with the game's log (about 50-80 us an action: the
difficulty of every position, the line against the solver's), done in the screening's
worker (:class:`~server.play.daily.deals.SolverProver`: a process of its own in the server, so a
long game's end never holds up the event loop and the others' games; a thread by default).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from datetime import date, timedelta
from typing import Any

from server.engine import SUIT_COUNTS
from server.kinds import HUMAN_BOARDS, DayBoard
from server.play.clock import Clock, utc_day
from server.play.daily.deals import DailySchedule, SolverProver
from server.play.daily.newcomers import counts_from, is_newcomer
from server.store import (
    OFF_THE_BOARD,
    FairPlayRecord,
    GameRecord,
    PlayerRecord,
    ScreeningStore,
    TrustRecord,
)

from . import evidence as fairplay
from .difficulty import follow_z
from .evidence import Thresholds
from .trust import Daily, account_trust, follows_of, is_top, percentile

log = logging.getLogger(__name__)

FLAGGED_REASON = "machine play was confirmed on this account before"
#: The start of the reason given when the account's evidence across days holds a result.
ACCOUNT_REASON = "the account's evidence across days"
#: How many of each human board's best results of a day join the review queue.
LEADERS = 3


class Screening:
    def __init__(
        self,
        *,
        store: ScreeningStore,
        daily: DailySchedule,
        clock: Clock,
        thresholds: Thresholds,
        worker: SolverProver | None = None,
    ) -> None:
        """``worker`` works out the evidence (None: a thread, ``asyncio.to_thread``)."""
        self._store = store
        self._daily = daily
        self._clock = clock
        self.thresholds = thresholds
        self._worker = worker

    async def screen(self, game_id: str) -> FairPlayRecord | None:
        """Screen a finished daily of a human (once: a second call returns the first);
        None for what is not screened (practice, bots, unfinished or unknown games)."""
        done = await self._store.screening(game_id)
        if done is not None:
            return done
        logged = await self._store.load_game(game_id)
        if logged is None:
            return None
        record = logged.game
        if record.mode != "daily" or record.bot or record.day is None or record.finished_at is None:
            return None
        deal = await self._daily.deal(record.day, record.suits)
        solution = await self._daily.solution(record.day, record.suits)
        player = await self._store.player_by_id(record.player_id)
        if player is None:
            return None
        arguments = (
            [(entry.action, entry.at_ms) for entry in logged.entries],
            int(record.started_at.timestamp() * 1000),
            list(solution),
            deal.par,
            self.thresholds,
            record.code,
        )
        if self._worker is None:
            found, reasons = await asyncio.to_thread(fairplay.judge, *arguments)
        else:
            found, reasons = await self._worker.run(fairplay.judge, *arguments)
        if player.flagged:
            reasons.append(FLAGGED_REASON)
        days_before = await self._store.daily_days(player_id=player.id, before=record.day)
        past = await self._past_dailies(record)
        follows = follows_of(past)
        if found.think_follow is not None:  # this game counts towards graduating too
            follows.append((found.think_follow, found.follow_moves))
        newcomer = is_newcomer(
            days_before=len(days_before),
            needed=self.thresholds.new_account_days,
            follow_z=follow_z(follows),
            needed_z=self.thresholds.new_account_follow_z,
        )
        now = self._clock.now()
        placed = dataclasses.replace(record, newcomer=newcomer)
        rank, others = await self._store.place_of(placed) or (0, 0)
        share = percentile(rank, others) if rank else None
        latest = daily_of(placed, dataclasses.asdict(found), share, deal.par)
        account = account_trust([*past, latest], self.thresholds)
        if (
            account.suspicion >= self.thresholds.max_suspicion
            and rank
            and is_top(rank, others, self.thresholds)
        ):
            reasons.append(f"{ACCOUNT_REASON}: " + "; ".join(account.reasons))
        screened = await self._store.record_screening(
            game_id=record.id,
            held=bool(reasons),
            reasons=reasons,
            evidence=dataclasses.asdict(found)
            | {"percentile": share, "rank": rank or None, "board_results": others + 1},
            at=now,
            newcomer=newcomer,
        )
        await self._store.put_trust(
            TrustRecord(player.id, account.suspicion, account.reasons, account.evidence, now)
        )
        if screened.status not in OFF_THE_BOARD:
            await self._store.rank_again(placed)
            if placed.board is not None:  # a daily's: always
                await self._store.queue_leaders(placed.board, at=now, top=LEADERS)
        else:
            log.info("daily %s of %s held for review: %s", record.id, record.player_name, reasons)
        return screened

    async def _past_dailies(self, record: GameRecord) -> list[Daily]:
        """The account's screened dailies other than ``record``, oldest first, as its
        evidence across days reads them."""
        dailies = []
        for game, screened in await self._store.account_dailies(player_id=record.player_id):
            if game.id == record.id or game.day is None:
                continue
            past = screened.evidence.get("percentile")
            if game.day < (record.day or game.day):  # its board is final: where it ended
                rank, others = await self._store.place_of(game) or (0, 0)
                past = percentile(rank, others) if rank else None
            deal = await self._daily.deal(game.day, game.suits)
            dailies.append(daily_of(game, screened.evidence, past, deal.par))
        dailies.sort(key=lambda daily: (daily.day, daily.suits))
        return dailies

    async def queue_leaders_of(self, day: date) -> list[str]:
        """Queue the top results of every human board of a day for review (those already
        queued or reviewed are left as they are): at the day's end, when the boards are
        final; the ids newly queued."""
        queued = []
        for suits in SUIT_COUNTS:
            for kind in HUMAN_BOARDS:
                queued += await self._store.queue_leaders(
                    DayBoard(day, suits, kind), at=self._clock.now(), top=LEADERS
                )
        return queued

    async def held(self, game_id: str) -> bool:
        """Whether a human's finished daily is off the public board: held for review, or
        not screened yet."""
        screened = await self._store.screening(game_id)
        return screened is None or screened.status in OFF_THE_BOARD

    async def placed(self, game_id: str, player_id: int) -> tuple[bool, date | None]:
        """Whether a human's daily is on the new players' board and, if it is, from which
        day the player's dailies count on the public one (:meth:`counts_from`)."""
        record = await self._store.get_game(game_id)
        if record is None or not record.newcomer:
            return False, None
        player = await self._store.player_by_id(player_id)
        return True, None if player is None else await self.counts_from(player)

    async def counts_from(self, player: PlayerRecord) -> date | None:
        """From which day the player's dailies count on the public board, while that day
        is still to come (None: they count already, or the player is a bot)."""
        needed = self.thresholds.new_account_days
        if player.bot or needed <= 0:
            return None
        today = utc_day(self._clock.now())
        days = await self._store.daily_days(player_id=player.id)
        first = counts_from(days, today=today, needed=needed)
        if first is None:
            return None
        if first <= today and self.thresholds.new_account_follow_z > 0:
            # Days enough; the think times still to show they follow difficulty: at the
            # earliest with the next daily (the threshold itself is never told).
            trust = (await self._store.trust(player_ids=[player.id])).get(player.id)
            shown = None if trust is None else trust.evidence.get("follow_z")
            if shown is None or shown < self.thresholds.new_account_follow_z:
                return today + timedelta(days=1) if today in days else today
        return first if first > today else None

    async def catch_up(self) -> int:
        """Screen the finished human dailies a stopped node left unscreened; how many."""
        count = 0
        for game_id in await self._store.unscreened():
            if await self.screen(game_id) is not None:
                count += 1
        return count


def daily_of(
    game: GameRecord, found: dict[str, Any], share: float | None, par: int | None
) -> Daily:
    """One screened daily as the account's evidence reads it (``found``: its evidence)."""
    over = found.get("moves_over_par")
    net = found.get("net_over_par", over)  # screened before the loops were cut: as played
    final, net_moves = found.get("final_moves"), found.get("net_moves")
    assert game.day is not None
    return Daily(
        day=game.day,
        suits=game.suits,
        won=bool(game.won),
        percentile=share,
        over_par=over / par if game.won and over is not None and par else None,
        moves=int(found.get("moves", 0)),
        undos=int(found.get("undos", 0)),
        restarts=int(found.get("restarts", 0)),
        think_follow=found.get("think_follow"),
        follow_moves=int(found.get("follow_moves", 0)),
        net_over_par=net / par if game.won and net is not None and par else None,
        loop_share=(final - net_moves) / final if final and net_moves is not None else None,
    )
