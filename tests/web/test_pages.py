"""A page's query: only its names, once each, and no control characters."""

from __future__ import annotations

import pytest

from server.protocol import LeaderboardRequest
from server.web.query import Query
from server.web.source import PageError


def test_a_query_takes_its_names_once_and_no_control_characters() -> None:
    allowed = frozenset({"suits", "board", "limit", "player"})
    query = Query("suits=4&board=bots&limit=7&player=+Ann+", allowed)
    assert query.suits() == 4 and query.board() == "bots"
    asked = _board_request(query)
    assert (asked.suits, asked.board, asked.limit) == (4, "bots", 7)
    assert query.text("player", 64) == "Ann" and _board_request(Query("", allowed)).limit == 50
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
                _board_request(parsed)
            elif read == "player":
                parsed.text("player", 64)
            elif read is not None:
                getattr(parsed, read)()
        assert refused.value.status == 400, text


def _board_request(query: Query) -> LeaderboardRequest:
    return query.request(LeaderboardRequest, wholes=("suits", "limit"), texts=("after",), limit=50)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("suits=3", "suits must be one of [1, 2, 4]"),
        ("suits=01", "suits must be one of [1, 2, 4]"),
        ("suits=%C2%B2", "suits must be one of [1, 2, 4]"),  # a digit int() does not read
        ("board=robots", "board must be one of ['humans', 'bots', 'new']"),
        ("limit=0", "limit is 1 to 100"),
        ("limit=101", "limit is 1 to 100"),
        ("limit=x", "limit is 1 to 100"),
        ("after=+", "after is 1 to 256 characters"),
        ("after=" + "a" * 257, "after is 1 to 256 characters"),
    ],
)
def test_a_day_page_reads_its_board_with_the_protocols_bounds(text: str, message: str) -> None:
    query = Query(text, frozenset({"suits", "board", "limit", "after"}))
    with pytest.raises(PageError) as refused:
        _board_request(query)
    assert (refused.value.status, refused.value.message) == (400, message)
