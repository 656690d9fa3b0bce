"""Finished dailies reviewed ahead of their asking: a daily's reviews open only once its day
is over, when every player may ask at once, so each daily is reviewed as it ends, one at a
time in a worker of its own at the lowest priority (``nice`` 19: it takes only the CPU that
play and asked reviews leave idle), within a CPU budget a UTC day; its first asker finds
the review made (:class:`~.review.Reviews` keeps it, as any other).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import date
from typing import Final

from server.play.clock import Clock, utc_day
from server.play.daily.deals import SolverProver
from server.play.errors import SolverStopped
from server.store import StoreError

from .judging import Judged, judge_ahead

log = logging.getLogger(__name__)

#: The priority of the worker that reviews dailies ahead of their asking (``os.nice``):
#: the lowest, so it takes only the CPU that play and asked reviews leave idle.
AHEAD_NICE: Final = 19
#: Finished dailies waiting to be reviewed ahead, on one node at most (past it, the
#: newest are left to be made when asked).
MOST_AHEAD: Final = 10_000


class ReviewsAhead:
    """The dailies waiting to be reviewed ahead, the worker that judges them, and the day's
    CPU budget (none made ahead with a budget of 0)."""

    def __init__(
        self,
        *,
        seconds_a_day: float,
        seconds: float,
        clock: Clock,
        review: Callable[[str], Awaitable[bool]],
    ) -> None:
        """``seconds``: the budget of one review (a review is made ahead only while the
        day's budget holds a whole one: one cut short would be kept as it is);
        ``review``: makes a game's review ahead (through :meth:`judged`), or says it needs
        none (made already, or no daily): whether it made one."""
        self.seconds_a_day = seconds_a_day
        self.seconds = seconds
        self._clock = clock
        self._review = review
        self._waiting: asyncio.Queue[str] = asyncio.Queue(MOST_AHEAD)
        self._task: asyncio.Task[None] | None = None
        self.worker: SolverProver | None = None
        if seconds_a_day > 0:
            self.worker = SolverProver(seconds, name="reviews ahead", nice=AHEAD_NICE)
        #: The UTC day of :attr:`spent`: CPU seconds spent on reviews ahead that day.
        self._day: date | None = None
        self.spent = 0.0
        #: Reviews made ahead, and left to be made when asked (the queue full, or the
        #: day's budget spent), since the start.
        self.made = 0
        self.left = 0

    def add(self, game_id: str) -> None:
        """Review a finished daily ahead of its asking, when the worker comes to it (within
        the day's budget); nothing if none is made ahead."""
        if self.worker is None:
            return
        try:
            self._waiting.put_nowait(game_id)
        except asyncio.QueueFull:
            self.left += 1
            return
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._work(), name="reviews ahead")

    async def judged(self, code: str, actions: Sequence[str], line: Sequence[str]) -> list[Judged]:
        """A game judged in the worker, its CPU counted against the day's budget."""
        assert self.worker is not None
        judged, spent = await self.worker.run(judge_ahead, code, actions, self.seconds, line)
        self.spent += spent
        return judged

    async def _work(self) -> None:
        while True:
            game_id = await self._waiting.get()
            today = utc_day(self._clock.now())
            if self._day != today:
                self._day, self.spent = today, 0.0
            if self.spent + self.seconds > self.seconds_a_day:
                self.left += 1
                continue
            try:
                self.made += await self._review(game_id)
            except (StoreError, SolverStopped) as error:
                log.warning("game %s not reviewed ahead: %s", game_id, error)
            except Exception:  # one game's failure stops none of the others'
                log.exception("game %s not reviewed ahead", game_id)

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        if self.worker is not None:
            self.worker.close()
