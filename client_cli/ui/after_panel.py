"""The finished screen's part for an online game: for a daily, where the result stands
among everyone's, the streak, a one-line histogram of the winners' moves, and the text to
share (``c`` copies it where a clipboard program is found, else it is printed when the game
screen closes); for any, the command that replays it."""

from __future__ import annotations

import shutil
import subprocess
from typing import Final

from rich.text import Text
from textual.widgets import Static

from server.protocol import DayStats, Finished

from ..table import Table
from ..wording import replay_line, review_wait
from ..words import _, ngettext, number
from ..words import width as width_of

#: Eight heights of a bar, lowest first.
BLOCKS: Final = "▁▂▃▄▅▆▇█"
#: Programs that put text on the clipboard, tried in order (macOS, Wayland, X11).
CLIPBOARDS: Final = (
    ("pbcopy",),
    ("wl-copy",),
    ("xclip", "-selection", "clipboard"),
    ("xsel", "-ib"),
)


def sparkline(stats: DayStats) -> tuple[str, str] | None:
    """The winners' bins as one line of blocks, and a line marking the player's bin (``▲``)."""
    bins = stats.moves_histogram
    if not bins:
        return None
    most = max(b.count for b in bins) or 1
    line = "".join(
        BLOCKS[min(7, (len(BLOCKS) - 1) * b.count // most)] if b.count else " " for b in bins
    )
    marks = ""
    if stats.you is not None and stats.you.won:
        for index, found in enumerate(bins):
            if found.moves <= stats.you.moves < found.moves + stats.bin_width:
                marks = " " * index + "▲"
    return line, marks


def after_text(finished: Finished, stats: DayStats | None, review_hours: int | None = None) -> Text:
    """The lines the finished screen shows under the board (``review_hours``: how long a
    fair-play review usually takes, told when the result is held)."""
    text = Text()
    if finished.review == "held" and (wait := review_wait(review_hours)):
        text.append(wait + "\n", "magenta")
    facts = []
    if finished.percentile is not None:
        facts.append(
            _("beats or ties %(percent)s%% of today's results")
            % {"percent": number(finished.percentile)}
        )
    if finished.streak is not None:
        streak = finished.streak
        facts.append(
            ngettext(
                "%(count)s day in a row (best %(best)s)",
                "%(count)s days in a row (best %(best)s)",
                streak.current,
            )
            % {"count": streak.current, "best": streak.best}
        )
    if facts:
        text.append(" · ".join(facts) + "\n", "bold")
    drawn = sparkline(stats) if stats is not None else None
    if stats is not None and drawn is not None:
        width = stats.bin_width
        first, last = stats.moves_histogram[0].moves, stats.moves_histogram[-1].moves + width - 1
        lead = _("winners' moves %(first)s ") % {"first": first}
        text.append(lead, "dim")
        text.append(drawn[0], "cyan")
        text.append(f" {last}\n", "dim")
        if drawn[1]:
            text.append(" " * width_of(lead) + drawn[1] + " " + _("you") + "\n", "yellow")
    if finished.share:
        text.append(finished.share + "\n")
        text.append(_("c copies the text above") + "\n", "dim")
    text.append(replay_line(finished.game), "dim")
    return text


def copy_text(text: str) -> bool:
    """Put ``text`` on the clipboard with the first clipboard program found; False if none
    is there (or it failed)."""
    for command in CLIPBOARDS:
        if shutil.which(command[0]) is None:
            continue
        try:
            subprocess.run(command, input=text.encode(), check=True, timeout=5)
        except (OSError, subprocess.SubprocessError):
            continue
        return True
    return False


class AfterPanel(Static):
    """Shown once an online game is over (hidden otherwise)."""

    def update_from(self, table: Table) -> None:
        finished = table.after
        self.display = finished is not None
        if finished is not None:
            self.update(after_text(finished, table.day_stats, table.review_hours))
