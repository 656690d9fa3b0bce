"""``simon race``: the room screen (racers, countdown), then the game screen with the room's
live standings, then the results with a rematch key.

:class:`RaceApp` is the game screen of :class:`~client_cli.ui.app.SimonApp` with a room
panel: until the reveal it shows the room where the board will be; the standings panel
takes the daily race panel's place. Keys of its own: ``s`` starts the race (its owner),
``m`` asks for a rematch once it is over; ``q`` leaves the room (before the countdown) and
quits.
"""

from __future__ import annotations

import contextlib

from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.widgets import Input, Static

from ..errors import ClientError
from ..race_table import RaceTable, browser_link, ordinal, race_time
from ..table import Notice
from ..wording import player_label, plural
from ..words import N_, _
from .app import SimonApp
from .commands import Command
from .widgets import BoardBox, BoardView, ScoreLine, latest_events, panel_grid

#: The prompt's hint in the room, before the reveal; in the race; once it is over.
ROOM_PLACEHOLDER = N_("s start (the owner) · q leave · ? help")
#: Fits an 80-column terminal: the best move (3, Enter) is left to the help (?).
RACE_PLACEHOLDER = N_("3-7 move · u undo · r restart · x resign · q quit (you stay in the race)")
OVER_PLACEHOLDER = N_("m rematch · q quit · ? help")
WATCH_PLACEHOLDER = N_("q quit · ? help")
PLACEHOLDERS = {"room": ROOM_PLACEHOLDER, "racing": RACE_PLACEHOLDER, "over": OVER_PLACEHOLDER}


