"""The play screen driven headless with Textual's pilot: the keys, the mouse, the
questions and the notice line, mostly on an offline game."""

from __future__ import annotations

from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Input, Static

from client_cli.errors import ServerError
from client_cli.main import error_code
from client_cli.play import _after
from client_cli.table import LocalTable, OnlineTable, Table
from client_cli.ui.app import HelpScreen, SimonApp, SuitScreen
from client_cli.ui.cards import HEADER
from client_cli.ui.widgets import BoardView
from server.engine import Game, Rule
from server.protocol import Error, ErrorCode, Finished, Resign, State
from tests.client.screen import (
    CODE,
    SIZE,
    game,
    notice,
    online_opener,
    opener,
    type_in_a_burst,
)
from tests.support.client import ScriptedConnection, view_of


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
        keys = ("u[/b] undo", "r[/b] restart", "x[/b] resign", "q[/b] quit", "Esc", "c[/b] copy")
        for key in keys:
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


async def test_a_game_that_cannot_open_ends_with_the_servers_own_refusal() -> None:
    refusal = ServerError(Error(code=ErrorCode.ALREADY_PLAYED, message="already played"))

    async def open_table(suits: int | None) -> Table:
        raise refusal

    app = SimonApp(open_table)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
    with pytest.raises(ServerError) as raised:
        _after(app)
    assert raised.value is refusal and error_code(raised.value) == "already-played"  # --json


async def test_keys_typed_in_a_burst_close_the_help_once() -> None:
    app = SimonApp(opener())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("?")
        await pilot.pause()
        type_in_a_burst(app, "3-4")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press(*"3-4", "enter")
        await pilot.pause()
        assert game(app).moves == 1  # the game screen is still there, and plays


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


async def test_resign_online_tells_the_server_and_shows_its_result(capsys: Any) -> None:
    start = view_of(Game.from_code(CODE), 0)
    connection = ScriptedConnection([State(id=1, state=start)])

    app = SimonApp(online_opener(connection, "practice"))
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
        after = app.query_one("#after", Static)
        assert after.display and "Replay it: simon replay --game g1" in str(after.render())
        await pilot.press(*"3-4", "enter")
        await pilot.pause()
        assert connection.sent[-1] is sent  # nothing more goes to the server
        assert Rule.GAME_OVER.sentence in notice(app)
    assert _after(app) == 0  # the screen is gone: its id is printed, to replay it later
    assert capsys.readouterr().out == "Replay it: simon replay --game g1\n"


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
