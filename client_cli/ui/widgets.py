"""The pieces of the game screen: the board, the score line, the race panel, the notice line."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text
from textual import events
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from server.engine import COLUMNS, RUNS_PER_GAME, Card, Game, Move
from server.engine.cards import SUIT_LETTERS
from server.protocol import RaceEntry

from ..table import Notice, Table
from ..wording import UNDER_REVIEW, board_note, player_label, plural
from ..words import N_, _, clock
from .cards import (
    CELL,
    HEADER,
    SUIT_SYMBOLS,
    WIDEST,
    card_label,
    group_label,
    render_board,
)


def describe_move(columns: Sequence[Sequence[Card]], move: Move, letters: bool = False) -> str:
    """Where the cards of a played move went, from the columns before it.

    ``9-4x2: 3♥ 2♥ onto 4♥``; a longer group reads ``6♥…2♥``.
    """
    count = move.count or 1
    cards = group_label(columns[move.source][-count:], letters)
    target = columns[move.target]
    where = (
        _("onto %(card)s") % {"card": card_label(target[-1], letters)}
        if target
        else _("into the empty column")
    )
    notation = move.text() if count > 1 else Move(move.source, move.target).text()
    return f"{notation}: {cards} {where}"


def played_text(
    before: Sequence[Sequence[Card]], played: Move, game: Game | None, removed: int, letters: bool
) -> str:
    """What a played move did: where the cards went (from the columns ``before`` it), and
    the run that left the table if the game now has more than ``removed``."""
    text = describe_move(before, played, letters)
    if game is not None and len(game.removed) > removed:
        ace = game.removed[-1] << 4 | 1  # any card of the removed suit, for its symbol
        text += " · " + _("a run of %(suit)s leaves the table") % {
            "suit": card_label(ace, letters)[1]
        }
    return text + "."


def notice_text(notice: Notice) -> Text:
    """The notice line: a refusal in red with the rule's code, a win starred."""
    styles = {"refused": "bold red", "won": "bold green", "status": "yellow"}
    text = Text()
    if notice.kind == "refused":
        text.append("✗ ", "bold red")
    elif notice.kind == "won":
        text.append("★ ", "bold yellow")
    text.append(notice.text, styles.get(notice.kind, ""))
    if notice.rule:
        text.append(f"  [{notice.rule}]", "dim")
    return text


def format_clock(seconds: float) -> str:
    """``4:05``, ``1:04:05``: the server's one clock (``server.i18n.formats.clock``)."""
    return clock(seconds)


class BoardBox(VerticalScroll):
    """Scrolls the board in a short terminal; never takes the focus from the prompt (keys
    typed after a click on the board still play)."""

    can_focus = False


