"""One player's game on the server: the engine's :class:`Game` plus what the server keeps.

The engine checks every action; this wrapper adds the game's id, mode and day, the action
list in the stored notation (moves with explicit counts, ``undo``, ``restart``), a sequence
number bumped by every accepted action, and the replies to the last few client message ids
so a resent action is answered again and never applied twice.
"""

from __future__ import annotations

import base64
import json
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Final

from server.engine import Game, GameCode, Move
from server.protocol import GameView, MessageId

#: Replies kept per game for resent client message ids (a client resends only the few
#: actions it sent but saw no answer to).
REPLAY_MEMORY: Final = 8
UNDO: Final = "undo"
RESTART: Final = "restart"
_SNAPSHOT_VERSION: Final = 1


_PARSED: dict[str, Move] = {}
_PARSED_MOST: Final = 4096


def parse_move(text: str) -> Move:
    """``Move.from_text``, remembered: players send the same few hundred texts again and again."""
    move = _PARSED.get(text)
    if move is None:
        move = Move.from_text(text)  # raises InvalidMoveError: nothing is remembered
        if len(_PARSED) < _PARSED_MOST:
            _PARSED[text] = move
    return move


def replay(code: str | GameCode, actions: Sequence[str]) -> Game:
    """The game a stored action list leads to; raises the engine's errors on a bad action."""
    game = Game.from_code(code)
    for action in actions:
        if action == UNDO:
            game.undo()
        elif action == RESTART:
            game.restart()
        else:
            game.push(Move.from_text(action))
    return game


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended, as stored."""

    won: bool
    resigned: bool
    moves: int
    score: int
    removed: int
    elapsed: float
    finished_at: datetime


def snapshot_seq(data: bytes) -> int:
    """The sequence number a snapshot was taken at (-1 if the bytes are not a snapshot)."""
    try:
        seq = json.loads(data).get("seq", -1)
    except (ValueError, AttributeError):
        return -1
    return seq if isinstance(seq, int) else -1


class PlayerGame:
    """The authoritative game of one player."""

    __slots__ = (
        "actions",
        "bot",
        "checkpoint_at",
        "code",
        "day",
        "game",
        "id",
        "mode",
        "player_id",
        "player_name",
        "replies",
        "result",
        "saved_actions",
        "saved_at",
        "seq",
        "started_at",
    )

    def __init__(
        self,
        *,
        id: str,
        player_id: int,
        player_name: str,
        mode: str,
        code: str,
        day: date | None,
        started_at: datetime,
        game: Game | None = None,
        actions: list[str] | None = None,
        seq: int = 0,
        bot: bool = False,
    ) -> None:
        self.id = id
        self.player_id = player_id
        self.player_name = player_name
        self.mode = mode
        self.code = code
        self.day = day
        #: The player is a declared bot: the game is on the bots' board and marked in races.
        self.bot = bot
        self.started_at = started_at
        self.actions: list[str] = actions if actions is not None else []
        self.game = game if game is not None else replay(code, self.actions)
        self.seq = seq
        self.result: Result | None = None
        #: How many actions the store holds (checkpoints happen every so often).
        self.saved_actions = len(self.actions)
        #: The hub looks at checkpointing again once the game has this many actions.
        self.checkpoint_at = len(self.actions)
        #: When the store last got the actions (a timestamp by the hub's clock), made up
        #: for a new game: up to a minute earlier, so that games started together (the
        #: daily at midnight) are not all checkpointed at once.
        self.saved_at = started_at.timestamp() - random.uniform(0, 60)
        #: By client message id, oldest first: what it asked for, and the encoded replies.
        self.replies: dict[MessageId, tuple[str, tuple[str, ...]]] = {}

    @property
    def suits(self) -> int:
        return self.game.suits

    @property
    def finished(self) -> bool:
        return self.result is not None

    # -- actions: each returns the action as stored and bumps seq -----------------

    def move(self, move: Move) -> str:
        """Play a move; return it as stored (count explicit)."""
        # interned: a game's action list holds the same few hundred texts many times over
        played = sys.intern(self.game.push(move).text())
        self.actions.append(played)
        self.seq += 1
        return played

    def auto(self, column: int, count: int | None) -> str:
        played = sys.intern(self.game.auto_move(column, count).text())
        self.actions.append(played)
        self.seq += 1
        return played

    def undo(self) -> Move:
        taken = self.game.undo()
        self._record(UNDO)
        return taken

    def restart(self) -> None:
        self.game.restart()
        self._record(RESTART)

    def _record(self, action: str) -> None:
        self.actions.append(action)
        self.seq += 1

    def finish(self, *, resigned: bool, now: datetime) -> Result:
        game = self.game
        self.result = Result(
            won=game.is_won,
            resigned=resigned,
            moves=game.moves,
            score=game.score,
            removed=game.removed_count,
            elapsed=self.elapsed(now),
            finished_at=now,
        )
        self.seq += 1
        return self.result

    # -- resent messages ---------------------------------------------------------

    def answered(self, message_id: MessageId | None, what: str) -> tuple[str, ...] | None:
        """The replies already given to ``message_id``, if it asked for ``what`` then too.

        Both must match: a client that starts counting its ids again (a new process taking
        up its daily) sends a new action under an old id, and that one must be played.
        """
        if message_id is None:
            return None
        remembered = self.replies.get(message_id)
        if remembered is None or remembered[0] != what:
            return None
        return remembered[1]

    def remember(self, message_id: MessageId | None, what: str, replies: Sequence[str]) -> None:
        if message_id is None:
            return
        remembered = self.replies
        remembered[message_id] = (what, tuple(replies))
        if len(remembered) > REPLAY_MEMORY:  # dicts keep insertion order: drop the oldest
            del remembered[next(iter(remembered))]

    # -- views -------------------------------------------------------------------

    def elapsed(self, now: datetime) -> float:
        if self.result is not None:
            return self.result.elapsed
        return max(0.0, (now - self.started_at).total_seconds())

    def view(self, now: datetime, par: int | None = None) -> GameView:
        game = self.game
        return GameView(
            game=self.id,
            code=self.code,
            suits=game.suits,  # type: ignore[arg-type]
            mode=self.mode,  # type: ignore[arg-type]
            day=self.day,
            board=game.board_text().split("\n")[:10],
            moves=game.moves,
            score=game.score,
            removed=game.removed_count,
            won=game.is_won,
            finished=self.finished,
            can_undo=game.can_undo and not self.finished,
            seq=self.seq,
            elapsed=round(self.elapsed(now), 3),
            par=par,
        )

    # -- snapshots (the bus keeps one per game, for resume on any node) -----------

    def snapshot(self) -> bytes:
        result = self.result
        return json.dumps(
            {
                "v": _SNAPSHOT_VERSION,
                "id": self.id,
                "player": [self.player_id, self.player_name],
                "mode": self.mode,
                "code": self.code,
                "day": self.day.isoformat() if self.day else None,
                "started": self.started_at.isoformat(),
                "seq": self.seq,
                "game": base64.b64encode(self.game.snapshot()).decode(),
                "actions": self.actions,
                "saved": self.saved_actions,
                "result": None
                if result is None
                else [
                    result.won,
                    result.resigned,
                    result.moves,
                    result.score,
                    result.removed,
                    result.elapsed,
                    result.finished_at.isoformat(),
                ],
                "replies": [[key, what, frames] for key, (what, frames) in self.replies.items()],
            },
            separators=(",", ":"),
        ).encode()

    @classmethod
    def from_snapshot(cls, data: bytes) -> PlayerGame:
        """Raises ``ValueError`` (or an engine error, also a ValueError) on bad bytes."""
        try:
            raw = json.loads(data)
            if raw.get("v") != _SNAPSHOT_VERSION:
                raise ValueError("unknown game snapshot version")
            game = cls(
                id=raw["id"],
                player_id=raw["player"][0],
                player_name=raw["player"][1],
                mode=raw["mode"],
                code=raw["code"],
                day=date.fromisoformat(raw["day"]) if raw["day"] else None,
                started_at=datetime.fromisoformat(raw["started"]),
                game=Game.restore(base64.b64decode(raw["game"])),
                actions=list(raw["actions"]),
                seq=raw["seq"],
            )
            game.saved_actions = raw["saved"]
            game.checkpoint_at = len(game.actions)
            if raw["result"] is not None:
                won, resigned, moves, score, removed, elapsed, finished_at = raw["result"]
                game.result = Result(
                    won, resigned, moves, score, removed, elapsed,
                    datetime.fromisoformat(finished_at),
                )  # fmt: skip
            for key, what, frames in raw["replies"]:
                game.replies[key] = (str(what), tuple(str(frame) for frame in frames))
        except (KeyError, TypeError, IndexError) as error:
            raise ValueError(f"not a game snapshot: {error}") from None
        return game
