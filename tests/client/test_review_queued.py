"""``simon review`` shows at once that it asks the server's solver, where its review stands
while it waits in line (a spinner on a terminal), and says when the solver is done."""

from __future__ import annotations

import asyncio
import io

import pytest

from client_cli.after import SolverProgress
from server.protocol import parse_server_message


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_simon_review_says_where_its_review_waits(capsys: pytest.CaptureFixture[str]) -> None:
    now = [100.0]
    progress = SolverProgress(clock=lambda: now[0])
    progress.start()
    progress.queued(parse_server_message('{"type": "queued", "game": "g1", "position": 3}'))
    progress.queued(parse_server_message('{"type": "queued", "game": "g1", "position": 1}'))
    progress.queued(parse_server_message('{"type": "pong", "server_time": "2026-03-01T12:00:00Z"}'))
    now[0] += 7.42
    progress.done(ok=True)
    out, err = capsys.readouterr()
    assert out == ""  # stdout is the review's (its JSON with --json)
    assert err.splitlines() == [
        "Asking the solver…",  # at once, before the server says anything
        "waiting for the solver: number 3 in line",
        "waiting for the solver: next in line",
        "The solver is done (7.4 s).",
    ]


async def test_on_a_terminal_a_spinner_turns_with_the_seconds_then_clears() -> None:
    now = [0.0]
    screen = Terminal()
    progress = SolverProgress(screen, clock=lambda: now[0])
    progress.TURN = 0.01
    progress.start()
    assert screen.getvalue().endswith("⠋ Asking the solver… 0 s")
    spinner = asyncio.create_task(progress.spin())
    now[0] = 2.5
    await asyncio.sleep(0.05)
    progress.queued(parse_server_message('{"type": "queued", "game": "g1", "position": 2}'))
    await asyncio.sleep(0.05)
    spinner.cancel()
    drawn = screen.getvalue()
    assert "Asking the solver… 2 s" in drawn and "number 2 in line 2 s" in drawn
    assert len({frame for frame in SolverProgress.FRAMES if frame in drawn}) > 2  # it turns
    now[0] = 3.0
    progress.done(ok=True)
    last = screen.getvalue().split("\r")[-1]
    assert last == "\x1b[2KThe solver is done (3.0 s).\n"  # the spinner's line cleared
