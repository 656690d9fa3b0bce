"""A game at the table: the local engine for instant previews, the server's word as final.

The terminal UI plays against a :class:`Table`:

* :class:`LocalTable` (``simon play --offline``): the local engine is the authority.
* :class:`OnlineTable`: every action is previewed at once on a copy of the
  game, sent with an id, and reconciled with the server's answer: ``moved``
  confirms it (applied to the *confirmed* game), an ``error`` rolls the preview
  back to the confirmed game, a ``state`` replaces it. After a reconnect the
  game is resumed from its last sequence number and the actions still
  unanswered are sent again with the same ids, so none is applied twice.

A table tells its listener about every change with a :class:`Notice` (or None
when only the board changed).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from server.engine import (
    EngineError,
    Game,
    GameCode,
    IllegalMoveError,
    InvalidBoardError,
    InvalidCodeError,
    Move,
    Rule,
    parse_board,
)
from server.protocol import (
    AutoMove,
    Board,
    DailyChanged,
    DayStats,
    DayStatsRequest,
    Error,
    Finished,
    FriendFinished,
    GameView,
    Mode,
    Moved,
    MoveRequest,
    RaceDigest,
    RaceEntry,
    RaceEventKind,
    RaceRequest,
    RaceStandings,
    Resign,
    Restart,
    Resume,
    ServerMessage,
    Start,
    State,
    Undo,
)

from .connection import Connection
from .errors import ClientError
from .pending import Pending, PendingActions
from .wording import player_label, resigned_text, rule_sentence, won_text
from .words import _, long_day

NoticeKind = Literal["info", "refused", "won", "status"]
RACE_LOG = 5  # the latest race events kept for the screen


@dataclass(frozen=True)
class Notice:
    """Something to tell the player in the status line."""

    kind: NoticeKind
    text: str
    rule: str | None = None


Listener = Callable[[Notice | None], None]


def game_from_view(view: GameView) -> Game:
    """The server's game as a local engine game (the undo history stays on the server)."""
    try:
        columns, suits = parse_board("\n".join(view.board) + "\n", view.suits)
        game = Game(columns, suits, code=GameCode.parse(view.code))
    except (InvalidBoardError, InvalidCodeError) as error:
        raise ClientError(
            _("the server sent a board this client cannot read: %(error)s") % {"error": error}
        ) from None
    game.moves = view.moves
    return game


class Table:
    """What the UI plays against: a game, its clock, its race, and the actions."""

    def __init__(self) -> None:
        self.game: Game | None = None
        self.mode: Mode | Literal["offline"] = "offline"
        self.day: date | None = None
        self.par: int | None = None
        self.rank: int | None = None
        #: "held": the finished daily is under fair-play review, off the board for now.
        self.review: str | None = None
        #: The board the finished daily is on ("new": the new players'), and while it is the
        #: new players', the first day whose daily counts on the public board.
        self.board: Board | None = None
        self.counts_from: date | None = None
        #: How long a fair-play review usually takes on the server (hours), when it says.
        self.review_hours: int | None = None
        self.finished = False
        #: A finished game's ``finished`` (percentile, streak, share) and its day's figures.
        self.after: Finished | None = None
        self.day_stats: DayStats | None = None
        self.status = ""  # the connection, for online tables
        self.race: dict[str, RaceEntry] = {}
        self.race_left: set[str] = set()  # in the race, not finished, and gone from the server
        self.race_total = 0  # everyone in the race (the panel shows the leaders and you)
        self.race_log: deque[str] = deque(maxlen=RACE_LOG)
        self.race_room: str | None = None  # a race room's code (client_cli/race_table.py)
        self.player: str | None = None
        self.listener: Listener | None = None
        self._clock_base = 0.0
        self._clock_start: float | None = None

    # -- facts for the screen -----------------------------------------------------

    @property
    def code(self) -> str:
        if self.game is None or self.game.code is None:
            return _("custom board")
        return str(self.game.code)

    @property
    def online(self) -> bool:
        return False

    @property
    def can_undo(self) -> bool:
        return self.game is not None and self.game.can_undo

    def elapsed(self) -> float:
        if self._clock_start is None:
            return self._clock_base
        return self._clock_base + time.monotonic() - self._clock_start

    def _set_clock(self, seconds: float, running: bool) -> None:
        self._clock_base = seconds
        self._clock_start = time.monotonic() if running else None

    def targets(self, column: int, count: int | None = None) -> list[int]:
        """Placement help from the local engine: the columns (0-based) a group may go to."""
        if self.game is None:
            return []
        try:
            return self.game.targets(column, count)
        except IllegalMoveError:
            return []

    def _tell(self, notice: Notice | None = None) -> None:
        if self.listener is not None:
            self.listener(notice)

    def _check_playing(self) -> None:
        if self.finished:
            raise IllegalMoveError(Rule.GAME_OVER)

    # -- actions (refusals the local engine sees raise IllegalMoveError) -----------

    async def move(self, move: Move) -> Move:
        """Play a move; return it as played (its count explicit)."""
        raise NotImplementedError

    async def auto(self, column: int) -> Move:
        """Play the best move of a column; return the move the engine chose."""
        raise NotImplementedError

    async def undo(self) -> None:
        raise NotImplementedError

    async def restart(self) -> None:
        raise NotImplementedError

    async def resign(self) -> None:
        """Give the game up: it ends with the score it has."""
        raise NotImplementedError

    async def close(self) -> None:
        """Leave the table (an online game stays on the server, to resume)."""


