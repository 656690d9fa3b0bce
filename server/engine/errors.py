"""The engine's errors, under one root (a ``ValueError``: the caller's input is wrong).

::

    EngineError
    ├── InvalidCodeError     a game code that does not parse
    ├── InvalidBoardError    board text that is not a valid layout
    ├── InvalidSnapshotError bytes that are not a saved game
    ├── InvalidMoveError     move notation that does not parse (``3-7x``)
    └── IllegalMoveError     a well-formed action the rules refuse; carries a Rule

Every refusal of the rules names the :class:`~server.engine.rules.Rule` it
breaks, so a client can show the player which rule it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .rules import Rule


class EngineError(ValueError):
    """The root of what the engine raises."""


class InvalidCodeError(EngineError):
    """A game code that does not parse."""


class InvalidBoardError(EngineError):
    """Board text that is not a valid layout for a pack of 1, 2 or 4 suits."""


class InvalidSnapshotError(EngineError):
    """Bytes that are not a game saved by :meth:`Game.snapshot`."""


class InvalidMoveError(EngineError):
    """Move notation that does not parse."""


class IllegalMoveError(EngineError):
    """An action the rules refuse; ``rule`` says which rule, ``message`` says it to a player."""

    def __init__(self, rule: Rule, detail: str | None = None) -> None:
        self.rule = rule
        self.message = detail or rule.sentence
        super().__init__(self.message)

    @property
    def code(self) -> str:
        return self.rule.value
