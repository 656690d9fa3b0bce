"""While the solver makes a review, over a real websocket against a real server and its
real worker process: the asker hears how far it has got (``review_progress``: the positions
judged, of the review's own count, never going back), the first as the work starts, the
last once every position is judged, all before the ``review`` itself."""

from __future__ import annotations

from typing import Any

from server.engine import GameCode
from tests.conftest import Backend
from tests.support.players import registered, solution_of
from tests.support.servers import Client, fresh_clock, server_settings, serving, unique_name

#: A deal the test plays along the solver's first line: not its shortened one, which the
#: review searches for afresh from each position (a fraction of a second each).
CODE = str(GameCode(1, 4242))
#: The review's CPU budget: a second or two of positions judged, the rest left unknown.
BUDGET = 2.0


async def test_the_asker_hears_the_positions_judged_before_the_review(backend: Backend) -> None:
    line = solution_of(CODE)[:30]
    settings = server_settings(backend, review_seconds=BUDGET)
    async with (
        serving(settings, clock=fresh_clock()) as server,
        Client.connect(server.url) as client,
    ):
        await registered(client, unique_name("prog"))
        start = await client.request({"type": "start", "mode": "practice", "code": CODE})
        game = start["state"]["game"]
        for text in line:
            assert (await client.request({"type": "move", "move": text}))["type"] == "moved"
        await client.request({"type": "resign"})

        await client.send({"id": "review", "type": "review", "game": game})
        heard: list[dict[str, Any]] = []
        while True:
            frame = await client.receive(120)
            if frame.get("type") == "review_progress":
                heard.append(frame)
            elif frame.get("id") == "review":
                review = frame
                break
        assert review["type"] == "review", review
        positions = len(review["positions"])
        assert positions == len(line) + 1
        assert heard, "no progress before the review"
        assert all(news["game"] == game and news["positions"] == positions for news in heard)
        judged = [news["judged"] for news in heard]
        assert judged[0] == 0  # as the work starts
        assert judged[-1] == positions  # every position judged, before the review comes
        assert judged == sorted(set(judged)), judged  # each count new, never going back
        for news in heard:
            estimate = news.get("seconds_left_estimate")
            assert estimate is None or estimate >= 0, news
            assert news.get("long", False) == (estimate is not None and estimate >= 10), news
