"""``/league/CODE?month=YYYY-MM``: a league's public page, once its owner made it public
(a private league, or no league, is a 404). It shows what anyone may see: who finished
today's daily of the league's suit count (no scores: a visitor has not finished it), the
season's table of a month with links to the months around it, and the past winners."""

from __future__ import annotations

import re
from typing import Any, Final

from server.i18n import gettext

from .query import Query, bad
from .source import Source

#: A season is a calendar month: ``2026-12``.
MONTH: Final = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")


def _month_after(month: str, step: int) -> str:
    year, number = (int(part) for part in month.split("-"))
    index = year * 12 + number - 1 + step
    return f"{index // 12:04}-{index % 12 + 1:02}"


async def league_context(source: Source, query: Query, code: str) -> dict[str, Any]:
    """The page's context: the league's view, and the months before and after the one
    shown (none after the current month)."""
    month = query.text("month", 7)
    if month is not None and MONTH.match(month) is None:
        raise bad(gettext("month is a year and a month: YYYY-MM"))
    view = await source.league(code, month)
    current = f"{view.day.year:04}-{view.day.month:02}"
    later = _month_after(view.month, 1)
    return {
        "league": view,
        "previous_month": _month_after(view.month, -1),
        "next_month": later if later <= current else None,
        "finished_today": view.finished_today or [],
    }
