"""The pieces of the game screen: the board, the score line, the race panel."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from server.engine import COLUMNS, RUNS_PER_GAME, Card, Move, rank, suit
from server.engine.cards import RANK_LETTERS, SUIT_LETTERS
from server.protocol import RaceEntry

from ..table import UNDER_REVIEW, Table, player_label, plural

SUIT_SYMBOLS = "♠♥♦♣"
#: A four-colour pack that reads on dark and light terminals; the symbol carries the suit too.
SUIT_STYLES = ("bold", "bold red", "bold dodger_blue2", "bold green3")
CELL = 5  # characters per column: " T♥ " and a gap


def card_label(card: Card, letters: bool = False) -> str:
    """``T♥``, or ``TH`` with ``letters``: readable with or without colour."""
    symbols = SUIT_LETTERS if letters else SUIT_SYMBOLS
    return RANK_LETTERS[rank(card) - 1] + symbols[suit(card)]


def describe_move(columns: Sequence[Sequence[Card]], move: Move, letters: bool = False) -> str:
    """Where the cards of a played move went, from the columns before it.

    ``9-4x2: 3♥ 2♥ onto 4♥``; a longer group reads ``6♥…2♥``.
    """
    count = move.count or 1
    group = [card_label(card, letters) for card in columns[move.source][-count:]]
    cards = " ".join(group) if len(group) <= 2 else f"{group[0]}…{group[-1]}"
    target = columns[move.target]
    where = f"onto {card_label(target[-1], letters)}" if target else "into the empty column"
    notation = move.text() if count > 1 else Move(move.source, move.target).text()
    return f"{notation}: {cards} {where}"


def movable_run(column: Sequence[Card]) -> int:
    """How many cards at the end of a column go down one by one in one suit."""
    count = 1 if column else 0
    while count < len(column) and column[-count - 1] == column[-count] + 1:
        count += 1
    return count


def format_clock(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02}:{seconds:02}" if hours else f"{minutes}:{seconds:02}"


class BoardView(Widget):
    """The ten columns, their numbers, and the placement help for a chosen column."""

    DEFAULT_CSS = """
    BoardView { height: auto; width: auto; }
    """

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

    def select(self, column: int | None, count: int | None, targets: Iterable[int]) -> None:
        self.selected, self.selected_count = column, count
        self.targets = frozenset(targets)
        self.refresh()

    def get_content_width(self, container: object, viewport: object) -> int:
        return CELL * COLUMNS

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return 2 + max(1, max(len(column) for column in self.columns))

    def render(self) -> RenderableType:
        text = Text(no_wrap=True)
        for index in range(COLUMNS):
            style = ""
            if index == self.selected:
                style = "bold reverse"
            elif index in self.targets:
                style = "bold black on green3"
            text.append(f"{index + 1:^{CELL - 1}}", style)
            text.append(" ")
        text.append("\n")
        for index in range(COLUMNS):
            mark = "▼" if index in self.targets else " "
            text.append(f"{mark:^{CELL - 1}} ", "green3")
        text.append("\n")
        height = max(1, max(len(column) for column in self.columns))
        for row in range(height):
            for index, column in enumerate(self.columns):
                text.append_text(self._cell(index, column, row))
                text.append(" ")
            if row < height - 1:
                text.append("\n")
        return text

    def _cell(self, index: int, column: Sequence[Card], row: int) -> Text:
        if not column:
            return Text(" ·· " if row == 0 else " " * (CELL - 1), "dim")
        if row >= len(column):
            return Text(" " * (CELL - 1))
        card = column[row]
        run = movable_run(column)
        style = SUIT_STYLES[suit(card)]
        in_run = row >= len(column) - run
        if not in_run:
            style = style.replace("bold", "").strip() or "default"
        if index == self.selected:
            group = self.selected_count or run
            if row >= len(column) - group:
                style += " reverse"
        elif index in self.targets and row == len(column) - 1:
            style += " underline on grey23"
        return Text(f" {card_label(card, self.letters)} ", style)


class ScoreLine(Static):
    """The deal, mode, how the game stands, score, moves, runs removed, clock, par and rank."""

    def update_from(self, table: Table, letters: bool = False) -> None:
        game = table.game
        if game is None:
            self.update("")
            return
        mode = {"daily": f"daily {table.day or ''}".strip(), "practice": "practice"}.get(
            table.mode, "offline practice"
        )
        if table.race_room is not None:
            mode = f"race {table.race_room}"
        symbols = SUIT_LETTERS if letters else SUIT_SYMBOLS
        runs = "".join(symbols[s] for s in game.removed) + "·" * (RUNS_PER_GAME - len(game.removed))
        text = Text(no_wrap=True)
        text.append(f"{table.code}", "bold")
        text.append(f"  {mode} · {plural(game.suits, 'suit')}")
        if game.is_won:
            text.append("  ·  won", "bold green3")
        elif table.finished:
            text.append("  ·  game over", "bold red")
        text.append("\n")
        facts = [
            ("Score", str(game.score)),
            ("Moves", str(game.moves)),
            ("Runs", runs),
            ("Time", format_clock(table.elapsed())),
        ]
        if table.mode == "daily":  # par is the daily deal's, known once the day is over
            facts.append(("Par", str(table.par) if table.par is not None else "—"))
        for label, value in facts:
            text.append(f"{label} ", "dim")
            text.append(f"{value}   ", "bold")
        if table.review is not None:
            text.append(UNDER_REVIEW, "bold magenta")
        elif table.rank is not None:
            text.append("Rank ", "dim")
            text.append(f"#{table.rank}", "bold yellow")
        self.update(text)


#: How a player stands, in full and for a narrow panel.
STATUS_WORDS = {
    "won": ("won", "won", "bold green3"),
    "resigned": ("gave up", "quit", "red"),
    "ended": ("ended", "end", "dim"),
    "left": ("left", "left", "dim"),
    "playing": ("playing", "play", ""),
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
    return Text(short if narrow else full, style)


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
        grid = RichTable(
            # the server sends the leaders and the rows around you: say how many race
            title=f"Race: {shown} of {table.race_total}" if table.race_total > shown else "Race",
            title_justify="left",
            title_style="bold",
            expand=True,
            box=None,
            padding=(0, 0, 0, 1),
            pad_edge=False,
            show_edge=False,
        )
        grid.add_column("Player", overflow="ellipsis", no_wrap=True, ratio=1, min_width=4)
        if not narrow:
            grid.add_column("Mv", justify="right")
        grid.add_column("Score", justify="right")
        grid.add_column("Runs", justify="right")
        grid.add_column("", no_wrap=True, min_width=4 if narrow else 7)
        entries = sorted(table.race.values(), key=RaceEntry.standing)  # the server's order
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
            grid.add_row(Text("nobody yet", "dim"))
        parts: list[RenderableType] = [grid]
        if table.race_log:
            log = Text("\n".join(table.race_log), "dim", overflow="ellipsis", no_wrap=True)
            parts += [Text(""), Text("Latest", "bold"), log]
        self.update(Group(*parts))
