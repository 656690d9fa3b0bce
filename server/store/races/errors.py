"""The race rooms' refusals (:mod:`server.store.races`): one exception, whose ``reason``
says which rule of the room refused the change; and a code that is taken.

Under :class:`~server.store.errors.StoreError`::

    RaceRefused(reason)   a change of a room that its state refuses (nothing changed)
    CodeTaken             a new room's code is taken: draw another
"""

from __future__ import annotations

from enum import Enum

from server.store.errors import StoreError


class Refusal(Enum):
    """Why a room refused a change: each reason has one error code for clients
    (``RACE_REFUSALS`` in :mod:`server.play.errors`)."""

    MISSING = "missing"  # no room has that code
    NOT_OPEN = "not-open"  # the countdown has begun (or the room is over)
    FULL = "full"  # as many racers as its capacity
    BOTS = "bots"  # a bot account, and the room does not allow bots
    NOT_OWNER = "not-owner"  # only its owner starts it
    TOO_FEW = "too-few"  # fewer than two racers
    NOT_ENTRANT = "not-entrant"  # not one of its racers
    NOT_OVER = "not-over"  # a rematch before the end
    TOO_MANY = "too-many"  # the owner has as many open rooms as they may


class RaceRefused(StoreError):
    """A change of a room that the room's state refuses, for ``reason``; the message says
    it in the log, ``params`` are the values the player's sentence names (the edge says
    it: server/play/errors.py's ``RACE_REFUSALS``)."""

    def __init__(
        self, reason: Refusal, message: str, params: dict[str, object] | None = None
    ) -> None:
        super().__init__(message)
        self.reason = reason
        self.params = params


class CodeTaken(StoreError):
    """A new room's code is taken: draw another."""
