"""The words every view of the client shares: counts, player labels, a rule's sentence,
the line that ends a game and the command that replays it."""

from __future__ import annotations

from datetime import date

from server.engine import Rule
from server.protocol import Board

from .words import N_, _, ngettext, short_day


def rule_sentence(rule: str | None, fallback: str) -> str:
    """The sentence of a refusal: the server's own (``fallback``, said in the connection's
    language), unless it is the English sentence of a rule this client knows: then the
    client's catalog says it. A code unknown here keeps the server's message.

    >>> rule_sentence("nothing-on-an-ace", "Nothing can be put on an ace.")
    'Nothing can be put on an ace.'
    >>> rule_sentence("nothing-on-an-ace", "Na asa nie można nic położyć.")
    'Na asa nie można nic położyć.'
    """
    try:
        known = Rule(rule) if rule else None
    except ValueError:
        known = None
    if known is None:
        return fallback
    if fallback and fallback != known.sentence:
        return fallback  # the server's, in the language asked for
    return _(known.sentence)  # the engine's sentences are in the cli catalog too (cli.cfg)


def plural(count: int, word: str) -> str:
    """``1 suit``, ``2 suits``, ``0 results``: the counted words of :data:`COUNTED`, in the
    language spoken (CLDR's plural forms).

    >>> plural(1, "suit"), plural(4, "suit")
    ('1 suit', '4 suits')
    """
    one, other = COUNTED[word]
    return ngettext(one, other, count) % {"count": count}


#: The counted words, by their English singular (marked by ``_counted_for_the_catalog``).
COUNTED: dict[str, tuple[str, str]] = {
    "suit": ("%(count)s suit", "%(count)s suits"),
    "move": ("%(count)s move", "%(count)s moves"),
    "run": ("%(count)s run", "%(count)s runs"),
    "result": ("%(count)s result", "%(count)s results"),
    "game": ("%(count)s game", "%(count)s games"),
    "point": ("%(count)s point", "%(count)s points"),
    "member": ("%(count)s member", "%(count)s members"),
    "day": ("%(count)s day", "%(count)s days"),
}


def _counted_for_the_catalog(count: int) -> list[str]:
    """:data:`COUNTED` as the catalog's plural entries (never called: pybabel reads it)."""
    return [
        ngettext("%(count)s suit", "%(count)s suits", count),
        ngettext("%(count)s move", "%(count)s moves", count),
        ngettext("%(count)s run", "%(count)s runs", count),
        ngettext("%(count)s result", "%(count)s results", count),
        ngettext("%(count)s game", "%(count)s games", count),
        ngettext("%(count)s point", "%(count)s points", count),
        ngettext("%(count)s member", "%(count)s members", count),
        ngettext("%(count)s day", "%(count)s days", count),
    ]


def player_label(name: str, bot: bool) -> str:
    """A player's name as every view shows it: declared bot accounts are marked.

    >>> player_label("robo", True), player_label("ann", False)
    ('BOT robo', 'ann')
    """
    return _("BOT %(name)s") % {"name": name} if bot else name


UNDER_REVIEW = N_("under review")


def review_wait(hours: int | None) -> str:
    """How long a fair-play review usually takes on the server (its ``review_hours``), as a
    sentence told to a player whose result is held; "" when the server does not say.

    >>> review_wait(24), review_wait(72), review_wait(None)
    ('A review usually takes about 24 hours.', 'A review usually takes about 3 days.', '')
    """
    if hours is None:
        return ""
    if hours >= 48:
        days = round(hours / 24)
        return ngettext(
            "A review usually takes about %(count)s day.",
            "A review usually takes about %(count)s days.",
            days,
        ) % {"count": days}
    return ngettext(
        "A review usually takes about %(count)s hour.",
        "A review usually takes about %(count)s hours.",
        hours,
    ) % {"count": hours}


def _standing(rank: int | None, review: str | None) -> str:
    if review is not None:
        return _(", under review (off the leaderboard for now)")
    return _(", rank %(rank)s") % {"rank": rank} if rank is not None else ""


def board_note(board: Board | None, counts_from: date | None) -> str:
    """Where a daily stands when it is not on the public board: the new players' board, and
    from which day the player's dailies count on the public one.

    >>> board_note("new", date(2026, 3, 3))
    "on the new players' board (your dailies count on the public board from Mar 3, 2026)"
    >>> board_note("humans", None)
    ''
    """
    if board != "new":
        return ""
    if counts_from:
        return _(
            "on the new players' board (your dailies count on the public board from %(day)s)"
        ) % {"day": short_day(counts_from)}
    return _("on the new players' board")


def won_text(score: int, moves: int, rank: int | None = None, review: str | None = None) -> str:
    """The line that tells the player they won."""
    return _("You won! Score %(score)s in %(moves)s%(standing)s.") % {
        "score": score,
        "moves": plural(moves, "move"),
        "standing": _standing(rank, review),
    }


def resigned_text(score: int, rank: int | None = None, review: str | None = None) -> str:
    """The line that tells the player their resigned game is over."""
    return _("You resigned: the game is over with score %(score)s%(standing)s.") % {
        "score": score,
        "standing": _standing(rank, review),
    }


def replay_line(game: str) -> str:
    """How to see a finished game again: the game's id in the command that takes it."""
    return _("Replay it: simon replay --game %(game)s") % {"game": game}
