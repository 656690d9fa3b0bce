"""What the player types at the prompt, read into one command.

>>> read_command("3 7")
Command(kind='move', move=Move(source=2, target=6, count=None), column=None)
>>> read_command("3-7x2").move
Move(source=2, target=6, count=2)
>>> read_command("4").kind, read_command("4").column
('auto', 3)
>>> read_command("u").kind
'undo'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from server.engine import COLUMNS, InvalidMoveError, Move

from ..words import N_, _

CommandKind = Literal["move", "auto", "undo", "restart", "resign", "quit", "help", "copy"]

#: Typed alone, these act at once (no Enter needed).
KEYS: dict[str, CommandKind] = {
    "u": "undo",
    "r": "restart",
    "x": "resign",
    "q": "quit",
    "?": "help",
    "c": "copy",  # the finished screen's share text
}
#: Asked twice: the second press of the same key does it.
CONFIRM: dict[CommandKind, str] = {
    "restart": N_("Start this deal over from the first move? Press r again."),
    "resign": N_("Resign? The game ends with the score it has. Press x again."),
}
WORDS: dict[str, CommandKind] = {
    "undo": "undo",
    "restart": "restart",
    "resign": "resign",
    "quit": "quit",
    "exit": "quit",
    "help": "help",
    "h": "help",
}

_MOVE = re.compile(r"^(\d{1,2})\s*(?:-|\s)\s*(\d{1,2})\s*(?:[xX]\s*(\d{1,2}))?$")
_COLUMN = re.compile(r"^(\d{1,2})$")
# A move typed up to its target: an ``x`` next starts its count, not the resign key.
_COUNT_NEXT = re.compile(r"^\s*\d{1,2}\s*(?:-|\s)\s*\d{1,2}\s*$")
# While typing: the column chosen so far and, once given, the count.
_PARTIAL = re.compile(r"^(\d{1,2})(?:\s*(?:-|\s)\s*(?:\d{1,2})?\s*(?:[xX]\s*(\d{1,2})?)?)?$")


@dataclass(frozen=True)
class Command:
    kind: CommandKind
    move: Move | None = None
    column: int | None = None  # 0-based, for the auto move


def read_command(text: str) -> Command:
    """One command from a line of input; :class:`InvalidMoveError` says what is wrong."""
    text = text.strip()
    word = KEYS.get(text) or WORDS.get(text.lower())
    if word is not None:
        return Command(word)
    column = _COLUMN.match(text)
    if column is not None:
        number = int(column.group(1))
        if not 1 <= number <= COLUMNS:
            raise InvalidMoveError(_("columns are numbered 1 to %(count)s") % {"count": COLUMNS})
        return Command("auto", column=number - 1)
    move = _MOVE.match(text)
    if move is not None:
        source, target, count = move.groups()
        notation = f"{source}-{target}" + (f"x{count}" if count else "")
        return Command("move", move=Move.from_text(notation))
    raise InvalidMoveError(
        _(
            "%(text)r is not a move: type 3 7 or 3-7x2 to move, a column number for its "
            "best move, u to undo, ? for help"
        )
        % {"text": text}
    )


def typed_key(text: str, keys: Iterable[str] = KEYS) -> str | None:
    """The command key just typed at the end of ``text``, if it is one: it acts at once,
    whatever was typed before it (``"6q"`` quits), unless it is move notation (the ``x`` of
    ``"3-7x2"``).

    >>> typed_key("6q"), typed_key("3-7x"), typed_key("6x"), typed_key("3-7")
    ('q', None, 'x', None)
    """
    key = text[-1:]
    if not key or key not in keys:
        return None
    if key in "xX" and _COUNT_NEXT.match(text[:-1]):
        return None
    return key


def chosen_column(text: str) -> tuple[int, int | None] | None:
    """The column (0-based) and count being typed, for placement help: ``"3-"`` is (2, None)."""
    match = _PARTIAL.match(text.strip())
    if match is None:
        return None
    number = int(match.group(1))
    if not 1 <= number <= COLUMNS:
        return None
    count = int(match.group(2)) if match.group(2) else None
    return number - 1, count or None
