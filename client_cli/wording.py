"""The words every view of the client shares: counts, player labels, a rule's sentence,
the line that ends a game and the command that replays it."""

from __future__ import annotations

from datetime import date

from server.engine import Rule
from server.protocol import Board


def rule_sentence(rule: str | None, fallback: str) -> str:
    """The sentence of a rule code the server named (its own message for a code unknown here)."""
    try:
        return Rule(rule).sentence if rule else fallback
    except ValueError:
        return fallback


def plural(count: int, word: str) -> str:
    """``1 suit``, ``2 suits``, ``0 results``.

    >>> plural(1, "suit"), plural(4, "suit")
    ('1 suit', '4 suits')
    """
    return f"{count} {word}{'' if count == 1 else 's'}"


def player_label(name: str, bot: bool) -> str:
    """A player's name as every view shows it: declared bot accounts are marked.

    >>> player_label("robo", True), player_label("ann", False)
    ('BOT robo', 'ann')
    """
    return f"BOT {name}" if bot else name


UNDER_REVIEW = "under review"


def _standing(rank: int | None, review: str | None) -> str:
    if review is not None:
        return f", {UNDER_REVIEW} (off the leaderboard for now)"
    return f", rank {rank}" if rank is not None else ""


def board_note(board: Board | None, counts_from: date | None) -> str:
    """Where a daily stands when it is not on the public board: the new players' board, and
    from which day the player's dailies count on the public one.

    >>> board_note("new", date(2026, 3, 3))
    "on the new players' board (your dailies count on the public board from 2026-03-03)"
    >>> board_note("humans", None)
    ''
    """
    if board != "new":
        return ""
    since = f" (your dailies count on the public board from {counts_from})" if counts_from else ""
    return f"on the new players' board{since}"


def won_text(score: int, moves: int, rank: int | None = None, review: str | None = None) -> str:
    """The line that tells the player they won."""
    return f"You won! Score {score} in {plural(moves, 'move')}{_standing(rank, review)}."


def resigned_text(score: int, rank: int | None = None, review: str | None = None) -> str:
    """The line that tells the player their resigned game is over."""
    return f"You resigned: the game is over with score {score}{_standing(rank, review)}."


def replay_line(game: str) -> str:
    """How to see a finished game again: the game's id in the command that takes it."""
    return f"Replay it: simon replay --game {game}"
