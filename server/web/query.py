"""A page's query string, checked and read within the protocol's bounds.

The names a page takes, each at most once, without control characters; a request model
(``LeaderboardRequest``) read from them, whose bounds are the protocol's alone.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlencode

from pydantic import BaseModel

from server.engine import SUIT_COUNTS
from server.i18n import gettext
from server.kinds import BOARDS, board_named
from server.protocol import Board, ErrorCode, bound_rule, query_request

from .source import PageError

CONTROL = re.compile(r"[\x00-\x1f\x7f]")
Asked = TypeVar("Asked", bound=BaseModel)


def bad(message: str) -> PageError:
    """A refusal of the query (400, ``invalid-message``)."""
    return PageError(400, ErrorCode.INVALID_MESSAGE, message)


class Query:
    """A page's query string, checked: the ``allowed`` names, each at most once, no control
    characters. Other names are let be: a link shared on another site comes back with that
    site's own parameters (``utm_source``, ``fbclid``), and it is still the same page."""

    def __init__(self, text: str, allowed: frozenset[str]) -> None:
        raw = parse_qs(text, keep_blank_values=True)
        self.values: dict[str, str] = {}
        for name, values in raw.items():
            if name not in allowed:
                continue
            if len(values) > 1:
                raise bad(gettext("%(name)s is given twice") % {"name": name})
            if CONTROL.search(values[0]):
                raise bad(gettext("%(name)s holds a control character") % {"name": name})
            self.values[name] = values[0]

    def canonical(self) -> str:
        """The values read, as one query string in a fixed order (``""`` when none): what
        tells one page from another (a cache's key)."""
        return "?" + urlencode(sorted(self.values.items())) if self.values else ""

    def suits(self) -> int:
        text = self.values.get("suits", "1")
        if text not in [str(suits) for suits in SUIT_COUNTS]:
            raise bad(gettext("suits must be one of %(choices)s") % {"choices": list(SUIT_COUNTS)})
        return int(text)

    def board(self) -> Board:
        board = board_named(self.values.get("board", "humans"))
        if board is None:
            raise bad(gettext("board must be one of %(choices)s") % {"choices": list(BOARDS)})
        return board

    def request(
        self, model: type[Asked], *, wholes: tuple[str, ...], texts: tuple[str, ...], **given: Any
    ) -> Asked:
        """A request ``model`` from the query (over ``given`` values: a page's own defaults):
        ``wholes`` whole numbers, ``texts`` stripped, the board as written. The bounds are
        the model's alone; a value out of them is refused with its rule."""
        values = dict(given)
        if "board" in self.values:
            values["board"] = self.values["board"]
        for name in wholes:
            text = self.values.get(name)
            if text is None:
                continue
            try:
                values[name] = int(text) if text.isdigit() and str(int(text)) == text else text
            except ValueError:  # a digit int() does not read ("²")
                values[name] = text
        for name in texts:
            text = self.values.get(name)
            if text is not None:
                if not text.strip():
                    raise bad(bound_rule(model, name))
                values[name] = text.strip()
        try:
            return query_request(model, values)
        except ValueError as error:
            raise bad(str(error)) from None

    def text(self, name: str, longest: int) -> str | None:
        text = self.values.get(name)
        if text is None:
            return None
        text = text.strip()
        if not text or len(text) > longest:
            raise bad(
                gettext("%(name)s is 1 to %(longest)s characters")
                % {"name": name, "longest": longest}
            )
        return text
