"""The play screen driven headless with Textual's pilot, on an offline game."""

from __future__ import annotations

import io
import re
from collections.abc import Awaitable, Callable
from datetime import date
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Input, Static

from client_cli.table import LocalTable, OnlineTable, Table
from client_cli.ui.app import HelpScreen, SimonApp, SuitScreen
from client_cli.ui.cards import HEADER
from client_cli.ui.widgets import BoardView
from server.engine import Game, Rule
from server.protocol import Finished, RaceEntry, RaceEvent, RaceStandings, Resign, State
from tests.support.client import ScriptedConnection, view_of

CODE = "SS1-S4-AAAAABD"  # column 3 ends 2D, column 4 ends 3C: 3-4 is the only move of column 3
SIZE = (110, 36)


def opener(code: str | None = CODE) -> Callable[[int | None], Awaitable[Table]]:
    async def open_table(suits: int | None) -> Table:
        return LocalTable(Game.from_code(code or f"SS1-S{suits}-AAAAAAB"))

    return open_table


def notice(app: SimonApp) -> str:
    content = app.query_one("#notice", Static).content
    return content.plain if isinstance(content, Text) else str(content)


def game(app: SimonApp) -> Game:
    assert app.table is not None and app.table.game is not None
    return app.table.game


async def test_a_typed_move_is_played() -> None:
    start = Game.from_code(CODE)
    app = SimonApp(opener())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*"3 4", "enter")  # "3 4" is "3-4"
        await pilot.pause()
        assert game(app).moves == 1
        assert game(app).column(3) == (*start.column(3), start.column(2)[-1])
        assert notice(app) == "3-4: 2♦ onto 3♣."
        assert app.query_one("#prompt", Input).value == ""
        await pilot.press(*"9-1x1", "enter")
        await pilot.pause()
        assert game(app).moves == 2
        assert game(app).column(0)[-1] == start.column(8)[-1]


async def test_a_refused_move_shows_the_rule_and_changes_nothing() -> None:
    app = SimonApp(opener())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*"1 2", "enter")
        await pilot.pause()
        assert game(app).moves == 0
        assert Rule.NOT_ONE_HIGHER.sentence in notice(app)
        assert Rule.NOT_ONE_HIGHER.value in notice(app)
        await pilot.press(*"3-a", "enter")
        await pilot.pause()
        assert "not a move" in notice(app)


async def test_undo_takes_the_move_back() -> None:
    app = SimonApp(opener())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("u")
        await pilot.pause()
        assert Rule.NOTHING_TO_UNDO.sentence in notice(app)
        await pilot.press(*"3-4", "enter", "u")
        await pilot.pause()
        assert game(app) == Game.from_code(CODE)
        assert game(app).score == 500


async def test_restart_asks_once_more_then_deals_again() -> None:
    app = SimonApp(opener())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*"3-4", "enter", "r")
        await pilot.pause()
        assert game(app).moves == 1
        assert "r again" in notice(app)
        await pilot.press("r")
        await pilot.pause()
        assert game(app).moves == 0
        assert game(app).position_key() == Game.from_code(CODE).position_key()


async def test_a_lone_column_number_makes_the_auto_move() -> None:
    app = SimonApp(opener())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("3", "enter")
        await pilot.pause()
        expected = Game.from_code(CODE)
        expected.auto_move(2)
        assert game(app) == expected
        assert game(app).moves == 1
        assert notice(app) == "3-4: 2♦ onto 3♣."  # where the cards went, not just "best move"


async def test_a_group_move_names_its_first_and_last_card() -> None:
    board = "KS QS JS 9S 8S 7S\nTS\n6S 5S 4S 3S 2S AS\n"  # seven runs already removed

    async def open_table(suits: int | None) -> Table:
        return LocalTable(Game.from_board(board, 1))

    app = SimonApp(open_table, letters=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("1", "enter")
        await pilot.pause()
        assert notice(app) == "1-2x3: 9S…7S onto TS."
        await pilot.press(*"1-4x1", "enter")
        await pilot.pause()
        assert notice(app) == "1-4: JS into the empty column."
        await pilot.press(*"1-5x2", "enter")
        await pilot.pause()
        assert notice(app) == "1-5x2: KS QS into the empty column."


async def test_typing_a_column_lights_its_legal_targets() -> None:
    app = SimonApp(opener())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        board = app.query_one(BoardView)
        await pilot.press("3")
        await pilot.pause()
        assert board.selected == 2
        assert board.targets == frozenset(Game.from_code(CODE).targets(2)) == {3}
        await pilot.press("escape")
        await pilot.pause()
        assert board.selected is None and board.targets == frozenset()


async def test_a_new_game_asks_how_many_suits_and_remembers_the_answer() -> None:
    chosen: list[int] = []
    app = SimonApp(opener(None), ask_suits=1, remember_suits=chosen.append)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SuitScreen)
        assert app.screen.focused is not None and app.screen.focused.id == "suits-1"
        assert not app.query_one("#board-box").display  # no empty board behind the question
        await pilot.press("2")
        await pilot.pause()
        assert app.query_one("#board-box").display
        assert game(app).suits == 2
        assert chosen == [2]


