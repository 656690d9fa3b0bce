"""The finished daily's panel: the standing, the streak, the histogram and the share text."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import Static

from client_cli.table import OnlineTable
from client_cli.ui.after_panel import after_text
from client_cli.ui.app import SimonApp
from server.engine import Game
from server.protocol import (
    DayStats,
    DayStatsRequest,
    Finished,
    MovesBin,
    RaceStandings,
    State,
    Streak,
    YouAreHere,
)
from tests.client.screen import CODE, SIZE, notice, online_opener
from tests.support.client import ScriptedConnection, view_of


async def test_the_finished_screen_shows_the_standing_streak_histogram_and_share(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    start = view_of(Game.from_code(CODE), 0, mode="daily").model_copy(
        update={"day": date(2026, 1, 2)}
    )
    connection = ScriptedConnection(
        [State(id=1, state=start), RaceStandings(day="2026-01-02", suits=4, players=[])]
    )

    share = (
        "Simple Simon 2026-01-02 · 4 suits · won in 90 moves · 9:00 · top 25% · "
        "3 days in a row\n/day/2026-01-02?suits=4"
    )
    app = SimonApp(online_opener(connection))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.query_one("#after").display  # nothing to show while playing
        assert isinstance(app.table, OnlineTable)
        app.table.receive(
            Finished(
                game="g1", code=CODE, mode="daily", won=True, resigned=False, moves=90,
                score=810, removed=4, elapsed=540.0, finished_at="2026-01-02T10:00:00Z",
                rank=2, percentile=75.0, streak=Streak(current=3, best=5), share=share,
            )
        )  # fmt: skip
        await pilot.pause()
        asked = connection.sent[-1]
        assert isinstance(asked, DayStatsRequest) and asked.suits == 4 and asked.player == "ann"
        app.table.receive(
            DayStats(
                id=asked.id, day="2026-01-02", suits=4, finished=4, won=3, bin_width=10,
                moves_histogram=[MovesBin(moves=80, count=1), MovesBin(moves=90, count=2)],
                not_won=[], you=YouAreHere(
                    player="ann", rank=2, won=True, moves=90, removed=4, elapsed=540.0,
                    percentile=75.0,
                ),
            )
        )  # fmt: skip
        await pilot.pause()
        panel = app.query_one("#after", Static)
        assert panel.display
        content = panel.content
        text = content.plain if isinstance(content, Text) else str(content)
        assert "beats or ties 75% of today's results · 3 days in a row (best 5)" in text
        assert "winners' moves 80 ▄█ 99" in text and " ▲ you" in text
        assert share in text and "c copies" in text
        assert text.endswith("Replay it: simon replay --game g1")
        monkeypatch.setenv("PATH", str(tmp_path))  # no clipboard program
        await pilot.press("c")
        await pilot.pause()
        assert "No clipboard here" in notice(app) and app.printed == share
        clipboard = tmp_path / "xsel"
        clipboard.write_text(f"#!/bin/sh\nexec /bin/cat > {tmp_path / 'copied'}\n")
        clipboard.chmod(0o755)
        await pilot.press("c")
        await pilot.pause()
        assert notice(app) == "Copied the share text."
        assert (tmp_path / "copied").read_text() == share


def test_a_held_result_is_told_how_long_a_review_usually_takes() -> None:
    held = Finished(
        game="g1", code="SS1-S1-AAAAABD", mode="daily", won=True, resigned=False, moves=60,
        score=840, removed=4, elapsed=120.0, finished_at="2026-01-02T10:00:00Z", review="held",
        share="Simple Simon 2026-01-02 · 1 suit · won in 60 moves · 2:00\n/day/2026-01-02?suits=1",
    )  # fmt: skip
    shown = after_text(held, None, review_hours=24).plain
    assert shown.startswith("A review usually takes about 24 hours.\n")
    ranked = held.model_copy(update={"review": None, "rank": 1})
    assert "review" not in after_text(ranked, None, review_hours=24).plain  # only when held