class LocalTable(Table):
    """Practice with no server: the local engine is the authority."""

    def __init__(self, game: Game) -> None:
        super().__init__()
        self.game = game
        self._set_clock(0.0, running=True)

    async def move(self, move: Move) -> Move:
        assert self.game is not None
        self._check_playing()
        played = self.game.push(move)
        self._after_move()
        return played

    async def auto(self, column: int) -> Move:
        assert self.game is not None
        self._check_playing()
        played = self.game.auto_move(column)
        self._after_move()
        return played

    async def undo(self) -> None:
        assert self.game is not None
        self._check_playing()
        self.game.undo()
        self.finished = False
        self._tell()

    async def restart(self) -> None:
        assert self.game is not None
        self.game.restart()
        self.finished = False
        self._set_clock(self.elapsed(), running=True)
        self._tell()

    async def resign(self) -> None:
        assert self.game is not None
        self._check_playing()
        self.finished = True
        self._set_clock(self.elapsed(), running=False)
        self._tell(Notice("info", resigned_text(self.game.score)))

    def _after_move(self) -> None:
        assert self.game is not None
        if self.game.is_won:
            self.finished = True
            self._set_clock(self.elapsed(), running=False)
            self._tell(Notice("won", won_text(self.game.score, self.game.moves)))
        else:
            self._tell()


