"""The game screen's pieces as the app shows them: the race panel and the board."""

from __future__ import annotations

import io
import re
from datetime import date

import pytest
from rich.console import Console
from textual.containers import VerticalScroll
from textual.widgets import Static

from client_cli.table import LocalTable, OnlineTable, Table
from client_cli.ui.app import SimonApp
from client_cli.ui.widgets import BoardView
from server.engine import Game, Rule
from server.protocol import (
    Error,
    ErrorCode,
    Finished,
    RaceDigest,
    RaceEntry,
    RaceStandings,
    State,
    Streak,
)
from tests.client.screen import CODE, SIZE, game, notice, online_opener, opener
from tests.support.client import ScriptedConnection, view_of


async def test_online_the_race_shows_and_a_server_refusal_rolls_back() -> None:
    bob = RaceEntry(player="bob", moves=3, score=497, removed=0, finished=False, won=False)
    connection = ScriptedConnection(
        [
            State(id=1, state=view_of(Game.from_code(CODE), 0, mode="daily")),
            RaceStandings(day="2026-01-02", suits=4, players=[bob]),
        ]
    )

    app = SimonApp(online_opener(connection))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        race = app.query_one("#race", Static)
        assert race.display
        assert isinstance(app.table, OnlineTable) and set(app.table.race) == {"bob"}
        await pilot.press(*"3-4", "enter")
        await pilot.pause()
        assert game(app).moves == 1  # previewed before any answer
        sent = connection.sent[-1]
        app.table.receive(
            Error(
                id=sent.id,
                code=ErrorCode.ILLEGAL_MOVE,
                message=Rule.ONTO_ACE.sentence,
                rule="nothing-on-an-ace",
            )
        )
        await pilot.pause()
        assert game(app).moves == 0
        assert Rule.ONTO_ACE.sentence in notice(app)
        done = bob.model_copy(update={"finished": True, "won": True, "score": 850})
        app.table.receive(RaceDigest(day="2026-01-02", suits=4, players=[done]))
        await pilot.pause()
        assert "bob won: 850" in panel_text(app)
        assert Rule.ONTO_ACE.sentence in notice(app)  # the player's own line stays
        assert app.table.race["bob"].won


def panel_text(app: SimonApp) -> list[str]:
    """The race panel as the screen shows it, at its own width."""
    race = app.query_one("#race", Static)
    console = Console(width=race.content_region.width, record=True, file=io.StringIO())
    console.print(app.query_one("#race", Static).content)
    return [line.rstrip() for line in console.export_text().splitlines()]


def entry(player: str, score: int, **flags: bool) -> RaceEntry:
    return RaceEntry(
        player=player,
        moves=500 - score if score < 500 else 10,
        score=score,
        removed=0,
        finished=flags.get("finished", False),
        won=flags.get("won", False),
        resigned=flags.get("resigned", False),
    )


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_the_race_keeps_the_servers_order_shows_who_left_and_the_latest_events(
    size: tuple[int, int],
) -> None:
    players = [
        entry("dan", 480),
        entry("eve", 450, finished=True, resigned=True),
        entry("bob", 497),
        entry("carol", 812, finished=True, won=True),
        entry("fay", 820, finished=True, won=True),
        entry("gus", 499),
    ]
    connection = ScriptedConnection(
        [
            State(id=1, state=view_of(Game.from_code(CODE), 0, mode="daily")),
            RaceStandings(day="2026-01-02", suits=4, players=players),
        ]
    )

    app = SimonApp(online_opener(connection))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        table = app.table
        assert isinstance(table, OnlineTable)
        assert app.query_one("#race").region.right <= size[0]  # all of it on the screen
        gone = entry("gus", 499).model_copy(update={"left": True})
        table.receive(RaceDigest(day="2026-01-02", suits=4, players=[*players[:5], gone]))
        bob = entry("bob", 596).model_copy(update={"removed": 1})
        table.receive(
            RaceDigest(day="2026-01-02", suits=4, players=[*players[:2], bob, *players[3:5], gone])
        )
        await pilot.pause()
        rows = [
            (match.group(1), match.group(2))
            for line in panel_text(app)
            if (match := re.match(r"\s*(\w+)\s.*\d/4\s+(.+)$", line))
        ]
        names = [name for name, _ in rows]
        assert names == ["fay", "carol", "bob", "gus", "dan", "eve"]  # the server's order
        status = dict(rows)
        narrow = size[0] < SIZE[0]
        assert status == {
            "fay": "won",
            "carol": "won",
            "bob": "play" if narrow else "playing",
            "dan": "play" if narrow else "playing",
            "gus": "left",
            "eve": "quit" if narrow else "gave up",
        }
        text = "\n".join(panel_text(app))
        assert "Latest" in text
        assert text.index("gus left") < text.index("bob removed a run (1/4)")
        # back on the deal: playing again
        back = entry("gus", 498)
        table.receive(
            RaceDigest(day="2026-01-02", suits=4, players=[*players[:2], bob, *players[3:5], back])
        )
        await pilot.pause()
        assert "gus" not in table.race_left


