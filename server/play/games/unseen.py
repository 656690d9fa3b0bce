"""The requests a game's action log holds that a connection did not see applied, by message
id, so that a resend of any of them is answered again, never played twice, however many
actions it is from the game's end (the game's own memory, :mod:`.resends`, keeps the last
few)::

    unseen = Unseen(game, after=12)
    unseen.add(await store.requests_after(game.id, 12), upto=game.seq)
    unseen.find(7, "3-7")            # 14: the move of id 7 was applied at seq 14
    unseen.recall(game, 14, "3-7")   # Remembered: its moved reply is made again from it

A session makes one when its client resumes (past the seq the client names: what it may
have sent and not seen answered), when its copy of the game turned out to be behind the log
(its commit found the seq taken, or the engine refused an action the log had made fit), and
when another connection of this node resumed the game (a dropped connection's last frames,
read after the new one resent them). The log is read then, and again only when the game has
moved past what was read before this connection played an action of its own: a client
resends what it was waiting for before it sends anything new. A move that is none of these
reads nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from server.engine import Game
from server.engine.actions import RESTART, UNDO, apply, replay
from server.protocol import MessageId
from server.store import END_ACTIONS, LogEntry

from .player_game import PlayerGame, encode_request_id, outcome_of
from .resends import Remembered


class Unseen:
    """The requests a game's log holds after seq ``after``, for a connection's resends."""

    __slots__ = ("_engine", "_recalled", "_requests", "after", "game", "upto", "watching")

    def __init__(self, game: PlayerGame, after: int) -> None:
        self.game = game
        #: The seq past which the log's requests are looked at (a resume's: the last seq the
        #: client saw).
        self.after = after
        #: The log has been read up to this seq (or this session played up to it).
        self.upto = after
        #: Whether a game that moved on past ``upto`` is read again (until this session
        #: plays an action of its own).
        self.watching = True
        #: By encoded message id (as the log keeps it): the seq and the request's text.
        self._requests: dict[str, tuple[int, str]] = {}
        self._recalled: dict[int, Remembered] = {}
        #: The game replayed from its deal, and how many actions it has had: resends come
        #: in the order they were first sent, so each replay takes up where the last ended.
        self._engine: tuple[Game, int] | None = None

    def __len__(self) -> int:
        return len(self._requests)

    def add(self, entries: Sequence[LogEntry], *, upto: int) -> None:
        """Take the log's requests read after :attr:`upto`; the read covered up to ``upto``
        at least (the game's seq when it was made)."""
        requests = self._requests
        for entry in entries:
            if entry.request_id is not None and entry.request is not None:
                requests[entry.request_id] = (entry.seq, entry.request)  # the latest use wins
            upto = max(upto, entry.seq)
        self.upto = max(self.upto, upto)

    def stale(self, game: PlayerGame) -> bool:
        """Whether the log should be read again before a request is looked up."""
        return self.watching and game.seq > self.upto

    def watch(self) -> None:
        """Read the log again before the next look-up if the game has moved past it."""
        self.watching = True

    def played(self, before: int, seq: int) -> None:
        """This session played an action after seq ``before``; the game is at ``seq`` now."""
        if before == self.upto:
            self.upto = seq
        self.watching = False

    def find(self, message_id: MessageId | None, what: str) -> int | None:
        """The seq at which ``message_id`` asking for ``what`` was applied, if it was."""
        if message_id is None or not self._requests:
            return None
        found = self._requests.get(encode_request_id(message_id) or "")
        if found is None or found[1] != what:
            return None
        return found[0]

    def recall(self, game: PlayerGame, seq: int, what: str) -> Remembered:
        """How to answer again the request applied at ``seq`` (call with ``game`` up to
        date to ``seq`` at least): as :meth:`PlayerGame.reload` remembers the last few, a
        move by what it did, another action by the game's state now."""
        recalled = self._recalled.get(seq)
        if recalled is not None:
            return recalled
        actions = game.actions
        action = actions[seq - 1]
        if action in END_ACTIONS or action in (UNDO, RESTART):
            recalled = Remembered(what, ())
        else:
            cursor = self._engine
            if cursor is None or cursor[1] > seq - 1:
                engine = replay(game.code, actions[: seq - 1])
            else:
                engine, at = cursor
                for earlier in actions[at : seq - 1]:
                    apply(engine, earlier)
            removed_before = engine.removed_count
            apply(engine, action)
            self._engine = (engine, seq)
            won = engine.is_won  # a win is the game's last move
            result = game.result if won else None
            outcome = outcome_of(game, "move", seq, action, removed_before, won, result, engine)
            recalled = Remembered(what, (), outcome)
        self._recalled[seq] = recalled
        return recalled
