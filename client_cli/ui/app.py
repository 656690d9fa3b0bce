"""``simon play``: the game screen, the suit-count question and the help.

The app plays against a :class:`~client_cli.table.Table`; it never knows
whether the engine at the other end is local or the server's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from server.engine import IllegalMoveError, InvalidMoveError, Move, SuitCount

from ..errors import ClientError
from ..table import Notice, Table
from ..wording import rule_sentence, won_text
from ..words import N_, _
from .after_panel import AfterPanel, copy_text
from .cards import group_label, movable_run
from .commands import (
    CONFIRM,
    KEYS,
    Command,
    CommandKind,
    chosen_column,
    read_command,
    typed_key,
)
from .widgets import BoardBox, BoardView, RacePanel, ScoreLine, notice_text, played_text

OpenTable = Callable[[int | None], Awaitable[Table]]

#: Fits an 80-column terminal; the help (?) tells the rest.
PLACEHOLDER = N_("3-7 move · 3 best move · u undo · r restart · x resign · ? help · q quit")
SUIT_LABELS: dict[SuitCount, str] = {1: N_("Easy"), 2: N_("Medium"), 4: N_("Hard")}

HELP = N_("""\
[b]Simple Simon[/b]: build runs of one suit from king down to ace; a full
run of 13 leaves the table. Remove all four to win.
Score: 500 to start, -1 a move, +100 a run removed.

[b]Moving[/b]
  [b]3 7[/b] or [b]3-7[/b]     move from column 3 to column 7
  [b]3-7x2[/b]          move the last 2 cards of column 3
  [b]3[/b] then Enter   the best move for column 3 (a double click)
  [b]mouse[/b]          click a card, then a column; double-click: best move
While you type a column number, the columns it may go to turn green.

[b]Rules[/b]
A card goes on a card exactly one rank higher, whatever its suit, or
into an empty column. Cards move together only when they go down one
by one in one suit. Nothing goes on an ace; a king moves only to an
empty column.

[b]Keys[/b]
  [b]u[/b] undo     [b]r[/b] restart (press r again)   [b]x[/b] resign (press x again)
  [b]q[/b] quit (an online game waits on the server)   [b]Esc[/b] clear   [b]?[/b] help
  [b]c[/b] copy the share text, once a daily is over
Any key goes back to the game.""")


def said_in_the_language(node: App[int] | ModalScreen[int]) -> None:
    """The descriptions of ``node``'s key bindings, in the language of the run (the class's
    are marked, and read before the language is chosen)."""
    for key, bindings in node._bindings.key_to_bindings.items():
        node._bindings.key_to_bindings[key] = [
            replace(binding, description=_(binding.description)) if binding.description else binding
            for binding in bindings
        ]


class SuitScreen(ModalScreen[int]):
    """ "How many suits?": 1 Easy, 2 Medium, 4 Hard; the default is focused."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "choose(1)", N_("Easy")),
        Binding("2", "choose(2)", N_("Medium")),
        Binding("4", "choose(4)", N_("Hard")),
        Binding("left,up", "app.focus_previous", show=False),
        Binding("right,down", "app.focus_next", show=False),
    ]

    def __init__(self, default: int) -> None:
        super().__init__()
        self.default = default
        said_in_the_language(self)

    def compose(self) -> ComposeResult:
        with Vertical(id="suit-dialog"):
            yield Static(_("How many suits?"), id="suit-question")
            with Horizontal(id="suit-buttons"):
                for suits, label in SUIT_LABELS.items():
                    yield Button(f"{suits}  {_(label)}", id=f"suits-{suits}")
            yield Static(_("1, 2 or 4, or Enter for the one lit"), id="suit-hint")

    def on_mount(self) -> None:
        self.query_one(f"#suits-{self.default}", Button).focus()

    @on(Button.Pressed)
    def pressed(self, event: Button.Pressed) -> None:
        assert event.button.id is not None
        self.dismiss(int(event.button.id.removeprefix("suits-")))

    def action_choose(self, suits: int) -> None:
        self.dismiss(suits)


class HelpScreen(ModalScreen[None]):
    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog"):
            yield Static(_(HELP), id="help-text")

    def on_key(self) -> None:
        self.back_to_game()

    def on_click(self) -> None:
        self.back_to_game()

    def back_to_game(self) -> None:
        """Back to the game, once: keys typed in a burst all reach this screen before it
        is gone, and a second dismiss would pop the game's own screen."""
        if self.is_active:
            self.dismiss()