async def test_the_question_offers_the_last_choice() -> None:
    app = SimonApp(opener(None), ask_suits=4)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.focused is not None and app.screen.focused.id == "suits-4"
        await pilot.press("enter")
        await pilot.pause()
        assert game(app).suits == 4


async def test_the_help_fits_an_80_by_24_terminal_and_tells_every_key() -> None:
    app = SimonApp(opener())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("?")
        await pilot.pause()
        dialog = app.screen.query_one("#help-dialog", VerticalScroll)
        assert dialog.max_scroll_y == 0  # any key closes it: it could not be scrolled
        text = str(app.screen.query_one("#help-text", Static).content)
        for key in ("u[/b] undo", "r[/b] restart", "x[/b] resign", "q[/b] quit", "Esc"):
            assert key in text


async def test_help_opens_and_closes() -> None:
    app = SimonApp(opener())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("?")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("x")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_the_last_run_wins_the_game() -> None:
    board = "KS QS JS TS 9S 8S 7S 6S 5S 4S 3S 2S\nAS\n"  # three runs already removed

    async def open_table(suits: int | None) -> Table:
        return LocalTable(Game.from_board(board, 1))

    app = SimonApp(open_table)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("2", "enter")
        await pilot.pause()
        assert game(app).is_won
        assert "You won! Score 899 in 1 move." in notice(app)
        assert app.table is not None and app.table.finished


async def test_online_the_race_shows_and_a_server_refusal_rolls_back() -> None:
    from client_cli.table import OnlineTable
    from server.protocol import Error, ErrorCode, RaceEntry, RaceEvent, RaceStandings, State
    from tests.support.client import ScriptedConnection, view_of

    bob = RaceEntry(player="bob", moves=3, score=497, removed=0, finished=False, won=False)
    connection = ScriptedConnection(
        [
            State(id=1, state=view_of(Game.from_code(CODE), 0, mode="daily")),
            RaceStandings(day="2026-01-02", suits=4, players=[bob]),
        ]
    )

    async def open_table(suits: int | None) -> Table:
        table = OnlineTable(connection)  # type: ignore[arg-type]
        await table.start("daily", 4)
        return table

    app = SimonApp(open_table)
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
            Error(id=sent.id, code=ErrorCode.ILLEGAL_MOVE, message="no", rule="nothing-on-an-ace")
        )
        await pilot.pause()
        assert game(app).moves == 0
        assert Rule.ONTO_ACE.sentence in notice(app)
        done = bob.model_copy(update={"finished": True, "won": True, "score": 850})
        app.table.receive(RaceEvent(day="2026-01-02", suits=4, event="finished", entry=done))
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

    async def open_table(suits: int | None) -> Table:
        table = OnlineTable(connection)  # type: ignore[arg-type]
        await table.start("daily", 4)
        return table

    app = SimonApp(open_table)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        table = app.table
        assert isinstance(table, OnlineTable)
        assert app.query_one("#race").region.right <= size[0]  # all of it on the screen
        table.receive(RaceEvent(day="2026-01-02", suits=4, event="left", entry=entry("gus", 499)))
        table.receive(
            RaceEvent(day="2026-01-02", suits=4, event="removed", entry=entry("bob", 596))
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
        assert text.index("gus left") < text.index("bob removed a run (0/4)")
        # back on the deal: playing again
        table.receive(RaceEvent(day="2026-01-02", suits=4, event="moved", entry=entry("gus", 498)))
        await pilot.pause()
        assert "gus" not in table.race_left


async def test_resign_asks_once_more_then_ends_the_offline_game() -> None:
    app = SimonApp(opener())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*"3-4", "enter", "x")
        await pilot.pause()
        assert "x again" in notice(app)
        assert app.table is not None and not app.table.finished
        await pilot.press("5")  # typing something else keeps the game going
        await pilot.pause()
        assert "goes on" in notice(app)
        await pilot.press("escape", "x", "x")
        await pilot.pause()
        assert app.table.finished
        assert notice(app) == "You resigned: the game is over with score 499."
        score_line = str(app.query_one("#score", Static).content)
        assert "game over" in score_line and "Par" not in score_line  # par is the daily's
        clock = app.table.elapsed()
        await pilot.press(*"9-1", "enter")
        await pilot.pause()
        assert game(app).moves == 1
        assert Rule.GAME_OVER.sentence in notice(app)
        assert app.table.elapsed() == clock  # the clock stopped


