"""The play screen driven headless with Textual's pilot: a game to open and what it shows."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from rich.text import Text
from textual import events
from textual.app import App
from textual.widgets import Static

from client_cli.table import LocalTable, OnlineTable, Table
from client_cli.ui.app import SimonApp
from server.engine import Game
from server.kinds import Mode

CODE = "SS1-S4-AAAAABD"  # column 3 ends 2D, column 4 ends 3C: 3-4 is the only move of column 3
SIZE = (110, 36)


def opener(code: str | None = CODE) -> Callable[[int | None], Awaitable[Table]]:
    async def open_table(suits: int | None) -> Table:
        return LocalTable(Game.from_code(code or f"SS1-S{suits}-AAAAAAB"))

    return open_table


def online_opener(
    connection: Any, mode: Mode = "daily"
) -> Callable[[int | None], Awaitable[Table]]:
    """A table on ``connection`` (a scripted one), started in ``mode`` with 4 suits."""

    async def open_table(suits: int | None) -> Table:
        table = OnlineTable(connection)
        await table.start(mode, 4)
        return table

    return open_table


def notice(app: SimonApp) -> str:
    content = app.query_one("#notice", Static).content
    return content.plain if isinstance(content, Text) else str(content)


def game(app: SimonApp) -> Game:
    assert app.table is not None and app.table.game is not None
    return app.table.game


def type_in_a_burst(app: App[Any], keys: str) -> None:
    """Send ``keys`` all at once, as a fast typist does: the pilot's ``press`` lets the app
    settle after each key, so it never sees two keys reach a screen that is closing."""
    driver = app._driver
    assert driver is not None
    for key in keys:
        event = events.Key(key, key)
        event.set_sender(app)
        driver.send_message(event)
