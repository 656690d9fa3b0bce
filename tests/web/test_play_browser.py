"""The play page (``/play``) in a real headless Chromium, played with real input (DevTools
mouse and touch events, WebDriver clicks and keys): a new player registers and wins today's
deal by drag and drop, an illegal drop is refused with its rule, a double-click plays the
best move and undo takes it back, the keyboard plays, a reload resumes, moves stay honest
through 150 ms of latency and a cut connection, a race against a ``simon`` bot and a
rematch, a quick race and a resignation, a phone with touch. No test ends with an error in
the browser's console.

One server for the module (the embedded backend: the protocol is tested on both elsewhere);
each test signs up a player of its own on a fresh origin storage.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from server.engine import Game, IllegalMoveError, Move
from server.net import RunningServer
from tests.support.play import DESKTOP, PHONE, PlayPage, SolvingProver, board_of, fresh_table
from tests.support.proxy import TcpProxy
from tests.support.rooms import room_reply, signed_up
from tests.support.servers import (
    ROOT,
    Client,
    fresh_clock,
    server_settings,
    serving,
    unique_name,
)
from tests.support.web import (
    UNKNOWN_MESSAGE,
    chromium,
    embedded_backend,
    page,
    run,
    severe_logs,
    wait_for,
)

__all__ = ["chromium"]  # the fixture, used by name

#: A 1-suit practice deal (winnable).
DEAL = "SS1-S1-AAAAABD"


@pytest.fixture(scope="module")
async def served(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[RunningServer, SolvingProver]]:
    prover = SolvingProver()
    settings = server_settings(
        embedded_backend(tmp_path_factory.mktemp("play")),
        race_countdown_seconds=1,
        race_quick_wait_seconds=1,
    )
    async with serving(settings, clock=fresh_clock(), prover=prover) as server:
        yield server, prover


@pytest.fixture
async def play(
    chromium: Any, served: tuple[RunningServer, SolvingProver]
) -> AsyncIterator[PlayPage]:
    """The play page's tab for a new visitor (:func:`fresh_table`)."""
    async with fresh_table(chromium, served[0].http_url) as table:
        yield table


def first_illegal(game: Game) -> tuple[int, int, int, str]:
    """A drag the rules refuse: a movable group onto a card it does not fit; with the
    sentence of the rule that refuses it."""
    for source in range(10):
        count = game.movable_count(source)
        if not count:
            continue
        for target in range(10):
            if target == source or not game.column(target):
                continue
            try:
                game.resolve(Move(source, target, count))
            except IllegalMoveError as error:
                return source + 1, count, target + 1, error.message
    raise AssertionError("no illegal drag on this deal")


