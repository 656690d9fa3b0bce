"""One player's game on the server: the engine's :class:`Game` plus what the server keeps.

The engine checks every action; this wrapper adds the game's id, mode and day, the list of
accepted actions in the log's notation (moves with explicit counts, ``undo``, ``restart``,
and an end: ``won`` or ``resign``), whose length is the game's ``seq``, and the replies to
the last few client message ids (:mod:`.resends`), so a resent action is answered again,
never applied twice.

An action takes one road, :meth:`PlayerGame.play`: the engine applies it in memory, the
action log (the writer the game was made with) commits it with others, and what happened
comes back as an :class:`Outcome`, from which the session builds its reply. Should the log
fail, the game is put back as it was before the action and the error raised::

    outcome = await game.play(Move.from_text("3-7"), now, message_id=7, request="3-7")
    outcome.applied, outcome.removed_run, outcome.ended    # ('3-7x1', False, False)
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Sequence
from datetime import date, datetime
from typing import Final, Literal, NamedTuple, Protocol

from server.engine import Game, Move
from server.engine.actions import RESTART, UNDO, apply, replay
from server.kinds import DayBoard, Mode, suit_count
from server.play.clock import day_end
from server.protocol import GameView, MessageId, Placements
from server.store import (
    CLOSED,
    END_ACTIONS,
    RESIGN,
    WON,
    GameLog,
    LogEntry,
    Result,
    StaleGame,
    StoreUnavailable,
)

from .resends import REPLAY_MEMORY, Resends

#: The most actions a game takes (its ``seq``: moves, undos, restarts), by default: from
#: then on it is refused ``game-too-long``, but a resignation is still taken, and the day's
#: end still closes a daily, so a game at the cap can be ended, replayed and ranked like any
#: other. Nothing else bounds a game's log, which every resume replays and every daily's
#: fair-play screening reads whole (about 50-80 us an action). Measured: the solver's lines
#: for daily deals (eight days each, late 2026) are 42-49 moves on 1 suit, 50-57 on 2 and
#: 60-66 on 4; fc-solve's best lines expanded to single moves (tests/fixtures) 59-130.
#: A person wanders: several times the line's moves, an undo for many of them, a restart or
#: two; 5,000 is some 75 times the longest par and 40 times the longest fc-solve line, far
#: beyond any real game, and at the per-connection budget (100 messages per 10 s) over
#: eight minutes of nothing but actions.
MAX_GAME_ACTIONS: Final = 5_000


class Auto(NamedTuple):
    """The auto move: the group of ``cards`` cards (None: the longest that moves) at the
    foot of ``column`` (from 0) to where it fits best."""

    column: int
    cards: int | None


#: What :meth:`PlayerGame.play` takes: a move, the auto move, or a word; ``close`` ends a
#: game as it stands (its day or its race's time is over), ``resign`` gives it up.
Action = Move | Auto | Literal["undo", "restart", "resign", "close"]
#: What an action was, as an :class:`Outcome` tells it (an auto move is a ``move``).
ActionKind = Literal["move", "undo", "restart", "resign", "close"]


class Outcome(NamedTuple):
    """What one action did to a game, once committed: everything its reply, the race and
    the endings need, so that none of them reads the engine."""

    kind: ActionKind
    game: str
    #: The action's seq (a winning move's: the end logged after it is the next).
    seq: int
    #: The action as logged: a move with its count explicit, ``undo``, ``restart``, or the
    #: end (``resign``, ``closed``).
    applied: str
    #: The move completed a run, which left the table.
    removed_run: bool
    moves: int
    score: int
    removed: int
    won: bool
    #: The game's result, when this action ended the game (a winning move, a resignation,
    #: a close); else None.
    result: Result | None

    @property
    def ended(self) -> bool:
        return self.result is not None


class GameWriter(Protocol):
    """Where a game's actions go to be durable (the store's action log)."""

    def append(
        self,
        entries: Sequence[LogEntry],
        result: Result | None = None,
        *,
        ranked_on: DayBoard | None = None,
    ) -> Awaitable[None]: ...


def encode_request_id(message_id: MessageId | None) -> str | None:
    """A client's message id as the log keeps it: JSON, so ``7`` and ``"7"`` stay apart."""
    if message_id is None:
        return None
    if type(message_id) is int:  # most clients count: skip the encoder
        return str(message_id)
    return json.dumps(message_id, ensure_ascii=False)


def outcome_of(
    game: PlayerGame,
    kind: ActionKind,
    seq: int,
    applied: str,
    removed_before: int,
    won: bool,
    result: Result | None,
    engine: Game | None = None,
) -> Outcome:
    """What an action just applied to ``game`` did, from the engine's counts now (of
    ``engine``: the game replayed to that action; by default the game's own)."""
    engine = game.engine if engine is None else engine
    removed = engine.removed_count
    return Outcome(
        kind,
        game.id,
        seq,
        applied,
        removed > removed_before,
        engine.moves,
        engine.score,
        removed,
        won,
        result,
    )


