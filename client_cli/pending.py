"""The actions an online table sent and the server has not answered yet.

They stay queued in the order sent: after a reconnect they are sent again as they are
(same ids, so the server applies none twice), and the shown game is the confirmed one
with them played on it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from server.engine import Game, IllegalMoveError, Move


@dataclass
class Pending:
    """An action sent to the server and not yet answered."""

    message: Any  # the protocol message, id included, resent as is after a reconnect
    kind: Literal["move", "auto", "undo", "restart", "resign"]
    move: Move | None = None  # move: the move; auto: the column in ``source``
    previewed: bool = field(default=True)


class PendingActions:
    """The unanswered actions, oldest first."""

    def __init__(self) -> None:
        self._actions: list[Pending] = []

    def __len__(self) -> int:
        return len(self._actions)

    def __iter__(self) -> Iterator[Pending]:
        return iter(self._actions)

    def __getitem__(self, index: int) -> Pending:
        return self._actions[index]

    def append(self, pending: Pending) -> None:
        self._actions.append(pending)

    def clear(self) -> None:
        self._actions.clear()

    def take(self, message_id: Any) -> Pending | None:
        """The action a reply answers, out of the queue (None: not one of these)."""
        for index, pending in enumerate(self._actions):
            if message_id is not None and pending.message.id == message_id:
                return self._actions.pop(index)
        return None

    def answered_by_state(self, message_id: Any) -> None:
        """A whole state answered the action ``message_id``: it and those before it leave."""
        if message_id is not None and any(p.message.id == message_id for p in self._actions):
            while self._actions:
                if self._actions.pop(0).message.id == message_id:
                    break

    def played_on(self, confirmed: Game) -> Game:
        """The shown game: a copy of the confirmed one with the unanswered actions played."""
        game = confirmed.copy()
        for pending in self._actions:
            try:
                if pending.kind == "move" and pending.move is not None:
                    game.push(pending.move)
                elif pending.kind == "auto" and pending.move is not None:
                    game.auto_move(pending.move.source)
                elif pending.kind == "undo" and game.can_undo:
                    game.undo()
                elif pending.kind == "restart":
                    game = Game.from_code(str(confirmed.code))
            except IllegalMoveError:
                continue  # the server will refuse it too, and say why
        return game