class BoardView(Widget):
    """The ten columns, their numbers, and the placement help for a chosen column.

    It fills the width it is given (wider columns, up to a point) and spaces the cards
    apart when the height allows. A click posts :class:`BoardView.Clicked`: which column,
    and which card of it (None: its number, or below its cards).
    """

    DEFAULT_CSS = """
    BoardView { height: auto; width: 1fr; min-width: 50; }
    """

    class Clicked(Message):
        def __init__(self, column: int, card: int | None, chain: int) -> None:
            super().__init__()
            self.column = column  # 0-based
            self.card = card  # the card's index in its column, deepest first
            self.chain = chain  # 2: the second click of a double click

    def __init__(self, letters: bool = False, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.letters = letters
        self.columns: tuple[tuple[Card, ...], ...] = ((),) * COLUMNS
        self.selected: int | None = None  # 0-based
        self.selected_count: int | None = None
        self.targets: frozenset[int] = frozenset()

    def show(self, columns: Iterable[Sequence[Card]]) -> None:
        self.columns = tuple(tuple(column) for column in columns)
        self.refresh(layout=True)
        self._keep_ends_in_sight()

    def _keep_ends_in_sight(self) -> None:
        if self.overflows and isinstance(self.parent, Widget):
            self.parent.call_after_refresh(self.parent.scroll_end, animate=False)

    def select(self, column: int | None, count: int | None, targets: Iterable[int]) -> None:
        self.selected, self.selected_count = column, count
        self.targets = frozenset(targets)
        self.refresh()

    @property
    def cell(self) -> int:
        """Characters per column at the width the board has now."""
        return max(CELL, min(WIDEST, self.size.width // COLUMNS))

    def _deepest(self) -> int:
        return max(1, max(len(column) for column in self.columns))

    def _space(self) -> int:
        """Lines the board's box shows at once."""
        return self.parent.size.height if isinstance(self.parent, Widget) else 0

    @property
    def row_height(self) -> int:
        """Lines per card: two when the tallest column still fits the space there is."""
        return 2 if HEADER + 2 * self._deepest() + 1 <= self._space() else 1

    @property
    def overflows(self) -> bool:
        """Taller than its box: the numbers go under the cards too, and the box scrolls to
        the ends of the columns, where the play is."""
        return 0 < self._space() < HEADER + self._deepest()

    def get_content_width(self, container: object, viewport: object) -> int:
        return CELL * COLUMNS

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return HEADER + self.row_height * self._deepest() + self.overflows

    def on_resize(self) -> None:
        self.refresh(layout=True)
        self._keep_ends_in_sight()

    def render(self) -> RenderableType:
        return render_board(
            self.columns,
            letters=self.letters,
            cell=self.cell,
            row_height=self.row_height,
            selected=self.selected,
            selected_count=self.selected_count,
            targets=self.targets,
            footer=self.overflows,
        )

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        column = min(COLUMNS - 1, offset.x // self.cell)
        card: int | None = None
        if offset.y >= HEADER:
            index = (offset.y - HEADER) // self.row_height
            card = index if index < len(self.columns[column]) else None
        self.post_message(self.Clicked(column, card, event.chain))


class ScoreLine(Static):
    """The deal, mode, how the game stands, score, moves, runs removed, clock, par and rank."""

    def update_from(self, table: Table, letters: bool = False) -> None:
        game = table.game
        if game is None:
            self.update("")
            return
        if table.mode == "daily":
            mode = _("daily %(day)s") % {"day": table.day or ""}
        elif table.mode == "practice":
            mode = _("practice")
        else:
            mode = _("offline practice")
        if table.race_room is not None:
            mode = _("race %(room)s") % {"room": table.race_room}
        symbols = SUIT_LETTERS if letters else SUIT_SYMBOLS
        runs = "".join(symbols[s] for s in game.removed) + "·" * (RUNS_PER_GAME - len(game.removed))
        text = Text(no_wrap=True)
        text.append(f"{table.code}", "bold")
        text.append(f"  {mode} · {plural(game.suits, 'suit')}")
        if game.is_won:
            text.append("  ·  " + _("won"), "bold green3")
        elif table.finished:
            text.append("  ·  " + _("game over"), "bold red")
        text.append("\n")
        facts = [
            (_("Score"), str(game.score)),
            (_("Moves"), str(game.moves)),
            (_("Runs"), runs),
            (_("Time"), format_clock(table.elapsed())),
        ]
        if table.mode == "daily":  # par is the daily deal's, known once the day is over
            facts.append((_("Par"), str(table.par) if table.par is not None else "—"))
        for label, value in facts:
            text.append(f"{label} ", "dim")
            text.append(f"{value}   ", "bold")
        if table.review is not None:
            text.append(_(UNDER_REVIEW), "bold magenta")
        elif table.rank is not None:
            text.append(_("Rank") + " ", "dim")
            text.append(f"#{table.rank}", "bold yellow")
        if table.board == "new":
            text.append(f"\n{board_note(table.board, table.counts_from)}", "magenta")
        self.update(text)


#: How a player stands, in full and for a narrow panel.
STATUS_WORDS = {
    "won": (N_("won"), N_("won"), "bold green3"),
    "resigned": (N_("gave up"), N_("quit"), "red"),
    "ended": (N_("ended"), N_("end"), "dim"),
    "left": (N_("left"), N_("left"), "dim"),
    "playing": (N_("playing"), N_("play"), ""),
}
NARROW = 34  # panel width under which the race drops the moves column and short words


def race_status(entry: RaceEntry, left: bool, narrow: bool = False) -> Text:
    if entry.won:
        key = "won"
    elif entry.resigned:
        key = "resigned"
    elif entry.finished:
        key = "ended"
    else:
        key = "left" if left else "playing"
    full, short, style = STATUS_WORDS[key]
    return Text(_(short if narrow else full), style)


def panel_grid(title: str, expand: bool = True) -> RichTable:
    """A borderless table under a bold title, as the race panels show their racers."""
    return RichTable(
        title=title,
        title_justify="left",
        title_style="bold",
        expand=expand,
        box=None,
        padding=(0, 0, 0, 1),
        pad_edge=False,
        show_edge=False,
    )


#: The newest race events the panel keeps room for, however many racers it lists.
LATEST_AT_LEAST = 2


def racers_room(height: int, racers: int, events: int) -> int:
    """How many racers' lines the race panel shows (``height`` lines in all, 0: not laid out
    yet), so that the newest events (up to :data:`LATEST_AT_LEAST`) show beneath them.

    >>> racers_room(10, 9, 5), racers_room(30, 9, 5), racers_room(10, 9, 0)
    (4, 9, 8)
    """
    if height <= 0:
        return racers
    events_room = 2 + min(events, LATEST_AT_LEAST) if events else 0  # a blank line, a heading
    return max(1, min(racers, height - 2 - events_room))  # the title and the heading


def latest_events(log: Sequence[str], height: int, standings: int) -> list[RenderableType]:
    """The race's latest events under its standings, as many of the newest as the panel has
    lines for (``height``, 0: not laid out yet; ``standings``: the lines the standings take):
    a panel cut short by the finished screen's lines or by many racers drops the oldest
    events, never the last run and the win that came last.

    >>> [str(part) for part in latest_events(["a", "b", "c"], 5, 2)]
    ['', 'Latest', 'c']
    """
    if not log:
        return []
    lines = list(log)
    if height > 0:
        lines = lines[-max(1, height - standings - 2) :]  # 2: the blank line and the heading
    shown = Text("\n".join(lines), "dim", overflow="ellipsis", no_wrap=True)
    return [Text(""), Text(_("Latest"), "bold"), shown]


class RacePanel(Static):
    """The others on the same deal: their moves, score, runs, how they stand; the latest events."""

    table: Table | None = None

    def on_resize(self) -> None:
        if self.table is not None:
            self.update_from(self.table)

    def update_from(self, table: Table) -> None:
        self.table = table
        narrow = 0 < self.size.width < NARROW
        shown = len(table.race)
        # the server sends the leaders and the rows around you: say how many race
        grid = panel_grid(
            _("Race: %(shown)s of %(total)s") % {"shown": shown, "total": table.race_total}
            if table.race_total > shown
            else _("Race")
        )
        grid.add_column(_("Player"), overflow="ellipsis", no_wrap=True, ratio=1, min_width=4)
        if not narrow:
            grid.add_column(_("Mv"), justify="right")
        grid.add_column(_("Score"), justify="right")
        grid.add_column(_("Runs"), justify="right")
        grid.add_column("", no_wrap=True, min_width=4 if narrow else 7)
        entries = sorted(table.race.values(), key=RaceEntry.standing)  # the server's order
        room = racers_room(self.size.height, len(entries), len(table.race_log))
        if room < len(entries):  # a short panel: the leaders, and you, above the latest events
            mine = [entry for entry in entries[room - 1 :] if entry.player == table.player]
            entries = entries[: room - len(mine)] + mine
        for entry in entries:
            left = entry.player in table.race_left
            style = "bold cyan" if entry.player == table.player else ("dim" if left else "")
            cells = [
                Text(player_label(entry.player, entry.bot), style),
                str(entry.moves),
                str(entry.score),
                f"{entry.removed}/4",
                race_status(entry, left, narrow),
            ]
            if narrow:
                del cells[1]
            grid.add_row(*cells)  # type: ignore[arg-type]  # mixed Text and str cells
        if not entries:
            grid.add_row(Text(_("nobody yet"), "dim"))
        standings = 2 + max(1, len(entries))  # the title, the heading and a line a racer
        latest = latest_events(table.race_log, self.size.height, standings)
        self.update(Group(grid, *latest))