async def test_resign_online_tells_the_server_and_shows_its_result() -> None:
    start = view_of(Game.from_code(CODE), 0)
    connection = ScriptedConnection([State(id=1, state=start)])

    async def open_table(suits: int | None) -> Table:
        table = OnlineTable(connection)  # type: ignore[arg-type]
        await table.start("practice", 4)
        return table

    app = SimonApp(open_table)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("x", "x")
        await pilot.pause()
        sent = connection.sent[-1]
        assert isinstance(sent, Resign) and sent.id is not None
        assert "Resigning" in notice(app)
        ended = start.model_copy(update={"finished": True})
        assert isinstance(app.table, OnlineTable)
        app.table.receive(State(id=sent.id, state=ended))
        app.table.receive(
            Finished(
                game="g1",
                code=CODE,
                mode="practice",
                won=False,
                resigned=True,
                moves=0,
                score=500,
                removed=0,
                elapsed=4.0,
                finished_at="2026-01-02T10:00:00Z",
            )
        )
        await pilot.pause()
        assert app.table.finished and not app.table.pending
        assert notice(app) == "You resigned: the game is over with score 500."
        await pilot.press(*"3-4", "enter")
        await pilot.pause()
        assert connection.sent[-1] is sent  # nothing more goes to the server
        assert Rule.GAME_OVER.sentence in notice(app)


async def test_the_race_panel_marks_bots() -> None:
    robo = entry("robo", 480).model_copy(update={"bot": True})
    connection = ScriptedConnection(
        [
            State(id=1, state=view_of(Game.from_code(CODE), 0, mode="daily")),
            RaceStandings(day="2026-01-02", suits=4, players=[robo, entry("ann", 470)]),
        ]
    )

    async def open_table(suits: int | None) -> Table:
        table = OnlineTable(connection)  # type: ignore[arg-type]
        await table.start("daily", 4)
        return table

    app = SimonApp(open_table)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lines = panel_text(app)
        assert any("BOT robo" in line for line in lines)
        assert not any("BOT ann" in line for line in lines)