class OnlineTable(Table):
    """A game on the server, previewed locally and reconciled with the server's answers."""

    def __init__(self, connection: Connection) -> None:
        super().__init__()
        self.connection = connection
        connection.on_message = self.receive
        connection.on_reconnect = self.resume
        connection.on_status = self._connection_status
        self.player = connection.player.name if connection.player else None
        self.view: GameView | None = None
        self.confirmed: Game | None = None
        self.seq = 0
        self.pending = PendingActions()
        self._held = False  # the connection dropped: actions wait for the resume
        #: The day whose deals were announced last: a ``daily_changed`` of the same day
        #: says only that one of its deals finished being proven (nothing to tell at a table).
        self._announced = connection.server_day()

    @property
    def online(self) -> bool:
        return True

    @property
    def can_undo(self) -> bool:
        # The confirmed moves since the last full state are in the local game's history;
        # a game rebuilt from a state has none, and then the server's word counts.
        if self.pending or (self.game is not None and self.game.can_undo):
            return True
        return self.view is not None and self.view.can_undo

    # -- starting and resuming ----------------------------------------------------

    async def start(self, mode: Mode, suits: int, code: str | None = None) -> None:
        """Start (or, for today's daily, take up again) a game; raises ClientError."""
        request = Start(type="start", mode=mode, suits=suits, code=code)  # type: ignore[arg-type]
        reply = await self.connection.request(request, State)
        self._replace(reply.state)
        if mode == "daily":
            await self._follow_race()

    async def _follow_race(self) -> None:
        assert self.view is not None
        standings = await self.connection.request(
            RaceRequest(type="race", suits=self.view.suits), RaceStandings
        )
        self._standings(standings)

    async def resume(self) -> None:
        """After a reconnect: take the game up again and resend what was not answered."""
        if self.view is None:
            return
        reply = await self.connection.request(
            Resume(type="resume", game=self.view.game, seq=self.seq), State
        )
        self._replace(reply.state, answered=None)
        index = 0
        while index < len(self.pending):  # actions taken meanwhile join the queue
            await self.connection.send(self.pending[index].message)
            index += 1
        self._held = False
        if self.view.mode == "daily":
            await self._follow_race()
        self._tell(Notice("status", _("Reconnected: the game goes on.")))

    def _connection_status(self, text: str) -> None:
        if text != "connected":
            self._held = True
        self.status = (
            ""
            if text == "connected"
            else _("%(status)s; your moves will follow") % {"status": text}
        )
        self._tell()

    # -- actions --------------------------------------------------------------------

    async def move(self, move: Move) -> Move:
        assert self.game is not None
        self._check_playing()
        played = self.game.push(move)  # the preview; an illegal move raises here
        request = MoveRequest(type="move", id=self.connection.next_id(), move=played.text())
        await self._send(Pending(request, "move", played))
        return played

    async def auto(self, column: int) -> Move:
        assert self.game is not None
        self._check_playing()
        played = self.game.auto_move(column)
        request = AutoMove(type="auto", id=self.connection.next_id(), column=column + 1)
        await self._send(Pending(request, "auto", Move(column, column)))
        return played

    async def undo(self) -> None:
        assert self.game is not None
        self._check_playing()
        if not self.can_undo:
            raise IllegalMoveError(Rule.NOTHING_TO_UNDO)
        previewed = self.game.can_undo
        if previewed:
            self.game.undo()
        request = Undo(type="undo", id=self.connection.next_id())
        await self._send(Pending(request, "undo", previewed=previewed))

    async def restart(self) -> None:
        assert self.game is not None
        self._check_playing()  # the server keeps a finished game as it ended
        self.game = Game.from_code(self.code)
        request = Restart(type="restart", id=self.connection.next_id())
        await self._send(Pending(request, "restart"))

    async def resign(self) -> None:
        """Sent like any action (so a reconnect resends it); ``finished`` tells the outcome."""
        self._check_playing()
        request = Resign(type="resign", id=self.connection.next_id())
        await self._send(Pending(request, "resign"))

    async def _send(self, pending: Pending) -> None:
        """Queue an action and send it, unless the connection is down: then the resume does."""
        self.pending.append(pending)
        self._tell()
        if not self._held:
            await self.connection.send(pending.message)

    async def close(self) -> None:
        await self.connection.close()

    # -- the server's answers ------------------------------------------------------------

    def receive(self, message: ServerMessage) -> None:
        """Take in one message from the server (replies to actions and pushed events)."""
        if isinstance(message, Moved):
            self._moved(message)
        elif isinstance(message, State):
            self._replace(message.state, answered=message.id)
        elif isinstance(message, Error):
            self._refused(message)
        elif isinstance(message, Finished):
            self._finished(message)
            self._ask_day_stats(message)
        elif isinstance(message, DayStats):
            self.day_stats = message
            self._tell()
        elif isinstance(message, RaceDigest):
            self._digest(message)
        elif isinstance(message, RaceStandings):
            self._standings(message)
        elif isinstance(message, DailyChanged) and message.day != self._announced:
            self._announced = message.day
            self._tell(
                Notice(
                    "info",
                    _("A new day has begun: the deals of %(day)s are ready.")
                    % {"day": long_day(message.day)},
                )
            )
        elif isinstance(message, FriendFinished):  # someone you follow, or a league-mate
            said = {"name": message.name, "suits": message.suits}
            self._tell(Notice("info", _("%(name)s finished today's %(suits)s-suit daily.") % said))

    def _ask_day_stats(self, message: Finished) -> None:
        """A finished daily: ask for its day's figures (where it stands among everyone's)."""
        if self.view is None or message.game != self.view.game or self.day is None:
            return
        board: Board = "bots" if self.connection.player and self.connection.player.bot else "humans"
        request = DayStatsRequest(
            type="day_stats", id=self.connection.next_id(), day=self.day,
            suits=self.view.suits, board=board, player=self.player,
        )  # fmt: skip
        asyncio.get_running_loop().create_task(self._send_quietly(request))

    async def _send_quietly(self, request: DayStatsRequest) -> None:
        with contextlib.suppress(ClientError):  # a nicety: the game is over and stored
            await self.connection.send(request)

    def _moved(self, message: Moved) -> None:
        self.pending.take(message.id)
        if self.confirmed is None or self.view is None or message.game != self.view.game:
            return
        if message.seq > self.seq:
            try:
                self.confirmed.push(Move.from_text(message.move))
            except EngineError:  # a move this engine cannot read or play: ask for the state
                self._resync()
                return
            self.seq = message.seq
            if self.confirmed.moves != message.moves or self.confirmed.score != message.score:
                self._resync()
                return
        # else: already part of the state a resume brought back; a resend was answered again
        self._rebuild()
        if message.won:
            self.finished = True
            self._set_clock(self.elapsed(), running=False)
            self._tell(Notice("won", won_text(message.score, message.moves)))
        else:
            self._tell()

    def _refused(self, error: Error) -> None:
        pending = self.pending.take(error.id)
        if pending is None:
            if error.id is None:
                self._tell(Notice("info", error.message))
            return
        self._rebuild()  # roll the preview back to the server's game
        action = pending.move.text() if pending.kind == "move" and pending.move else pending.kind
        if pending.kind == "auto" and pending.move is not None:
            action = _("column %(column)s") % {"column": pending.move.source + 1}
        sentence = rule_sentence(error.rule, error.message)
        self._tell(Notice("refused", f"{action}: {sentence}", error.rule or str(error.code)))

    def _replace(self, view: GameView, answered: Any = None) -> None:
        """A whole state from the server: the confirmed game; answered actions leave the queue."""
        self.pending.answered_by_state(answered)
        self.view = view
        self.confirmed = game_from_view(view)
        self.seq = view.seq
        self.mode = view.mode
        self.day = view.day
        self.par = view.par
        self.finished = view.finished
        self._set_clock(view.elapsed, running=not view.finished)
        self._rebuild()
        self._tell()

    def _rebuild(self) -> None:
        """The shown game: the confirmed one with the unanswered actions played on it."""
        assert self.confirmed is not None
        self.game = self.pending.played_on(self.confirmed)

    def _resync(self) -> None:
        """The preview and the server disagree: ask for the whole state again."""
        if self.view is None:
            return
        asyncio.get_running_loop().create_task(self._resync_now())

    async def _resync_now(self) -> None:
        assert self.view is not None
        try:
            await self.connection.send(Resume(type="resume", game=self.view.game, seq=self.seq))
        except ClientError as error:
            self._tell(Notice("status", str(error)))

    def _finished(self, message: Finished) -> None:
        if self.view is None or message.game != self.view.game:
            return
        self.finished = True
        self.after = message
        self.rank = message.rank
        self.review = message.review
        self.review_hours = self.connection.review_hours
        self.board = message.board
        self.counts_from = message.counts_from
        self.par = message.par if message.par is not None else self.par
        self._set_clock(message.elapsed, running=False)
        if message.won:
            text = won_text(message.score, message.moves, message.rank, message.review)
            self._tell(Notice("won", text))
        elif message.resigned:
            self._tell(Notice("info", resigned_text(message.score, message.rank, message.review)))
        else:
            self._tell(Notice("info", _("Game over: score %(score)s.") % {"score": message.score}))

    def _standings(self, standings: RaceStandings | RaceDigest) -> None:
        self.race = {entry.player: entry for entry in standings.players}
        self.race_left = {entry.player for entry in standings.players if entry.left}
        self.race_total = standings.total
        self._tell()

    def _digest(self, digest: RaceDigest) -> None:
        """The race as it stands now: what changed since the last one shown goes to the log
        (the server sends digests, not every racer's moves)."""
        if self.view is None or digest.suits != self.view.suits:
            return
        for entry in digest.players:
            for event in _changes(self.race.get(entry.player), entry):
                self._log_race(event, entry)
        self._standings(digest)

    def _log_race(self, event: RaceEventKind, entry: RaceEntry) -> None:
        who = _("you") if entry.player == self.player else player_label(entry.player, entry.bot)
        said = {"who": who, "removed": entry.removed, "score": entry.score}
        line = {
            "joined": _("%(who)s joined"),
            "moved": None,
            "removed": _("%(who)s removed a run (%(removed)s/4)"),
            "finished": _("%(who)s won: %(score)s")
            if entry.won
            else _("%(who)s finished: %(score)s"),
            "resigned": _("%(who)s resigned: %(score)s"),
            "left": _("%(who)s left"),
        }[event]
        if line is not None:
            self.race_log.append(line % said)


def _changes(before: RaceEntry | None, now: RaceEntry) -> list[RaceEventKind]:
    """What a racer did between two digests, as the events that say it, in their order
    (none: only moves). A digest comes at most once a second: the last run and the win it
    made come in one, and both are told."""
    if before is None:  # new to this follower's rows: not told apart from a newcomer
        return []
    found: list[RaceEventKind] = []
    if now.removed > before.removed:
        found.append("removed")
    if now.finished and not before.finished:
        found.append("resigned" if now.resigned else "finished")
    elif now.left and not before.left:
        found.append("left")
    return found
