"""``simon review`` shows at once that it asks the server's solver, where its review stands
while it waits in line (a spinner on a terminal), the position the solver judges (a bar on
a terminal) and a warning when the review will take long, and says when the solver is
done."""

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
    progress.heard(parse_server_message('{"type": "queued", "game": "g1", "position": 3}'))
    progress.heard(parse_server_message('{"type": "queued", "game": "g1", "position": 1}'))
    progress.heard(parse_server_message('{"type": "pong", "server_time": "2026-03-01T12:00:00Z"}'))
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
    progress.heard(parse_server_message('{"type": "queued", "game": "g1", "position": 2}'))
    await asyncio.sleep(0.05)
    spinner.cancel()
    drawn = screen.getvalue()
    assert "Asking the solver… 2 s" in drawn and "number 2 in line 2 s" in drawn
    assert len({frame for frame in SolverProgress.FRAMES if frame in drawn}) > 2  # it turns
    now[0] = 3.0
    progress.done(ok=True)
    last = screen.getvalue().split("\r")[-1]
    assert last == "\x1b[2KThe solver is done (3.0 s).\n"  # the spinner's line cleared


def progress_message(judged: int, positions: int, estimate: float | None = None) -> str:
    fields = f'"judged": {judged}, "positions": {positions}'
    if estimate is not None:
        fields += f', "seconds_left_estimate": {estimate}, "long": {str(estimate >= 10).lower()}'
    return '{"type": "review_progress", "game": "g1", ' + fields + "}"


def test_simon_review_says_how_many_positions_and_warns_of_a_long_review(
    capsys: pytest.CaptureFixture[str],
) -> None:
    now = [0.0]
    progress = SolverProgress(clock=lambda: now[0])
    progress.start()
    progress.heard(parse_server_message(progress_message(0, 61, 24.6)))
    progress.heard(parse_server_message(progress_message(23, 61, 14.0)))  # said once, off a tty
    progress.heard(parse_server_message(progress_message(61, 61, 0.0)))
    now[0] = 20.0
    progress.done(ok=True)
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "Asking the solver…",
        "This review will take a while: about 25 seconds.",
        "The solver is judging 61 positions…",
        "The solver is done (20.0 s).",
    ]


def test_on_a_terminal_the_position_judged_shows_with_a_bar() -> None:
    now = [0.0]
    screen = Terminal()
    progress = SolverProgress(screen, clock=lambda: now[0])
    progress.start()
    progress.heard(parse_server_message(progress_message(0, 61)))  # no estimate: no warning
    assert screen.getvalue().split("\r")[-1] == (
        "\x1b[2K⠋ judging position 1 of 61 " + "░" * 20 + " 0 s"
    )
    now[0] = 3.0
    progress.heard(parse_server_message(progress_message(22, 61, 12.0)))
    drawn = screen.getvalue().split("\r")
    # the warning stays above, the spinner's line is drawn again below it
    assert "\x1b[2KThis review will take a while: about 12 seconds.\n" in drawn
    assert drawn[-1] == "\x1b[2K⠋ judging position 23 of 61 " + "█" * 7 + "░" * 13 + " 3 s"
    progress.heard(parse_server_message(progress_message(30, 61, 11.0)))
    assert screen.getvalue().count("take a while") == 1  # warned once
