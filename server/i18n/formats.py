"""Days, times and numbers as the language being spoken writes them (Babel's CLDR data)."""

from __future__ import annotations

from datetime import date, datetime
from functools import lru_cache

from babel.dates import format_date
from babel.numbers import format_decimal

from .speaking import current_language, ngettext


def clock(seconds: float) -> str:
    """A duration as a clock reads it, the same in every language: ``4:05``, ``1:04:05``
    (the one clock of the server's pages, sentences and the terminal client)."""
    whole = max(0, int(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def long_day(day: date) -> str:
    """``Sunday 1 March 2026``, ``niedziela 1 marca 2026``, ``воскресенье 1 марта 2026``."""
    return _long_day(day, current_language())


@lru_cache(maxsize=4096)
def _long_day(day: date, language: str) -> str:
    # kept: a page shows few days, and CLDR's formatting is slow beside a page's render
    return format_date(day, "EEEE d MMMM y", locale=language)


def short_day(day: date) -> str:
    """``1 Mar 2026``, ``1 mar 2026``, ``1 мар. 2026 г.``."""
    return format_date(day, "medium", locale=current_language())


def month_name(month: str) -> str:
    """``December 2026``, ``grudzień 2026``, ``декабрь 2026`` of ``2026-12``."""
    year, number = (int(part) for part in month.split("-"))
    return format_date(date(year, number, 1), "LLLL y", locale=current_language())


def hour_minute(moment: datetime) -> str:
    """``14:03``: every language here writes the 24-hour clock so (CLDR's ``HH:mm`` in
    each), and a board writes one for each of its rows: no lookup for it."""
    return f"{moment.hour:02}:{moment.minute:02}"


def number(value: int | float) -> str:
    """``12,345``, ``12 345``: grouped as the language groups digits."""
    return format_decimal(value, locale=current_language())


def tenths(value: float) -> str:
    """``2.5``, ``2,5``: one decimal, with the language's decimal sign."""
    return format_decimal(value, format="0.0", locale=current_language())


def review_wait(hours: int) -> str:
    """How long a fair-play review usually takes here (``SIMON_HELD_REVIEW_HOURS``), as the
    pages tell it beside a held result.

    >>> review_wait(24), review_wait(72)
    ('A review usually takes about 24 hours.', 'A review usually takes about 3 days.')
    """
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