def room_text(table: RaceTable) -> RenderableType:
    """The room before the reveal: its code, options, racers and how it will start."""
    room = table.room
    if room is None:
        return Text(_("Opening the room…"))
    text = Text()
    text.append(_("Race room") + " ", "bold")
    text.append(room.code, "bold yellow")
    kind = _("public") if room.public else _("private")
    text.append(
        "   "
        + _("%(suits)s · %(kind)s · up to %(capacity)s racers · %(minutes)s min")
        % {
            "suits": plural(room.suits, "suit"),
            "kind": kind,
            "capacity": room.capacity,
            "minutes": int(room.time_limit // 60),
        }
        + "\n\n"
    )
    if room.state == "over":
        text.append(_("This race is over.") + "\n\n", "bold")
        return Group(text, standings_grid(table, expand=False))
    if room.state == "racing":  # watched: the player is not in it
        text.append(_("This race is under way: the results come when it ends.") + "\n\n", "bold")
        return Group(text, standings_grid(table, expand=False))
    text.append(_("Racers (%(count)s)") % {"count": len(room.racers)} + "\n", "bold")
    for entry in room.racers:
        style = "bold cyan" if entry.player == table.player else ""
        text.append(f"  {player_label(entry.player, entry.bot)}", style)
        if entry.player == room.owner:
            text.append("  " + _("owner"), "dim")
        text.append("\n")
    text.append("\n")
    left = table.countdown_left()
    if room.state == "countdown" and left is not None:
        text.append(
            _("The deal is revealed in %(seconds)s s") % {"seconds": f"{left:.0f}"}, "bold green3"
        )
    elif room.state == "expired":
        text.append(_("The room closed before anyone started it."), "bold red")
    elif room.state == "open" and room.public:
        wait = table.auto_start_left()
        if wait is not None:
            text.append(
                _("The countdown begins by itself in %(seconds)s s") % {"seconds": f"{wait:.0f}"},
                "bold green3",
            )
            text.append(" " + _("(at once at 3 racers)."))
        else:
            text.append(_("It counts down by itself at 3 racers, or 30 s after the second came."))
    elif room.state == "open" and table.owner and len(room.racers) > 1:
        text.append(_("Press s to start the countdown."), "bold")
    elif room.state == "open" and table.owner:
        text.append(_("Press s to start the countdown once someone has joined."), "bold")
    elif room.state == "open":
        text.append(_("Waiting for %(owner)s to start the race.") % {"owner": room.owner})
    text.append("\n\n")
    if room.state != "open":  # nobody joins once the countdown has begun
        return text
    text.append(_("Others join with") + " ", "dim")
    text.append(f"simon race join {room.code}", "bold")
    text.append(" " + _("or in a browser at") + " ", "dim")
    text.append(browser_link(table.connection.url, room.code), "bold")
    if room.allow_bots:
        text.append("   " + _("(bot accounts welcome)"), "dim")
    return text


def standings_grid(table: RaceTable, expand: bool = True) -> RichTable:
    """The room's racers in standings order: place, runs, moves and how each stands."""
    room = table.room
    grid = panel_grid(_("Race %(room)s") % {"room": room.code} if room else _("Race"), expand)
    grid.add_column("#", justify="right")
    grid.add_column(_("Player"), overflow="ellipsis", no_wrap=True, ratio=1, min_width=4)
    grid.add_column(_("Runs"), justify="right")
    grid.add_column(_("Mv"), justify="right")
    grid.add_column("", no_wrap=True, min_width=7)
    for index, entry in enumerate(table.ordered(), start=1):
        left = entry.player in table.room_left
        style = "bold cyan" if entry.player == table.player else ("dim" if left else "")
        if entry.won:
            status = Text(race_time(entry.elapsed or 0.0), "bold green3")
        elif entry.resigned:
            status = Text(_("gave up"), "red")
        elif entry.finished:
            status = Text(_("time up"), "dim")
        else:
            status = Text(_("left") if left else _("racing"), "dim" if left else "")
        place = ordinal(entry.place) if entry.place is not None else str(index)
        grid.add_row(
            place,
            Text(player_label(entry.player, entry.bot), style),
            f"{entry.removed}/4",
            str(entry.moves),
            status,
        )
    return grid


class StandingsPanel(Static):
    """The room's standings beside the board, and its latest events (the newest kept when
    the panel is short)."""

    table: RaceTable | None = None

    def on_resize(self) -> None:
        if self.table is not None:
            self.update_from(self.table)

    def update_from(self, table: RaceTable) -> None:
        self.table = table
        standings = 2 + len(table.ordered())  # the title, the heading and a line a racer
        latest = latest_events(table.race_log, self.size.height, standings)
        self.update(Group(standings_grid(table), *latest))


class RaceApp(SimonApp):
    """The room, the race and its results, on one screen."""

    TITLE = N_("Simple Simon: race")
    CSS = """
    #room { width: 1fr; height: 100%; padding: 1 2; }
    """

    def compose(self) -> ComposeResult:
        yield ScoreLine(id="score")
        with Horizontal(id="main"):
            yield Static("", id="room")
            with BoardBox(id="board-box"):
                yield BoardView(letters=self.letters, id="board")
            yield StandingsPanel(id="race")
        yield Static("", id="notice")
        yield Input(placeholder=_(ROOM_PLACEHOLDER), id="prompt")
        yield Static("", id="connection")

    @property
    def race_table(self) -> RaceTable | None:
        return self.table if isinstance(self.table, RaceTable) else None

    async def _open(self, suits: int | None) -> None:
        self.notify_line(Notice("status", _("Opening the room…")))
        try:
            table = await self.open_table(suits)
        except ClientError as error:
            self.error = error
            self.exit(1)
            return
        self.table = table
        table.listener = self.table_changed
        prompt = self.query_one("#prompt", Input)
        prompt.disabled = False
        prompt.focus()
        if isinstance(table, RaceTable):
            self.notify_line(table.opening_line())
        self.table_changed(None)
        self.set_interval(0.25, self._tick)

    def table_changed(self, notice: Notice | None) -> None:
        table = self.race_table
        if table is None:
            return
        phase = table.phase
        playing = phase != "room" and table.game is not None
        self.query_one("#room").display = not playing
        self.query_one("#board-box").display = playing
        self.query_one("#race").display = playing
        placeholder = _(PLACEHOLDERS[phase])
        if table.watching and phase == "room":
            placeholder = _(WATCH_PLACEHOLDER)
        self.query_one("#prompt", Input).placeholder = placeholder
        if playing:
            super().table_changed(None)
            self.query_one(StandingsPanel).update_from(table)
        else:
            self.query_one("#room", Static).update(room_text(table))
            self.query_one(ScoreLine).update("")
            connection = self.query_one("#connection", Static)
            connection.update(Text(table.status, "bold yellow") if table.status else "")
        if notice is not None:
            self.notify_line(notice)

    def _tick(self) -> None:
        table = self.race_table
        if table is None:
            return
        if table.phase == "room" or table.game is None:
            with contextlib.suppress(NoMatches):  # a tick while the screen closes
                self.query_one("#room", Static).update(room_text(table))
        else:
            super()._tick()

    OWN_KEYS = frozenset("sm")

    async def press_key(self, key: str) -> None:
        """``s`` (the owner starts the race) and ``m`` (a rematch, once it is over)."""
        table = self.race_table
        if table is None or key not in self.OWN_KEYS:
            await super().press_key(key)
            return
        try:
            if key == "s":
                if table.phase == "over":
                    self.notify_line(Notice("info", _("The race is over: m asks for a rematch.")))
                elif table.phase != "room" or table.room is None or table.room.state != "open":
                    self.notify_line(
                        Notice("info", _("The race is under way: s starts nothing now."))
                    )
                elif not table.owner:
                    self.notify_line(Notice("info", _("Only the room's owner starts the race.")))
                else:
                    self.notify_line(
                        Notice("status", _("Starting: the server deals a fresh deal…"))
                    )
                    await table.start_race()
            elif table.phase != "over":
                self.notify_line(Notice("info", _("A rematch comes once the race is over.")))
            else:
                room = await table.rematch()
                self.notify_line(Notice("info", _("Rematch: room %(room)s.") % {"room": room.code}))
        except ClientError as error:
            self.notify_line(Notice("refused", str(error)))
        self.table_changed(None)

    async def run_command(self, command: Command) -> None:
        table = self.race_table
        if command.kind == "quit" and table is not None:
            await table.leave()
        elif table is not None and table.game is None and command.kind not in ("quit", "help"):
            if table.watching or table.phase == "over":
                self.notify_line(Notice("info", _("You have no game in this race.")))
            else:
                self.notify_line(
                    Notice("info", _("The race has not started: the board comes then."))
                )
            return
        await super().run_command(command)
