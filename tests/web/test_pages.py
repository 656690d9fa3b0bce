"""A page's query: only its names, once each, and no control characters."""

from __future__ import annotations

import pytest

from server.web.pages import Query
from server.web.source import PageError


def test_a_query_takes_its_names_once_and_no_control_characters() -> None:
    allowed = frozenset({"suits", "board", "limit", "player"})
    query = Query("suits=4&board=bots&limit=7&player=+Ann+", allowed)
    assert query.suits() == 4 and query.board() == "bots"
    assert query.number("limit", 50, range(1, 101)) == 7 and query.text("player", 64) == "Ann"
    assert Query("", allowed).suits() == 1 and Query("", allowed).board() == "humans"
    # a name it does not know is let be (a shared link's utm_source), even with a bad value
    shared = Query("suits=2&utm_source=chat&fbclid=a%00b&fbclid=c", allowed)
    assert shared.suits() == 2 and shared.values == {"suits": "2"}
    for text, read in [
        ("suits=1&suits=2", None),
        ("player=a%00b", None),
        ("player=a%7Fb", None),
        ("suits=3", "suits"),
        ("suits=01", "suits"),
        ("board=robots", "board"),
        ("limit=0", "limit"),
        ("limit=-1", "limit"),
        ("player=", "player"),
    ]:
        with pytest.raises(PageError) as refused:
            parsed = Query(text, allowed)
            if read == "limit":
                parsed.number("limit", 50, range(1, 101))
            elif read == "player":
                parsed.text("player", 64)
            elif read is not None:
                getattr(parsed, read)()
        assert refused.value.status == 400, text