class PlayerGame:
    """The authoritative game of one player, as held by one node."""

    __slots__ = (
        "actions",
        "bot",
        "code",
        "day",
        "ends_at",
        "engine",
        "id",
        "lock",
        "mode",
        "player_id",
        "player_name",
        "race",
        "replies",
        "result",
        "resumes",
        "started_at",
        "writer",
    )

    def __init__(
        self,
        *,
        id: str,
        player_id: int,
        player_name: str,
        mode: Mode,
        code: str,
        day: date | None,
        started_at: datetime,
        writer: GameWriter,
        bot: bool = False,
    ) -> None:
        self.id = id
        self.player_id = player_id
        self.player_name = player_name
        self.mode = mode
        self.code = code
        self.day = day
        #: A daily's end (its day's end, by the server's clock): no action is taken from then.
        self.ends_at = None if day is None else day_end(day)
        #: The player is a declared bot: the game is on the bots' board and marked in races.
        self.bot = bot
        self.started_at = started_at
        #: Commits each action (the store's action log): see :meth:`play`.
        self.writer = writer
        #: A race game: its room's code (server/play/rooms/rooms.py sets it).
        self.race: str | None = None
        #: Every accepted action, in log notation: ``seq`` is its length.
        self.actions: list[str] = []
        self.engine = Game.from_code(code)
        self.result: Result | None = None
        #: The last few client message ids answered, for resends (:mod:`.resends`).
        self.replies = Resends()
        #: How many times a connection of this node resumed the game (:mod:`.unseen`).
        self.resumes = 0
        #: Held from an action's start to its commit: one action of a game at a time, even
        #: with the game open on several connections of this node.
        self.lock = asyncio.Lock()

    @classmethod
    def from_log(cls, logged: GameLog, writer: GameWriter) -> PlayerGame:
        """The game as its log leaves it (on any node, after any crash), its further
        actions committed through ``writer``."""
        record = logged.game
        game = cls(
            id=record.id,
            player_id=record.player_id,
            player_name=record.player_name,
            mode=record.mode,
            code=record.code,
            day=record.day,
            started_at=record.started_at,
            writer=writer,
            bot=record.bot,
        )
        game.reload(logged)
        return game

    def reload(self, logged: GameLog) -> None:
        """Take the log's state in place (every connection holding this object sees it)."""
        entries = logged.entries
        self.actions = [sys.intern(entry.action) for entry in entries]
        self.result = logged.game.result
        self.replies = Resends()
        engine = self.engine
        engine.restart()  # the deal again, unpacked: 7 us, where dealing the code anew takes 230
        remembered_from = len(entries) - REPLAY_MEMORY
        for index, entry in enumerate(entries):
            removed_before = engine.removed_count
            apply(engine, entry.action)
            if index < remembered_from or entry.request_id is None or entry.request is None:
                continue
            message_id = json.loads(entry.request_id)
            if entry.action in END_ACTIONS or entry.action in (UNDO, RESTART):
                self.replies.remember(message_id, entry.request, ())
                continue
            # a move: its reply is made again from what it did (a win is the game's last)
            won = engine.is_won
            result = self.result if won else None
            outcome = outcome_of(self, "move", entry.seq, entry.action, removed_before, won, result)
            self.replies.remember(message_id, entry.request, (), outcome)

    @property
    def seq(self) -> int:
        return len(self.actions)

    @property
    def suits(self) -> int:
        return self.engine.suits

    @property
    def finished(self) -> bool:
        return self.result is not None

    def over_by_day(self, now: datetime) -> bool:
        """Whether ``now`` is past this daily's day (never for other games): a comparison
        with the end instant worked out once, as it is asked on every action."""
        ends_at = self.ends_at
        return ends_at is not None and now >= ends_at

    @property
    def closed(self) -> bool:
        """Whether the game was closed at its day's end (neither won nor resigned)."""
        return self.result is not None and self.actions[-1:] == [CLOSED]

    # -- actions: each is applied in memory and bumps seq, then committed ----------------

    async def play(
        self,
        action: Action,
        at: datetime,
        *,
        message_id: MessageId | None = None,
        request: str | None = None,
    ) -> Outcome:
        """Apply ``action`` as of the server's time ``at``, commit it through the writer
        (with the client's ``message_id`` and ``request`` text, so a resend is known after a
        crash), and return what it did. A winning move ends the game.

        The engine's refusal (:class:`IllegalMoveError`) changes nothing; a failed commit
        (:class:`StoreUnavailable`, or :class:`StaleGame`: the log moved on elsewhere) puts
        the game back as it was, then is raised. Call with :attr:`lock` held.
        """
        engine = self.engine
        before = self.seq
        removed_before = engine.removed_count
        finished_before = self.result is not None
        kind: ActionKind
        if isinstance(action, Move):
            kind, applied = "move", self.move(action)
        elif isinstance(action, Auto):
            kind, applied = "move", self.auto(action.column, action.cards)
        elif action == "undo":
            self.undo()
            kind, applied = "undo", UNDO
        elif action == "restart":
            self.restart()
            kind, applied = "restart", RESTART
        else:  # an end: resign, or close as it stands
            self.end(now=at, resigned=action == "resign")
            kind, applied = action, self.actions[-1]
        won = engine.is_won  # asked once: it looks at every column
        if kind == "move" and won:
            self.end(now=at)
        result = None if finished_before else self.result
        entries = self.entries_since(
            before, at_ms=int(at.timestamp() * 1000), message_id=message_id, request=request
        )
        # a bot's daily is ranked at once; a human's once its fair-play screening passes it
        board = None  # made only with a result: it is read only then, not on every move
        if result is not None and self.day is not None and self.bot:
            board = DayBoard(self.day, suit_count(engine.suits), "bots")
        try:
            await self.writer.append(entries, result, ranked_on=board)
        except (StoreUnavailable, StaleGame):
            self.rollback(before)
            raise
        return outcome_of(self, kind, before + 1, applied, removed_before, won, result)

    def move(self, move: Move) -> str:
        """Play a move in memory only (:meth:`play` commits it); return it as logged."""
        # interned: a game's action list holds the same few hundred texts many times over
        played = sys.intern(self.engine.push(move).text())
        self.actions.append(played)
        return played

    def auto(self, column: int, count: int | None) -> str:
        played = sys.intern(self.engine.auto_move(column, count).text())
        self.actions.append(played)
        return played

    def undo(self) -> Move:
        taken = self.engine.undo()
        self.actions.append(UNDO)
        return taken

    def restart(self) -> None:
        self.engine.restart()
        self.actions.append(RESTART)

    def end(self, *, now: datetime, resigned: bool = False) -> Result:
        """End the game: a win, a resignation, or (neither) closed as it stands when its
        day is over. Returns its result; the end action is ``won``, ``resign`` or ``closed``.

        A daily ended at or after its day's end is closed as it stood then, whatever the
        board: a win after midnight is ranked on no day."""
        engine = self.engine
        late = self.over_by_day(now)
        if late:
            assert self.ends_at is not None
            now, resigned = self.ends_at, False
        won = engine.is_won and not resigned and not late
        self.result = Result(
            won=won,
            resigned=resigned,
            moves=engine.moves,
            score=engine.score,
            removed=engine.removed_count,
            elapsed=round(self.elapsed(now), 3),
            finished_at=now,
        )
        self.actions.append(WON if won else RESIGN if resigned else CLOSED)
        return self.result

    def entries_since(
        self,
        seq: int,
        *,
        at_ms: int,
        message_id: MessageId | None = None,
        request: str | None = None,
    ) -> list[LogEntry]:
        """The log entries of the actions after ``seq`` (one at least); the first carries
        the request."""
        game_id, actions = self.id, self.actions
        entries = [
            LogEntry(game_id, seq + 1, actions[seq], at_ms, encode_request_id(message_id), request)
        ]
        entries.extend(  # an end after the move, say
            LogEntry(game_id, number, actions[number - 1], at_ms, None, None)
            for number in range(seq + 2, len(actions) + 1)
        )
        return entries

    def rollback(self, seq: int) -> None:
        """Forget the actions after ``seq`` (the log did not take them)."""
        if seq >= self.seq:
            return
        ended = any(action in END_ACTIONS for action in self.actions[seq:])
        del self.actions[seq:]
        self.engine = replay(self.code, self.actions)
        if ended:
            self.result = None

    # -- views -------------------------------------------------------------------

    def placements(self) -> Placements:
        """The engine's placement help, columns numbered from 1 as players number them."""
        return [
            [[target + 1 for target in targets] for targets in groups]
            for groups in self.engine.placements()
        ]

    def targets(self, column: int, count: int | None) -> list[int]:
        """The columns (from 1) the group of ``count`` cards at the foot of ``column`` (from
        1) may go to; raises :class:`IllegalMoveError` when that group cannot move."""
        return [target + 1 for target in self.engine.targets(column - 1, count)]

    def elapsed(self, now: datetime) -> float:
        if self.result is not None:
            return self.result.elapsed
        return max(0.0, (now - self.started_at).total_seconds())

    def view(self, now: datetime, par: int | None = None) -> GameView:
        engine = self.engine
        return GameView(
            game=self.id,
            code=self.code,
            suits=engine.suits,
            mode=self.mode,
            day=self.day,
            board=engine.board_text().split("\n")[:10],
            moves=engine.moves,
            score=engine.score,
            removed=engine.removed_count,
            won=engine.is_won,
            finished=self.finished,
            can_undo=engine.can_undo and not self.finished,
            seq=self.seq,
            elapsed=round(self.elapsed(now), 3),
            par=par,
            race=self.race,
        )