class SimonApp(App[int]):
    """The game screen: score line, board, race panel, notice line and the prompt."""

    CSS_PATH = Path(__file__).with_name("app.tcss")
    TITLE = "Simple Simon"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit", N_("Quit"), show=False, priority=True),
        Binding("escape", "clear", N_("Clear"), show=False),
    ]

    def __init__(
        self,
        open_table: OpenTable,
        *,
        ask_suits: int | None = None,
        remember_suits: Callable[[int], None] | None = None,
        letters: bool = False,
    ) -> None:
        """``ask_suits``: ask "How many suits?" first, offering that choice."""
        super().__init__()
        said_in_the_language(self)
        self.title = _(self.TITLE)
        self.open_table = open_table
        self.ask_suits = ask_suits
        self.remember_suits = remember_suits
        self.letters = letters
        self.table: Table | None = None
        self.error: ClientError | None = None  # why the game could not open
        self.confirming: CommandKind | None = None  # restart or resign, asked once more
        #: Text to print once the screen is closed (the share text, with no clipboard here).
        self.printed: str | None = None
        #: A group picked up with the mouse: its column (0-based) and count (None: implied).
        self.held: tuple[int, int | None] | None = None

    def compose(self) -> ComposeResult:
        yield ScoreLine(id="score")
        with Horizontal(id="main"):
            with BoardBox(id="board-box"):
                yield BoardView(letters=self.letters, id="board")
            yield RacePanel(id="race")
        yield Static("", id="notice")
        yield AfterPanel(id="after")
        yield Input(
            placeholder=_(PLACEHOLDER),
            id="prompt",
        )
        yield Static("", id="connection")

    async def on_mount(self) -> None:
        self.query_one("#race").display = False
        self.query_one("#board-box").display = False  # no empty board behind the question
        self.query_one("#prompt", Input).disabled = True
        if self.ask_suits is not None:
            self.push_screen(SuitScreen(self.ask_suits), self._suits_chosen)
        else:
            self.run_worker(self._open(None), exclusive=True)

    def _suits_chosen(self, suits: int | None) -> None:
        if suits is None:
            self.exit(0)
            return
        if self.remember_suits is not None:
            self.remember_suits(suits)
        self.run_worker(self._open(suits), exclusive=True)

    async def _open(self, suits: int | None) -> None:
        self.notify_line(Notice("status", _("Dealing…")))
        try:
            table = await self.open_table(suits)
        except ClientError as error:
            self.error = error
            self.exit(1)
            return
        self.table = table
        table.listener = self.table_changed
        self.query_one("#race").display = table.mode == "daily"
        self.query_one("#board-box").display = True
        prompt = self.query_one("#prompt", Input)
        prompt.disabled = False
        prompt.focus()
        self.notify_line(Notice("info", _("Your move. ? shows the rules and keys.")))
        self.table_changed(None)
        self.set_interval(1.0, self._tick)

    # -- showing the table ------------------------------------------------------------

    def table_changed(self, notice: Notice | None) -> None:
        table = self.table
        if table is None or table.game is None:
            return
        self.query_one(BoardView).show(table.game.columns)
        self.query_one(ScoreLine).update_from(table, self.letters)
        for panel in self.query(AfterPanel):  # a race's screen has none
            panel.update_from(table)
        if table.mode == "daily":
            self.query_one(RacePanel).update_from(table)
        connection = self.query_one("#connection", Static)
        connection.update(Text(table.status, "bold yellow") if table.status else "")
        self._update_selection()
        if notice is not None:
            self.notify_line(notice)

    def notify_line(self, notice: Notice) -> None:
        self.query_one("#notice", Static).update(notice_text(notice))

    def _tick(self) -> None:
        if self.table is not None:
            with contextlib.suppress(NoMatches):  # a tick while the screen closes
                self.query_one(ScoreLine).update_from(self.table, self.letters)

    def _update_selection(self) -> None:
        board = self.query_one(BoardView)
        typed = self.query_one("#prompt", Input).value
        chosen = chosen_column(typed) if self.table is not None else None
        if chosen is None and not typed.strip():
            chosen = self.held
        if chosen is None:
            board.select(None, None, ())
            return
        column, count = chosen
        assert self.table is not None
        board.select(column, count, self.table.targets(column, count))

    # -- input ----------------------------------------------------------------------------

    #: Keys of a subclass's own that act at once, like the game's (see :meth:`press_key`).
    OWN_KEYS: ClassVar[frozenset[str]] = frozenset()

    @on(Input.Changed, "#prompt")
    async def typed(self, event: Input.Changed) -> None:
        key = typed_key(event.value, {*KEYS, *self.OWN_KEYS})
        if key is not None:  # a command key acts, whatever was typed before it
            event.input.value = ""
            self.held = None
            await self.press_key(key)
            return
        value = event.value.strip()
        if value:
            self.held = None  # typing takes over from the mouse
        if self.confirming is not None and value:
            self.confirming = None
            self.notify_line(Notice("info", _("The game goes on.")))
        self._update_selection()

    async def press_key(self, key: str) -> None:
        """One of the keys that act at once (``u``, ``r``, ``x``, ``q``, ``?``)."""
        await self.run_command(read_command(key))

    # -- the mouse --------------------------------------------------------------------

    @on(BoardView.Clicked)
    async def board_clicked(self, event: BoardView.Clicked) -> None:
        """A click picks a group up (the card and those below it, or the column's movable
        run) and lights where it may go; a click on another column puts it there; a double
        click plays the column's best move."""
        prompt = self.query_one("#prompt", Input)
        prompt.focus()
        table = self.table
        if table is None or table.game is None or prompt.disabled:
            return
        prompt.value = ""
        held, self.held = self.held, None
        if event.chain >= 2:
            if held is not None and held[0] == event.column:  # its first click picked it up
                await self.run_command(Command("auto", column=event.column))
            return
        if held is not None:
            source, count = held
            if source == event.column:
                self.notify_line(Notice("info", _("Put back.")))
                self._update_selection()
            else:
                await self.run_command(Command("move", move=Move(source, event.column, count)))
            return
        column = table.game.column(event.column)
        if not column:
            self.notify_line(Notice("info", _("An empty column: nothing to pick up there.")))
            return
        run = movable_run(column)
        picked: int | None = None  # None: the movable run, its count implied by the target
        if event.card is not None and event.card >= len(column) - run:
            picked = len(column) - event.card
        self.held = (event.column, picked)
        self._update_selection()
        cards = group_label(column[-(picked or run) :], self.letters)
        self.notify_line(
            Notice(
                "info",
                _("%(cards)s: click a column to put it there, twice for its best move.")
                % {"cards": cards},
            )
        )

    def on_click(self) -> None:
        """Wherever a click lands, the keys keep playing."""
        prompt = self.query_one("#prompt", Input)
        if not prompt.disabled and self.screen is prompt.screen:
            prompt.focus()

    @on(Input.Submitted, "#prompt")
    async def submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        if not text:
            return
        try:
            command = read_command(text)
        except InvalidMoveError as error:
            self.notify_line(Notice("refused", str(error)))
            return
        await self.run_command(command)

    async def run_command(self, command: Command) -> None:
        """Do what the player asked; a refusal shows the rule it broke."""
        if command.kind == "quit":
            self.exit(0)
            return
        if command.kind == "help":
            self.push_screen(HelpScreen())
            return
        if command.kind == "copy":
            self._copy_share()
            return
        table = self.table
        if table is None:
            return
        if command.kind in CONFIRM and self.confirming != command.kind:
            self.confirming = command.kind
            self.notify_line(Notice("status", _(CONFIRM[command.kind])))
            return
        self.confirming = None
        action = command.move.text() if command.move else command.kind
        if command.kind == "auto":
            assert command.column is not None
            action = _("column %(column)s") % {"column": command.column + 1}
        try:
            if command.kind in ("move", "auto"):
                assert table.game is not None
                before = table.game.columns
                removed = len(table.game.removed)
                if command.move is not None:
                    played = await table.move(command.move)
                else:
                    assert command.column is not None
                    played = await table.auto(command.column)
                said = played_text(before, played, table.game, removed, self.letters)
                self.notify_line(Notice("info", said))
            elif command.kind == "undo":
                await table.undo()
                self.notify_line(Notice("info", _("Move taken back.")))
            elif command.kind == "restart":
                await table.restart()
                self.notify_line(Notice("info", _("The deal starts over.")))
            elif command.kind == "resign":
                if table.online:
                    self.notify_line(Notice("status", _("Resigning…")))
                await table.resign()
        except IllegalMoveError as error:
            prefix = f"{action}: " if action else ""
            sentence = rule_sentence(error.code, error.message)
            self.notify_line(Notice("refused", f"{prefix}{sentence}", error.code))
        except ClientError as error:
            self.notify_line(Notice("status", str(error)))
        self.table_changed(None)
        if table.finished and table.game is not None and table.game.is_won:
            self.notify_line(
                Notice(
                    "won",
                    won_text(table.game.score, table.game.moves, table.rank, table.review),
                )
            )

    def _copy_share(self) -> None:
        """``c``: the share text to the clipboard, or (with none here) printed at the end."""
        finished = self.table.after if self.table is not None else None
        if finished is None or not finished.share:
            self.notify_line(Notice("info", _("Nothing to share yet: finish today's daily.")))
        elif copy_text(finished.share):
            self.notify_line(Notice("info", _("Copied the share text.")))
        else:
            self.printed = finished.share
            self.notify_line(
                Notice("info", _("No clipboard here: the text is printed on quitting."))
            )

    def action_clear(self) -> None:
        self.query_one("#prompt", Input).value = ""
        self.confirming = None
        self.held = None
        self._update_selection()

    async def on_unmount(self) -> None:
        if self.table is not None:
            await self.table.close()