async def test_a_new_player_wins_the_daily_by_drag_and_drop(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, prover = served
    await play.open(f"{server.http_url}/play")
    name = unique_name("web")
    await play.register(name)
    assert await run(lambda: play.text("[data-account] [data-player-name]")) == name
    code = await play.start("daily", 1)
    # the race's place beside the table is there with the deal (its rows may come later):
    # the cards never shrink under the pointer when they do
    assert await run(lambda: play.find("[data-standings]").is_displayed())
    game = Game.from_code(code)
    await play.shows(game, "today's deal")
    assert await run(lambda: play.figure("data-moves")) == 0
    assert await run(lambda: play.figure("data-score")) == 500
    # the numbers the keys name stand over the columns
    numbers = await run(
        lambda: [
            e.text for e in play.driver.find_elements("css selector", "[data-board] .column-number")
        ]
    )
    assert numbers == [str(number) for number in range(1, 11)]

    # an illegal drop: it snaps back, and the server's rule is shown
    source, count, target, sentence = first_illegal(game)
    await play.drag(source, count, target)
    alert = await wait_for(lambda: play.text('[role="alert"]'), 10, "the rule")
    assert sentence in alert
    await play.settled()
    assert await run(play.columns) == board_of(game)

    moves = [Move.from_text(text) for text in prover.solution(code)]
    # while a group is held, its legal columns are lit, with no wait for the server
    first = moves[0]
    assert first.count is not None
    await play.press_and_hold(first.source + 1, first.count, first.target + 1)
    legal = await run(play.legal_columns)
    assert legal == [t + 1 for t in game.targets(first.source, first.count)]
    assert first.target + 1 in legal
    await play.release_on(first.target + 1)
    game.push(first)
    await play.shows(game, "the first move")
    assert await run(play.legal_columns) == []
    watched_a_run_leave = False
    for number, move in enumerate(moves[1:], start=2):
        assert move.count is not None
        removed = game.removed_count
        await play.drag(move.source + 1, move.count, move.target + 1)
        game.push(move)
        await play.shows(game, f"move {number}, {move.text()}")
        if game.removed_count > removed and not watched_a_run_leave:
            # while the run flies off, and after, the columns stay where the pointer found them
            watched_a_run_leave = True
            # (no scrollbar comes and goes with the table held taller: nothing shifts sideways)
            where = await run(lambda: play._rect('[data-column="1"]', 0)[:2])
            await asyncio.sleep(1.3)
            assert await run(lambda: play._rect('[data-column="1"]', 0)[:2]) == where
    assert watched_a_run_leave
    assert game.is_won
    result = await wait_for(play.result, 15, "the result")
    assert result == "won"
    assert await run(lambda: play.figure("data-moves")) == len(moves)
    assert await run(lambda: play.figure("data-score")) == 900 - len(moves)
    line = await run(lambda: play.text("[data-result-line]"))
    assert f"Score {900 - len(moves)} in {len(moves)} moves" in line
    # the solver's line at machine speed: fair play holds it for review, and the page says so
    assert "under review" in line
    assert "A review usually takes about 24 hours." in line  # SIMON_HELD_REVIEW_HOURS's default
    streak = await run(lambda: play.text('[data-figure="streak"]'))
    assert streak.split() == ["Days", "in", "a", "row", "1", "best", "1"]
    assert "under review" in await run(lambda: play.text('[data-figure="rank"]'))
    # the text to share names the day and the outcome, never the deal
    share = await run(lambda: play.text("[data-result-share]"))
    assert share.startswith(f"Simple Simon {server.hub.today().isoformat()} · 1 suit · won in")
    assert code not in share
    assert share.endswith(f"{server.http_url}/day/{server.hub.today().isoformat()}?suits=1")
    links = await run(
        lambda: [
            a.get_attribute("href")
            for a in play.driver.find_elements("css selector", "[data-result-links] a")
        ]
    )
    day = server.hub.today().isoformat()
    assert f"{server.http_url}/day/{day}?suits=1" in links
    assert f"{server.http_url}/player/{name}" in links
    assert await run(lambda: play.text("[data-game-over]")) == "Won"  # beside the title
    await play.snapshot("play-won-1280")
    await play.click('[data-result-box] [data-action="lobby"]')
    await wait_for(
        lambda: (
            play.text('[data-start="daily"][data-suits="1"] [data-state]')
            == "Played · under review"
        ),
        10,
        "the daily marked played, under review",
    )
    board = await page(f"{server.http_url}/day/{day}?suits=1")
    assert name not in board.text  # held: off the public board


async def practising(play: PlayPage, url: str, prefix: str) -> Game:
    """A new player on the page at ``url`` practising :data:`DEAL`, as the engine has it."""
    await play.open(f"{url}/play")
    await play.register(unique_name(prefix))
    assert await play.practice(DEAL) == DEAL
    game = Game.from_code(DEAL)
    await play.shows(game, "the deal")
    return game


async def test_a_double_click_plays_the_best_move_and_undo_takes_it_back(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    game = await practising(play, served[0].http_url, "dbl")
    # named for screen readers: the card and where it lies
    exposed = board_of(game)[2][-1]
    label = await run(
        lambda: play.find(f'[data-column="3"] [data-card="{exposed}"]:last-child').get_attribute(
            "aria-label"
        )
    )
    rank = {"A": "ace", "T": "10", "J": "jack", "Q": "queen", "K": "king"}.get(
        exposed[0], exposed[0]
    )
    assert label == f"{rank} of spades, column 3"
    column = next(c for c in range(10) if _auto_or_none(game, c) is not None)
    before = board_of(game)
    game.auto_move(column, 1)
    await play.double_click(column + 1, 1)
    await play.shows(game, "the best move of the double-clicked card")
    await play.settled()
    assert await run(lambda: play.figure("data-moves")) == 1
    await play.click('[data-action="undo"]')
    await wait_for(lambda: play.columns() == before, 10, "the undone move")
    assert await run(lambda: play.figure("data-moves")) == 0

    # the keyboard: a column, another, Enter; then u to undo
    move = next(game.legal_moves())
    game.undo()
    game.push(move)
    await play.type_keys(key_of(move.source), "-", key_of(move.target), "\ue007")
    await play.shows(game, f"the typed move {move.text()}")
    await play.settled()
    await play.type_keys("u")
    await wait_for(lambda: play.columns() == before, 10, "undone by u")


def key_of(column: int) -> str:
    """The key that names a column (from 0): one digit each, 0 for the tenth."""
    return str((column + 1) % 10)


async def test_typed_moves_go_at_once_one_key_a_column(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    game = await practising(play, served[0].http_url, "key")
    # "3 7" as the help shows it, with no Enter: the move goes at the second column
    first = game.resolve(next(game.legal_moves()))
    await play.type_keys(key_of(first.source), " ", key_of(first.target))
    game.push(first)
    await play.shows(game, f"the move {first.text()} typed with a space")
    await play.settled()
    assert await run(lambda: play.text("[data-refusal]")) == ""
    # "37" then Enter out of habit: one move, and the Enter lifts nothing
    second = game.resolve(next(game.legal_moves()))
    await play.type_keys(key_of(second.source), key_of(second.target), "\ue007")
    game.push(second)
    await play.shows(game, f"the move {second.text()} typed as two digits")
    await play.settled()
    assert await run(lambda: play.figure("data-moves")) == 2
    selected = await run(
        lambda: play.driver.find_elements("css selector", "[data-board] .selected")
    )
    assert selected == []
    assert await run(lambda: play.text("[data-refusal]")) == ""
    # a move the rules refuse is said as the rule, never as the server's validation text
    source, _, target, _ = first_illegal(game)
    with pytest.raises(IllegalMoveError) as refused:
        game.resolve(Move.from_text(f"{source}-{target}"))
    await play.type_keys(key_of(source - 1), key_of(target - 1))
    alert = await wait_for(lambda: play.text('[role="alert"]'), 10, "the rule")
    assert alert == f"✗ {source}-{target}: {refused.value.message}"


async def test_the_table_fills_its_width_and_clicks_reach_the_whole_column(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, _ = served
    await play.viewport({**DESKTOP, "width": 1366, "height": 768})
    await play.open(f"{server.http_url}/play")
    await play.register(unique_name("wide"))
    # the day's countdown ticks while the lobby shows it
    left = await wait_for(lambda: play.text("[data-day-left]"), 10, "the day's countdown")
    await wait_for(lambda: play.text("[data-day-left]") != left, 3, "the countdown ticking")

    # a deal started from the keyboard: the keys go on at the table
    field = await run(lambda: play.find('form[data-form="practice-code"] input[name="code"]'))
    await run(lambda: field.send_keys(DEAL + "\n"))
    assert await play.dealt() == DEAL
    focused = await run(lambda: play.driver.switch_to.active_element)
    assert await run(lambda: focused.get_attribute("data-column")) == "1"
    game = Game.from_code(DEAL)
    await play.shows(game, "the deal")

    # the table takes its cell's width (the replay page's 56rem is not its cap)
    board_width = await run(lambda: play._rect("[data-board]", 0)[2])
    cell_width = await run(lambda: play._rect(".table", 0)[2])
    assert board_width >= cell_width - 1, (board_width, cell_width)
    card_width = await run(lambda: play._rect("[data-card]", 0)[2])
    assert card_width >= 95, card_width

    # lifted by a click, put down by a click on the felt under a short column
    move = min(
        (game.resolve(move) for move in game.legal_moves()),
        key=lambda move: len(game.column(move.target)),
    )
    count = move.count
    assert count is not None

    def click_at(x: float, y: float) -> None:
        play._mouse("mouseMoved", x, y, buttons=0)
        play._mouse("mousePressed", x, y, buttons=1)
        play._mouse("mouseReleased", x, y, buttons=0)

    await run(lambda: click_at(*play.card_point(move.source + 1, count)))
    await wait_for(lambda: move.target + 1 in play.legal_columns(), 5, "the lit target")
    left, top, width, height = await run(
        lambda: play._rect(f'[data-column="{move.target + 1}"]', 0)
    )
    bottom = await run(lambda: sum(play._rect("[data-board]", 0)[1::2]))
    assert bottom - (top + height) > 40  # the column is short: there is felt under it
    await asyncio.sleep(0.5)  # not a double-click
    await run(lambda: click_at(left + width / 2, (top + height + bottom) / 2))
    game.push(move)
    await play.shows(game, f"the move {move.text()} clicked under its column")
    await play.settled()

    # Esc closes the result, and the keys are at the table again
    await play.click('[data-action="resign"]')
    await play.click('[data-action="resign"]')
    assert await wait_for(play.result, 15, "the result") == "resigned"
    await play.type_keys("\ue00c")
    await wait_for(lambda: not play.find("[data-result-box]").is_displayed(), 5, "closed by Esc")
    focused = await run(lambda: play.driver.switch_to.active_element)
    assert await run(lambda: focused.get_attribute("data-column")) is not None
    # the table says the game is over, and its result opens again from the bar
    assert await run(lambda: play.text("[data-game-over]")) == "Resigned"
    await play.snapshot("play-resigned-1366")
    await play.click('[data-action="show-result"]')
    assert await wait_for(play.result, 5, "the result again") == "resigned"
    assert await run(lambda: play.text("[data-result-title]")) == "You resigned"
    await play.type_keys("\ue00c")
    await wait_for(lambda: not play.find("[data-result-box]").is_displayed(), 5, "closed again")


async def test_on_a_phone_the_daily_result_fits_the_screen(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, _ = served
    await play.viewport(PHONE, touch=True)
    await play.open(f"{server.http_url}/play")
    await play.register(unique_name("fit"))
    # a room of one: "Start the race" is greyed out, and says why
    await play.click('[data-action="race-new"]')
    await wait_for(lambda: play.find('[data-view="room"]').is_displayed(), 10, "the room")
    assert not await run(lambda: play.find('[data-action="race-start"]').is_enabled())
    why = await run(lambda: play.find("[data-race-start-why]"))
    assert await run(why.is_displayed) and "2 racers" in await run(lambda: why.text)
    await play.click('[data-action="race-leave"]')
    await play.start("daily", 1)
    await play.click('[data-action="resign"]')
    await play.click('[data-action="resign"]')
    assert await wait_for(play.result, 15, "the result") == "resigned"
    share = await wait_for(lambda: play.text("[data-result-share]"), 5, "the text to share")
    assert "/day/" in share
    for selector in ("[data-result-card]", '[data-action="copy-share"]', "[data-result-share]"):
        left, _, width, _ = await run(partial(play._rect, selector, 0))
        assert left >= 0 and left + width <= PHONE["width"], (selector, left, width)
    assert await run(play.sideways_overflow) == 0
    await play.snapshot("play-result-phone-390")


def _auto_or_none(game: Game, column: int) -> Move | None:
    try:
        return game.choose_auto_move(column, 1)
    except IllegalMoveError:
        return None


def _moves_then_a_card_to_send(game: Game) -> tuple[list[Move], int]:
    """One legal move (two where no single one will do: a random deal rarely has none), then
    a column whose last card may be sent somewhere by itself."""
    for first in game.legal_moves():
        after = game.copy()
        resolved = after.push(first)
        for column in range(10):
            if _auto_or_none(after, column) is not None:
                return [resolved], column
    for first in game.legal_moves():
        after = game.copy()
        resolved = after.push(first)
        for second in after.legal_moves():
            later = after.copy()
            then = later.push(second)
            for column in range(10):
                if _auto_or_none(later, column) is not None:
                    return [resolved, then], column
    raise AssertionError(f"no move or two of {game.code} is followed by a card to send")


async def test_a_reload_mid_game_takes_the_game_up_again(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, _ = served
    await play.open(f"{server.http_url}/play")
    await play.register(unique_name("rel"))
    code = await play.start("daily", 2)
    game = Game.from_code(code)
    for _ in range(2):
        move = game.resolve(next(game.legal_moves()))
        assert move.count is not None
        await play.drag(move.source + 1, move.count, move.target + 1)
        game.push(move)
        await play.shows(game, f"the move {move.text()}")
    await play.settled()
    await run(play.driver.refresh)
    assert await play.dealt() == code
    await play.shows(game, "the game as it stood")
    assert await run(lambda: play.figure("data-moves")) == 2
    assert not await run(lambda: play.find('[data-view="welcome"]').is_displayed())

    # the account on another device: the token shown once asked for, signed in with
    await play.click('[data-action="account"]')
    assert await run(lambda: play.find("#account-menu").is_displayed())
    await play.type_keys("\ue00c")  # Esc closes the menu
    await wait_for(lambda: not play.find("#account-menu").is_displayed(), 5, "no menu")
    await play.click('[data-action="account"]')
    await play.click('[data-action="device"]')
    token = await wait_for(lambda: play.text("[data-token]"), 5, "the token")
    await play.type_keys("\ue00c")  # and the token's dialog
    await wait_for(lambda: not play.find("[data-token-box]").is_displayed(), 5, "no token")
    focused = await run(lambda: play.driver.switch_to.active_element)
    assert await run(lambda: focused.get_attribute("data-action")) == "account"
    name = await run(lambda: play.text("[data-account] [data-player-name]"))
    origin = server.http_url
    await run(
        lambda: play.driver.execute_cdp_cmd(
            "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"}
        )
    )
    await run(play.driver.refresh)  # a browser that never saw the account
    await wait_for(lambda: play.find('[data-view="welcome"]').is_displayed(), 10, "welcome")
    await play.click('[data-view="welcome"] summary')
    field = await run(lambda: play.find('form[data-form="sign-in"] input[name="token"]'))
    await run(lambda: field.send_keys(token))
    await play.click('form[data-form="sign-in"] button[type="submit"]')
    await wait_for(lambda: play.find('[data-view="lobby"]').is_displayed(), 10, "the lobby")
    assert await run(lambda: play.text("[data-account] [data-player-name]")) == name
    await wait_for(
        lambda: play.text('[data-start="daily"][data-suits="2"] [data-state]') == "Continue",
        10,
        "today's 2-suit deal marked started",
    )


async def test_moves_show_at_once_and_stay_honest_through_latency_and_a_cut(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, prover = served
    async with TcpProxy(server.host, server.port, delay=0.15) as proxy:
        url = f"http://{proxy.host}:{proxy.port}"
        game = await practising(play, url, "lag")
        moves = [Move.from_text(text) for text in prover.solution(DEAL)][:6]

        # optimistic: the table shows the move before the server's answer can be back (the
        # page waits 50 ms for an answer before it draws the move as sent)
        proxy.delay = 1.0
        move = moves[0]
        assert move.count is not None
        await play.drag(move.source + 1, move.count, move.target + 1)
        game.push(move)
        await wait_for(
            lambda: (
                play.columns() == board_of(game)
                and play.find("[data-board]").get_attribute("data-pending") == "1"
            ),
            0.5,
            "the move drawn as sent, its answer still on its way",
        )
        await play.settled()
        proxy.delay = 0.15

        # two moves in quick succession, each shown at once, both settled by the server
        for move in moves[1:3]:
            assert move.count is not None
            await play.drag(move.source + 1, move.count, move.target + 1)
            game.push(move)
        await play.shows(game, "two quick moves")
        await play.settled()

        # the connection is cut while a move is on its way (its request or its answer
        # lost): the page reconnects, resumes, sends it again, and it is played once
        for wait in (0.05, 0.25):
            move = moves[3 if wait < 0.1 else 4]
            assert move.count is not None
            await play.drag(move.source + 1, move.count, move.target + 1)
            game.push(move)
            await asyncio.sleep(wait)
            proxy.cut()
            await asyncio.sleep(0.3)
            proxy.restore()
            await play.settled(timeout=20)
            await play.shows(game, f"the move {move.text()} once")
        assert await run(lambda: play.figure("data-moves")) == 5
        assert await run(lambda: play.figure("data-score")) == 495


async def test_offline_the_table_stays_put_and_the_lobby_refuses_at_once(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, _ = served
    async with TcpProxy(server.host, server.port) as proxy:
        await play.open(f"http://{proxy.host}:{proxy.port}/play")
        await play.register(unique_name("off"))
        practice_error = '.panel:has([data-start="practice"]) [data-error]'
        await play.practice_code("HELLO")
        await wait_for(lambda: "not a game code" in play.text(practice_error), 10, "the refusal")
        await play.practice_code(DEAL)
        assert await play.dealt() == DEAL
        top = await run(lambda: play._rect("[data-board]", 0)[1])

        proxy.cut()
        await wait_for(lambda: "Connection lost" in play.text("[data-connection]"), 10, "the cut")
        # the connection's line shows over the page: the table does not move under the pointer
        assert await run(lambda: play._rect("[data-board]", 0)[1]) == top

        await play.click('[data-action="lobby"]')
        # the bad code's refusal was before the game: it no longer applies
        assert await run(lambda: play.text(practice_error)) == ""
        await play.click('[data-start="practice"][data-suits="2"]')
        refusal = await wait_for(lambda: play.text(practice_error), 5, "the refusal")
        assert "Not connected" in refusal
        proxy.restore()
        await wait_for(lambda: not play.text("[data-connection]"), 20, "the connection back")
        await asyncio.sleep(1.5)
        # the click made offline was refused, not kept to start a game by itself later
        assert await run(lambda: play.find('[data-view="lobby"]').is_displayed())
        assert await run(lambda: play.find('[data-view="game"]').get_attribute("data-code")) == DEAL
        # what the browser said while the server could not be reached, and nothing else
        said = await run(lambda: severe_logs(play.driver))
        assert all("WebSocket" in line for line in said), said


async def test_a_message_of_a_type_the_page_does_not_know_is_logged_not_dropped(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, _ = served
    async with TcpProxy(server.host, server.port) as proxy:
        await play.open(f"http://{proxy.host}:{proxy.port}/play")
        await play.register(unique_name("new"))
        await play.practice_code(DEAL)
        assert await play.dealt() == DEAL
        await asyncio.sleep(0.5)  # nothing on its way from the server
        # a text frame (unmasked, as a server sends) of a type from a newer server
        payload = json.dumps({"type": "from_the_future", "news": 1}).encode()
        proxy.to_clients(bytes([0x81, len(payload)]) + payload)
        seen: list[str] = []

        def warned() -> bool:
            seen.extend(entry["message"] for entry in play.driver.get_log("browser"))
            return any(UNKNOWN_MESSAGE in line and "from_the_future" in line for line in seen)

        await wait_for(warned, 10, "the page's warning")
        # nothing else came of it: the connection stays, the table is still the game's
        assert await run(lambda: play.text("[data-connection]")) == ""
        assert await play.dealt() == DEAL


async def test_a_race_against_a_simon_bot(
    play: PlayPage, served: tuple[RunningServer, SolvingProver], tmp_path: Path
) -> None:
    server, prover = served
    env = {
        **os.environ,
        "SIMON_CONFIG_DIR": str(tmp_path / "bot"),
        "SIMON_SERVER": server.url,
        "PYTHONPATH": str(ROOT),
    }
    bot_name = unique_name("bot")
    registered = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "client_cli.main", "register", bot_name, "--bot"],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert registered.returncode == 0, registered.stderr
    bot = subprocess.Popen(
        [sys.executable, "-m", "client_cli.main", "race", "new", "--suits", "1", "--allow-bots",
         "--start-at", "2", "--solve", "--pace", "0.3", "--json"],
        env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert bot.stdout is not None
        opened = json.loads(await asyncio.to_thread(bot.stdout.readline))
        code = opened["room"]
        assert opened["link"] == f"{server.http_url}/play?race={code}"
        room_page = await page(f"{server.http_url}/race/{code}")
        assert f"/play?race={code}" in room_page.text

        # the link: a new player registers and is in the room
        await play.open(opened["link"])
        await play.register(unique_name("web"), then="room game")
        deal = await play.dealt()  # the bot started it at 2 racers; the countdown ran
        assert await run(lambda: play.find("[data-standings]").is_displayed())
        standings = await run(lambda: play.text("[data-standings-list]"))
        assert bot_name in standings
        game = Game.from_code(deal)
        await play.shows(game, "the race's deal")
        for move in (Move.from_text(text) for text in prover.solution(deal)):
            assert move.count is not None
            await play.drag(move.source + 1, move.count, move.target + 1)
            game.push(move)
            await play.shows(game, f"the race move {move.text()}")
        # the bot's progress beside the board while it plays on
        await wait_for(
            lambda: "won" in play.text("[data-standings-list]").split(bot_name)[1].split("\n")[0],
            90,
            "the bot's finish beside the board",
        )
        result = await wait_for(play.result, 15, "the result")
        assert result in ("won", "race")
        await wait_for(
            lambda: (
                "Race over" in play.text("[data-result-title]")
                or "won the race" in play.text("[data-result-title]")
            ),
            30,
            "the race's end",
        )
        racers = await run(lambda: play.text("[data-result-racers]"))
        assert bot_name in racers
        await wait_for(
            lambda: play.find('[data-action="race-rematch"]').is_displayed(), 5, "rematch"
        )
        await play.snapshot("play-race-over-1280")
        out, err = await asyncio.to_thread(bot.communicate, timeout=120)
        assert bot.returncode == 0, err
        final = json.loads(out.strip().splitlines()[-1])
        assert final["state"] == "over" and len(final["standings"]) == 2
        # a rematch: a new room, with this player in it, waiting for the others
        await play.click('[data-action="race-rematch"]')
        await wait_for(lambda: play.find('[data-view="room"]').is_displayed(), 10, "the rematch")
        rematch = await run(lambda: play.text("[data-room-code]"))
        assert rematch and rematch != code
        assert f"/play?race={rematch}" in await run(lambda: play.text("[data-room-link]"))
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()


async def test_a_phone_plays_by_touch_with_no_sideways_scrolling(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, _ = served
    await play.viewport(PHONE, touch=True)
    await play.open(f"{server.http_url}/play")
    await play.register(unique_name("tap"))
    assert await run(play.sideways_overflow) == 0
    code = await play.start("practice", 1)
    game = Game.from_code(code)
    await play.shows(game, "the deal")
    assert await run(play.sideways_overflow) == 0
    # a move to drag, then a card that can go somewhere by itself (the deal is random)
    moves, column = _moves_then_a_card_to_send(game)
    for move in moves:
        assert move.count is not None
        await play.touch_drag(move.source + 1, move.count, move.target + 1)
        game.push(move)
        await play.shows(game, f"the touched move {move.text()}")
        await play.settled()
    game.auto_move(column, 1)
    await play.double_tap(column + 1, 1)
    await play.shows(game, "the double-tapped move")
    assert await run(play.sideways_overflow) == 0
    await play.snapshot("play-phone-390")


async def test_a_quick_race_then_a_resignation_asked_twice(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, _ = served
    await play.open(f"{server.http_url}/play")
    await play.register(unique_name("qk"))
    await play.click('[data-action="race-quick"]')
    await wait_for(lambda: play.find('[data-view="room"]').is_displayed(), 10, "the room")
    code = await run(lambda: play.text("[data-room-code]"))
    # the room's link: copied (or, where the page may not write the clipboard, selected)
    await play.click('[data-action="copy-link"]')
    said = await wait_for(
        lambda: (text := play.text('[data-action="copy-link"]')) != "Copy" and text, 5, "copied"
    )
    assert said in ("Copied", "Selected: copy it")
    async with Client.connect(server.url) as other:
        await signed_up(other, "qk")
        joined = await room_reply(other, {"type": "race_quick", "suits": 1})
        assert joined["code"] == code  # the open quick room: this one
        # a public room counts down by itself (here 1 s after the second racer, 1 s long)
        await play.dealt()
        assert await run(lambda: play.find("[data-standings]").is_displayed())
        assert await run(lambda: play.text("[data-game-title]")) == f"Race {code} · 1 suit"
        await play.click('[data-action="resign"]')  # asks first
        assert await run(lambda: play.text('[data-action="resign"]')) == "Resign?"
        assert await run(lambda: play.find("[data-board]").get_attribute("data-pending")) == "0"
        assert not await run(lambda: play.find("[data-result-box]").is_displayed())
        await play.click('[data-action="resign"]')
        result = await wait_for(play.result, 15, "the result")
        assert result == "resigned"
        assert "The others are still racing" in await run(lambda: play.text("[data-result-line]"))
        # the result takes the focus, as after a win: Enter goes back to the deals
        focused = await run(lambda: play.driver.switch_to.active_element)
        assert await run(lambda: focused.get_attribute("data-action")) == "lobby"
        await play.snapshot("play-quick-race-resigned-1280")
        await other.send({"type": "resign"})
        heading = await wait_for(
            lambda: (text := play.text("[data-result-title]")).startswith("Race over") and text,
            15,
            "the race's end",
        )
        places = ("Race over: you finished in place 1", "Race over: you finished in place 2")
        assert heading in places, heading
