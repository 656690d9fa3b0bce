"""A player's daily scores by day, as the geometry of a small SVG chart.

The server draws it (the template writes the numbers into an inline ``<svg>``), so the
browser needs no chart library and the page stays within its content security policy::

    chart = score_chart(history.games)   # None when there is nothing to draw
    chart.series[0].path                 # "40.0,150.0 120.0,32.5 ..."
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Final

from server.engine import SUIT_COUNTS
from server.i18n import gettext, ngettext
from server.protocol import DayStats, HistoryGame

from .render import suits_name

WIDTH: Final = 640
HEIGHT: Final = 220
#: Room for the axis labels: left, right, top, bottom.
LEFT, RIGHT, TOP, BOTTOM = 48, 16, 14, 30


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    label: str  # "2026-03-01, 4 suits: 839, rank 3"


@dataclass(frozen=True)
class Series:
    suits: int
    dots: tuple[Dot, ...]

    @property
    def path(self) -> str:
        return " ".join(f"{dot.x:.1f},{dot.y:.1f}" for dot in self.dots)


@dataclass(frozen=True)
class Tick:
    at: float
    text: str


class _Frame:
    """The plotting area inside a chart's margins."""

    width: int
    height: int

    @property
    def left(self) -> int:
        return LEFT

    @property
    def right(self) -> int:
        return self.width - RIGHT

    @property
    def top(self) -> int:
        return TOP

    @property
    def bottom(self) -> int:
        return self.height - BOTTOM


@dataclass(frozen=True)
class Chart(_Frame):
    width: int
    height: int
    series: tuple[Series, ...]
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    summary: str


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    label: str  # "48 to 51 moves: 2 winners"
    mine: bool = False  # the bin of the player asked about


@dataclass(frozen=True)
class Histogram(_Frame):
    width: int
    height: int
    bars: tuple[Bar, ...]
    y_ticks: tuple[Tick, ...]
    x_ticks: tuple[Tick, ...]
    summary: str


def score_chart(games: Sequence[HistoryGame]) -> Chart | None:
    """The ranked dailies among ``games``: one line per suit count, day across, score up."""
    ranked = sorted(
        (game for game in games if game.day is not None and game.rank is not None),
        key=lambda game: (game.day, game.suits),
    )
    if not ranked:
        return None
    first: date = ranked[0].day  # type: ignore[assignment]  # ranked games all have a day
    last: date = ranked[-1].day  # type: ignore[assignment]
    span = max(1, (last - first).days)
    low = min(game.score for game in ranked)
    high = max(game.score for game in ranked)
    if high - low < 10:  # a flat line sits in the middle, not on an edge
        low, high = low - 5, high + 5
    inner_width = WIDTH - LEFT - RIGHT
    inner_height = HEIGHT - TOP - BOTTOM

    def x_of(day: date) -> float:
        if first == last:
            return LEFT + inner_width / 2
        return LEFT + inner_width * (day - first).days / span

    def y_of(score: int) -> float:
        return TOP + inner_height * (high - score) / (high - low)

    series = []
    for suits in SUIT_COUNTS:
        dots = tuple(
            Dot(
                x_of(game.day),  # type: ignore[arg-type]  # ranked games all have a day
                y_of(game.score),
                _dot_label(game.day, suits, game.score, game.rank, game.board == "new"),
            )
            for game in ranked
            if game.suits == suits
        )
        if dots:
            series.append(Series(suits, dots))
    middle = (low + high) // 2
    y_ticks = tuple(Tick(y_of(value), str(value)) for value in (high, middle, low))
    x_ticks: tuple[Tick, ...] = (Tick(x_of(first), first.isoformat()),)
    if last != first:
        x_ticks += (Tick(x_of(last), last.isoformat()),)
    summary = ngettext(
        "Daily scores from %(first)s to %(last)s: %(count)s ranked result, "
        "scores %(low)s to %(high)s.",
        "Daily scores from %(first)s to %(last)s: %(count)s ranked results, "
        "scores %(low)s to %(high)s.",
        len(ranked),
    ) % {
        "first": first.isoformat(),
        "last": last.isoformat(),
        "count": len(ranked),
        "low": min(g.score for g in ranked),
        "high": max(g.score for g in ranked),
    }
    return Chart(WIDTH, HEIGHT, tuple(series), y_ticks, x_ticks, summary)


def _dot_label(day: date | None, suits: int, score: int, rank: int | None, new: bool) -> str:
    values = {"day": day, "suits": suits_name(suits), "score": score, "rank": rank}
    if new:
        return (
            gettext("%(day)s, %(suits)s: %(score)s, rank %(rank)s on the new players' board")
            % values
        )
    return gettext("%(day)s, %(suits)s: %(score)s, rank %(rank)s") % values


#: The fewest bars' room a histogram has: two winners are two narrow bars (or one), not a
#: block across the chart.
MIN_SLOTS: Final = 9


def moves_chart(stats: DayStats) -> Histogram | None:
    """The winners' move counts of a day as bars, fewest moves on the left; the bin of the
    player asked about (``stats.you``) marked."""
    bins = stats.moves_histogram
    if not bins:
        return None
    width = stats.bin_width
    inner_width = WIDTH - LEFT - RIGHT
    inner_height = HEIGHT - TOP - BOTTOM
    most = max(b.count for b in bins)
    # a few bins sit in the middle of room for MIN_SLOTS, as bars of a fair width, not one
    # bar across the chart
    slots = max(len(bins), MIN_SLOTS)
    offset = (slots - len(bins)) // 2
    step = inner_width / slots
    mine = stats.you.moves if stats.you is not None and stats.you.won else None
    bars = []
    for index, found in enumerate(bins):
        height = inner_height * found.count / most
        last = found.moves + width - 1
        span = (
            ngettext("%(count)s move", "%(count)s moves", found.moves) % {"count": found.moves}
            if width == 1
            else gettext("%(first)s to %(last)s moves") % {"first": found.moves, "last": last}
        )
        winners = ngettext("%(count)s winner", "%(count)s winners", found.count)
        bars.append(
            Bar(
                x=LEFT + (offset + index) * step + 1,
                y=TOP + inner_height - height,
                width=max(1.0, step - 2),
                height=height,
                label=f"{span}: {winners % {'count': found.count}}",
                mine=mine is not None and found.moves <= mine <= last,
            )
        )
    y_ticks = (Tick(TOP, str(most)), Tick(TOP + inner_height, "0"))
    first, last = bins[0].moves, bins[-1].moves + width - 1
    x_ticks = (
        (Tick(LEFT + (offset + 0.5) * step, str(first)),)
        if first == last
        else (
            Tick(LEFT + offset * step, str(first)),
            Tick(LEFT + (offset + len(bins)) * step, str(last)),
        )
    )
    summary = ngettext(
        "Moves of the %(count)s winner of %(finished)s results: from %(first)s to "
        "%(last)s, in bins of %(width)s.",
        "Moves of the %(count)s winners of %(finished)s results: from %(first)s to "
        "%(last)s, in bins of %(width)s.",
        stats.won,
    ) % {
        "count": stats.won,
        "finished": stats.finished,
        "first": first,
        "last": last,
        "width": width,
    }
    return Histogram(WIDTH, HEIGHT, tuple(bars), y_ticks, x_ticks, summary)
