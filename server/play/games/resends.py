"""A game's memory of the last few client message ids it answered, so that a resent action
is answered again, never applied twice::

    resends.remember(7, "3-7", replies)
    resends.answered(7, "3-7").replies    # the replies given then
    resends.answered(7, "1-2")            # None: the same id asking for another action
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, NamedTuple

from server.protocol import MessageId, Reply

if TYPE_CHECKING:
    from .player_game import Outcome

#: Replies kept per game for resent client message ids: the fast path (after a resume,
#: the log answers for the actions before these, :mod:`.unseen`).
REPLAY_MEMORY: Final = 8


class Remembered(NamedTuple):
    """What a client message id asked for, and how to answer it again if it is resent."""

    what: str
    #: The replies given; none: answer from ``outcome`` (a move's: what it did, smaller
    #: than its reply's text), or else with the game's state now (after a reload: the log
    #: keeps no more of other actions).
    replies: tuple[Reply, ...]
    outcome: Outcome | None = None


class Resends:
    """By client message id, oldest first: what it asked for, and the replies."""

    __slots__ = ("_remembered",)

    def __init__(self) -> None:
        self._remembered: dict[MessageId, Remembered] = {}

    def __len__(self) -> int:
        return len(self._remembered)

    def clear(self) -> None:
        self._remembered.clear()

    def answered(self, message_id: MessageId | None, what: str) -> Remembered | None:
        """The replies already given to ``message_id``, if it asked for ``what`` then too.

        Both must match: a client that starts counting its ids again (a new process taking
        up its daily) sends a new action under an old id, and that one must be played. So a
        move is matched by its own text (``3-7`` and ``3-7x1`` are two requests: the same
        id asking for ``3-7x1`` later may be a new move of the same cards).
        """
        if message_id is None:
            return None
        remembered = self._remembered.get(message_id)
        if remembered is None or remembered.what != what:
            return None
        return remembered

    def remember(
        self,
        message_id: MessageId | None,
        what: str,
        replies: Sequence[Reply],
        outcome: Outcome | None = None,
    ) -> None:
        if message_id is None:
            return
        remembered = self._remembered
        remembered.pop(message_id, None)  # a reused id moves to the newest place
        remembered[message_id] = Remembered(what, tuple(replies), outcome)
        if len(remembered) > REPLAY_MEMORY:  # dicts keep insertion order: drop the oldest
            del remembered[next(iter(remembered))]