async def test_the_race_panel_marks_bots() -> None:
    robo = entry("robo", 480).model_copy(update={"bot": True})
    connection = ScriptedConnection(
        [
            State(id=1, state=view_of(Game.from_code(CODE), 0, mode="daily")),
            RaceStandings(day="2026-01-02", suits=4, players=[robo, entry("ann", 470)]),
        ]
    )

    app = SimonApp(online_opener(connection))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lines = panel_text(app)
        assert any("BOT robo" in line for line in lines)
        assert not any("BOT ann" in line for line in lines)


@pytest.mark.parametrize(("size", "cell", "spaced"), [((120, 40), 9, True), ((80, 24), 7, False)])
async def test_the_board_scales_to_the_terminal(
    size: tuple[int, int], cell: int, spaced: bool
) -> None:
    app = SimonApp(opener())
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        board = app.query_one(BoardView)
        assert board.cell == cell
        assert (board.row_height == 2) is spaced
        assert board.region.right <= size[0]  # all ten columns on the screen
        rows = [line for line in board.render().plain.splitlines() if line.strip()]  # type: ignore[union-attr]
        assert len(rows) == 1 + 8  # numbers and the eight cards of the deepest column


async def test_a_board_taller_than_the_terminal_shows_the_ends_of_its_columns() -> None:
    tall = "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S KS QS JS TS 9S 8S 7S 6S\nAS AS 5S 4S 3S 2S\n"

    async def open_table(suits: int | None) -> Table:
        return LocalTable(Game.from_board(tall, 1))

    app = SimonApp(open_table, letters=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        board, box = app.query_one(BoardView), app.query_one("#board-box", VerticalScroll)
        assert board.overflows and box.max_scroll_y > 0
        for _ in range(50):  # the scroll to the end comes after a refresh: on a busy machine
            if box.scroll_y == box.max_scroll_y:  # more than one pause later
                break
            await pilot.pause(0.02)
        assert box.scroll_y == box.max_scroll_y  # the ends of the columns, where one plays
        lines = board.render().plain.splitlines()  # type: ignore[union-attr]
        assert lines[-1].split() == lines[0].split() == [str(n) for n in range(1, 11)]
        assert lines[-2].split()[0] == "6S"
        await pilot.press(*"1-3", "enter")  # and it plays as ever
        await pilot.pause()
        assert game(app).moves == 1


@pytest.mark.parametrize("size", [SIZE, (80, 24)])
async def test_the_latest_events_keep_the_last_run_and_the_win_once_the_game_is_over(
    size: tuple[int, int],
) -> None:
    """Issue #44: once the finished screen's lines took the bottom of the screen, the race
    panel was cut short and its newest events, the last run and the win, never showed."""
    racers = [entry(name, 480 + index) for index, name in enumerate("abcdefgh")]
    bob = entry("bob", 700).model_copy(update={"removed": 3})
    start = view_of(Game.from_code(CODE), 0, mode="daily").model_copy(
        update={"day": date(2026, 1, 2)}
    )
    connection = ScriptedConnection(
        [State(id=1, state=start), RaceStandings(day="2026-01-02", suits=4, players=[bob, *racers])]
    )
    app = SimonApp(online_opener(connection))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        table = app.table
        assert isinstance(table, OnlineTable)
        for step in range(len(racers)):  # older events fill the log
            racers[step] = racers[step].model_copy(update={"removed": 1})
            table.receive(RaceDigest(day="2026-01-02", suits=4, players=[bob, *racers]))
        table.receive(  # the player's own game ends: the finished screen's lines show
            Finished(
                game=start.game, code=CODE, mode="daily", won=False, resigned=True, moves=0,
                score=500, removed=0, elapsed=30.0, finished_at="2026-01-02T10:00:00Z", rank=2,
                percentile=50.0, streak=Streak(current=3, best=3),
                share="Simple Simon 2026-01-02 · 4 suits · 0 of 4 runs\n/day/2026-01-02?suits=4",
            )
        )  # fmt: skip
        won = bob.model_copy(update={"removed": 4, "finished": True, "won": True, "score": 850})
        table.receive(RaceDigest(day="2026-01-02", suits=4, players=[won, *racers]))
        await pilot.pause()
        assert app.query_one("#after").display
        race = app.query_one("#race", Static)
        shown = "\n".join(panel_text(app)[: race.content_region.height])  # what fits is seen
        assert "bob removed a run (4/4)" in shown and shown.rstrip().endswith("bob won: 850")
        assert "Latest" in shown