async def test_the_finished_screen_shows_the_standing_streak_histogram_and_share(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from server.protocol import DayStats, DayStatsRequest, MovesBin, Streak, YouAreHere

    start = view_of(Game.from_code(CODE), 0, mode="daily").model_copy(
        update={"day": date(2026, 1, 2)}
    )
    connection = ScriptedConnection(
        [State(id=1, state=start), RaceStandings(day="2026-01-02", suits=4, players=[])]
    )

    async def open_table(suits: int | None) -> Table:
        table = OnlineTable(connection)  # type: ignore[arg-type]
        await table.start("daily", 4)
        return table

    share = (
        "Simple Simon 2026-01-02 · 4 suits · won in 90 moves · 9:00 · top 25% · "
        "3 days in a row\n/day/2026-01-02?suits=4"
    )
    app = SimonApp(open_table)
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


GROUPS = "KS QS JS 9S 8S 7S\nTS\n6S 5S 4S 3S 2S AS\n"  # seven runs already removed


def selection(board: BoardView) -> tuple[int | None, int | None]:
    """The board's selected column and count (read afresh: a click changes them)."""
    return board.selected, board.selected_count


def on_board(app: SimonApp, column: int, card: int | None = None) -> tuple[int, int]:
    """Where to click: a card of a column (0-based, deepest first), or its number."""
    board = app.query_one(BoardView)
    y = 0 if card is None else HEADER + card * board.row_height
    return column * board.cell + 1, y


async def test_after_a_click_anywhere_the_keys_still_play() -> None:
    app = SimonApp(opener())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for target in ("#board-box", "#score", "#notice"):
            await pilot.click(target, offset=(30, 1))
            await pilot.press("escape")
        await pilot.click("#board", offset=on_board(app, 0, 2))  # picks up a group
        await pilot.pause()
        assert app.focused is app.query_one("#prompt")
        await pilot.press(*"3-4", "enter")
        await pilot.pause()
        assert game(app).moves == 1
        await pilot.click("#board-box", offset=(60, 25))  # below the cards
        await pilot.press("u")
        await pilot.pause()
        assert game(app).moves == 0 and notice(app) == "Move taken back."


async def test_a_click_picks_up_a_group_and_a_click_on_a_column_puts_it_there() -> None:
    async def open_table(suits: int | None) -> Table:
        return LocalTable(Game.from_board(GROUPS, 1))

    app = SimonApp(open_table, letters=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        board = app.query_one(BoardView)
        await pilot.click("#board", offset=on_board(app, 0, 0))  # KS cannot move alone
        await pilot.pause()
        assert (board.selected, board.selected_count) == (0, None)  # the movable run: 9S-7S
        assert notice(app).startswith("9S…7S: click a column")
        await pilot.click("#board", offset=on_board(app, 0, 3))  # the same column: put back
        await pilot.pause()
        assert board.selected is None and game(app).moves == 0
        await pilot.click("#board", offset=on_board(app, 0, 4))  # 8S: it and the 7S below
        await pilot.pause()
        assert selection(board) == (0, 2)
        assert board.targets == frozenset(range(3, 10))  # the empty ones: TS wants a 9
        await pilot.click("#board", offset=on_board(app, 0, 4))  # put back
        await pilot.click("#board", offset=on_board(app, 0, 3))  # 9S 8S 7S
        await pilot.pause()
        assert board.selected_count == 3 and 1 in board.targets
        await pilot.click("#board", offset=on_board(app, 1, 0))  # onto TS
        await pilot.pause()
        assert notice(app) == "1-2x3: 9S…7S onto TS."
        assert board.selected is None and board.targets == frozenset()
        await pilot.click("#board", offset=on_board(app, 0))  # the number of column 1
        await pilot.click("#board", offset=on_board(app, 5))  # the number of column 6
        await pilot.pause()
        assert notice(app) == "1-6x3: KS…JS into the empty column."
        await pilot.press(*"3 1", "enter")  # and the keys still play
        await pilot.pause()
        assert game(app).moves == 3


async def test_a_double_click_plays_the_columns_best_move() -> None:
    app = SimonApp(opener())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.double_click("#board", offset=on_board(app, 2, 7))  # 2♦ of column 3
        await pilot.pause()
        expected = Game.from_code(CODE)
        expected.auto_move(2)
        assert game(app) == expected
        assert notice(app) == "3-4: 2♦ onto 3♣."
        assert app.query_one(BoardView).selected is None


@pytest.mark.parametrize(("key", "moves", "said"), [("u", 0, "taken back"), ("q", 1, "")])
async def test_a_command_key_after_a_typed_column_acts_as_the_command(
    key: str, moves: int, said: str
) -> None:
    app = SimonApp(opener())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*"3-4", "enter", "6", key)
        await pilot.pause()
        if key == "q":
            assert app.return_code == 0
            return
        assert game(app).moves == moves and said in notice(app)
        assert app.query_one("#prompt", Input).value == ""
        await pilot.press(*"3-4", "enter", *"6-", "x")  # x resigns, after "6-" too
        await pilot.pause()
        assert "x again" in notice(app)
        await pilot.press("escape", *"9-1x", "1", "enter")  # but a count's x stays a count
        await pilot.pause()
        assert game(app).moves == 2


async def test_a_notice_leaves_once_it_is_no_longer_true() -> None:
    app = SimonApp(opener())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press(*"3-4", "enter", "r", "r")
        await pilot.pause()
        assert game(app).moves == 0 and notice(app) == "The deal starts over."
        await pilot.press(*"3-4", "enter", *"1-2", "enter")
        await pilot.pause()
        assert "✗" in notice(app)
        await pilot.press("u")
        await pilot.pause()
        assert game(app).moves == 0 and notice(app) == "Move taken back."


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
        assert box.scroll_y == box.max_scroll_y  # the ends of the columns, where one plays
        lines = board.render().plain.splitlines()  # type: ignore[union-attr]
        assert lines[-1].split() == lines[0].split() == [str(n) for n in range(1, 11)]
        assert lines[-2].split()[0] == "6S"
        await pilot.press(*"1-3", "enter")  # and it plays as ever
        await pilot.pause()
        assert game(app).moves == 1
