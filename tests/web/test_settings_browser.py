"""The play page's settings (the four-colour pack, auto placement, sound, the cards' size)
and a win worth having, in a real headless Chromium with real input (DevTools mouse
events, WebDriver clicks and keys; the page is only read, never called into): the settings
stay across a reload and, kept on the account, reach a browser with nothing stored that
signs in with the token; auto placement sends a group dropped on a column that does not
take it to its best place (off: the drop is refused); a win is celebrated (Web Animations,
none with reduced motion), then the result shows its rank, par and days in a row; no
AudioContext is made until sound is turned on.

Screenshots of the settings and of a win at 1280x800 and 390x844 go to artifacts/web/.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.engine import Game, IllegalMoveError, Move
from server.net import RunningServer
from server.play.fairplay.evidence import Thresholds
from tests.support.play import DESKTOP, PHONE, PlayPage, SolvingProver, board_of, shown
from tests.support.servers import Client, fresh_clock, server_settings, serving, unique_name
from tests.support.web import chromium, embedded_backend, run, wait_for
from tests.web.test_play_browser import play

__all__ = ["chromium", "play"]  # the fixtures, used by name (`play` on this module's server)

#: A 1-suit practice deal (winnable).
DEAL = "SS1-S1-AAAAABD"
#: Results played at a test's speed are not held for review here: the result has a rank.
TRUSTING = Thresholds(
    new_account_days=0, max_agreement=2.0, min_decisions=10**9, max_suspicion=float("inf")
)
SETTINGS = ("four_colour", "auto_place", "sound")

_CELEBRATING = """
return document.getAnimations().filter((animation) => animation.id === "celebrate").length;
"""


@pytest.fixture(scope="module")
async def served(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[tuple[RunningServer, SolvingProver]]:
    prover = SolvingProver()
    settings = server_settings(
        embedded_backend(tmp_path_factory.mktemp("settings")), fairplay=TRUSTING
    )
    async with serving(settings, clock=fresh_clock(), prover=prover) as server:
        yield server, prover


async def clear_storage(driver: Any, origin: str) -> None:
    await run(
        lambda: driver.execute_cdp_cmd(
            "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"}
        )
    )


# -- reading the page ---------------------------------------------------------------------


def chosen(play: PlayPage) -> dict[str, Any]:
    """The settings as the dialog's controls show them."""
    found: dict[str, Any] = {
        name: play.find(f'[data-setting="{name}"]').is_selected() for name in SETTINGS
    }
    found["card_size"] = play.find('[data-setting="card_size"]:checked').get_attribute("value")
    return found


def body_classes(play: PlayPage) -> set[str]:
    return set((play.find("body").get_attribute("class") or "").split())


async def open_settings(play: PlayPage) -> None:
    await play.click('[data-action="account"]')
    await wait_for(lambda: shown(play, '[data-action="settings"]'), 5, "the account menu")
    await play.click('[data-action="settings"]')
    await wait_for(lambda: shown(play, "[data-settings-box]"), 5, "the settings")


async def close_settings(play: PlayPage) -> None:
    await play.click('[data-action="close-settings"]')
    await wait_for(lambda: not shown(play, "[data-settings-box]"), 5, "the settings closed")


async def token_of(play: PlayPage) -> str:
    """The account's token, as "Use on another device" shows it."""
    await play.click('[data-action="account"]')
    await play.click('[data-action="device"]')
    token = await wait_for(lambda: play.text("[data-token]"), 5, "the token")
    await play.click('[data-action="close-token"]')
    return str(token)


# -- the settings ---------------------------------------------------------------------------


async def test_settings_stay_across_a_reload_and_reach_another_browser_by_the_account(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, _ = served
    await play.open(f"{server.http_url}/play")
    await play.register(unique_name("set"))
    await open_settings(play)
    # every control is named by its label, and the dialog by its heading
    unlabelled = await run(
        lambda: play.driver.execute_script(
            "return Array.from(document.querySelectorAll('[data-setting]'))"
            ".filter((input) => !input.labels.length || !input.labels[0].textContent.trim())"
            ".length"
        )
    )
    assert unlabelled == 0
    title = await run(
        lambda: play.find("[data-settings-box] [role=dialog]").get_attribute("aria-labelledby")
    )
    assert await run(lambda: play.text(f"#{title}")) == "Settings"
    assert await run(lambda: chosen(play)) == {
        "four_colour": False,
        "auto_place": False,
        "sound": False,
        "card_size": "normal",
    }
    for name in ("four_colour", "auto_place"):
        await play.click(f'[data-setting="{name}"]')
    await play.click('[data-setting="card_size"][value="large"]')
    wanted = {"four_colour": True, "auto_place": True, "sound": False, "card_size": "large"}
    assert await run(lambda: chosen(play)) == wanted
    assert {"four-colour", "large-cards"} <= await run(lambda: body_classes(play))
    shot = await play.snapshot("settings-1280")
    assert shot.stat().st_size > 0
    await play.viewport(PHONE)
    await play.snapshot("settings-390")
    assert await run(play.sideways_overflow) == 0
    await play.viewport(DESKTOP)
    await close_settings(play)

    # a reload: kept in the browser
    await play.open(f"{server.http_url}/play")
    await wait_for(lambda: shown(play, '[data-view="lobby"]'), 10, "the lobby again")
    assert {"four-colour", "large-cards"} <= await run(lambda: body_classes(play))
    await open_settings(play)
    assert await run(lambda: chosen(play)) == wanted
    await close_settings(play)
    # large cards: a larger rank and suit (normal cards' is 20 px at most), and a phone's
    # table still fits its width
    assert await play.practice(DEAL) == DEAL
    await play.shows(Game.from_code(DEAL), "the deal in large cards")
    size = await run(lambda: play.find("[data-card]").value_of_css_property("font-size"))
    assert float(size.removesuffix("px")) > 20, size
    await play.viewport(PHONE)
    await wait_for(lambda: play.sideways_overflow() == 0, 5, "no sideways scrolling")
    await play.snapshot("settings-large-cards-390")
    await play.viewport(DESKTOP)
    await play.click('[data-action="lobby"]')

    # kept on the account: the server has them
    token = await token_of(play)

    async def on_the_account() -> dict[str, Any]:
        async with Client.connect(server.url) as client:
            signed = await client.request({"type": "auth", "token": token})
            return dict(signed["player"].get("settings") or {})

    kept = {"four_colour": True, "auto_place": True, "card_size": "large"}
    deadline = time.monotonic() + 5
    while await on_the_account() != kept:
        assert time.monotonic() < deadline, await on_the_account()
        await asyncio.sleep(0.1)

    # another browser: nothing stored, then signed in with the token
    await clear_storage(play.driver, server.http_url)
    await play.open(f"{server.http_url}/play")
    await wait_for(lambda: shown(play, 'form[data-form="register"]'), 10, "the welcome")
    assert "four-colour" not in await run(lambda: body_classes(play))
    await play.click("details.panel summary")
    field = await run(lambda: play.find('form[data-form="sign-in"] input[name="token"]'))
    await run(lambda: field.send_keys(token))
    await play.click('form[data-form="sign-in"] button[type="submit"]')
    await wait_for(lambda: shown(play, '[data-view="lobby"]'), 10, "the lobby, signed in")
    await wait_for(
        lambda: {"four-colour", "large-cards"} <= body_classes(play), 5, "the account's settings"
    )
    await open_settings(play)
    assert await run(lambda: chosen(play)) == wanted
    await close_settings(play)


async def test_sound_is_off_until_turned_on_and_no_audio_context_is_made_before(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, _ = served
    await play.open(f"{server.http_url}/play")
    await play.register(unique_name("snd"))
    assert await play.practice(DEAL) == DEAL
    game = Game.from_code(DEAL)
    await play.shows(game, "the deal")
    move = game.resolve(next(game.legal_moves()))
    assert move.count is not None
    await play.drag(move.source + 1, move.count, move.target + 1)  # a pick-up and a drop
    game.push(move)
    await play.shows(game, "the first move")
    assert await run(lambda: play.find("body").get_attribute("data-audio")) is None
    await open_settings(play)
    await play.click('[data-setting="sound"]')
    await wait_for(
        lambda: play.find("body").get_attribute("data-audio") == "on", 5, "the AudioContext"
    )
    await close_settings(play)


# -- auto placement -------------------------------------------------------------------------


def illegal_with_a_best_place(game: Game) -> tuple[int, int, int, Move]:
    """A group, a column that does not take it, and the move the double-click would make."""
    for source in range(10):
        count = game.movable_count(source)
        if not count:
            continue
        try:
            best = game.choose_auto_move(source, count)
        except IllegalMoveError:
            continue
        for target in range(10):
            if target in (source, best.target) or not game.column(target):
                continue
            try:
                game.resolve(Move(source, target, count))
            except IllegalMoveError:
                return source + 1, count, target + 1, best
    raise AssertionError("no such drag on this deal")


async def test_auto_placement_sends_a_group_dropped_on_a_wrong_column_to_its_best_place(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, _ = served
    await play.open(f"{server.http_url}/play")
    await play.register(unique_name("auto"))
    assert await play.practice(DEAL) == DEAL
    game = Game.from_code(DEAL)
    await play.shows(game, "the deal")
    source, count, target, best = illegal_with_a_best_place(game)

    # off (the default): the drop is refused with its rule, and nothing moves
    await play.drag(source, count, target)
    alert = await wait_for(lambda: play.text('[role="alert"]'), 10, "the rule")
    refused = Game.from_code(DEAL)
    try:
        refused.resolve(Move(source - 1, target - 1, count))
    except IllegalMoveError as error:
        assert alert == error.rule.sentence  # a pointer's refusal: the rule in words alone
    else:
        raise AssertionError("the drop was legal")
    await play.settled()
    assert await run(play.columns) == board_of(game)
    assert await run(lambda: play.figure("data-moves")) == 0

    # on: the same drop plays the double-click's move
    await open_settings(play)
    await play.click('[data-setting="auto_place"]')
    await close_settings(play)
    await play.drag(source, count, target)
    game.push(best)
    await play.shows(game, f"the best move {best.text()}")
    await play.settled()
    assert await run(lambda: play.figure("data-moves")) == 1
    assert await run(lambda: play.text("[data-refusal]")) == ""


# -- a win ----------------------------------------------------------------------------------


async def one_move_from_the_win(
    play: PlayPage, served: tuple[RunningServer, SolvingProver], prefix: str
) -> tuple[Game, Move]:
    """A new player's daily, played over the websocket up to its last move (as from another
    device), then taken up again on the page: the game as the engine has it, and the move
    that wins."""
    server, prover = served
    await play.open(f"{server.http_url}/play")
    await play.register(unique_name(prefix))
    code = await play.start("daily", 1)
    game_id = await run(lambda: play.driver.execute_script("return localStorage['simon.game']"))
    token = await token_of(play)
    await play.open(f"{server.http_url}/healthz")  # the page is gone while the other plays
    moves = [Move.from_text(text) for text in prover.solution(code)]
    game = Game.from_code(code)
    async with Client.connect(server.url) as client:
        await client.request({"type": "auth", "token": token})
        resumed = await client.request({"type": "resume", "game": game_id})
        assert resumed["type"] == "state", resumed
        for move in moves[:-1]:
            reply = await client.request({"type": "move", "move": move.text()})
            assert reply["type"] == "moved", reply
            game.push(move)
    await play.open(f"{server.http_url}/play")
    await play.shows(game, "the game one move from the win")
    return game, moves[-1]


async def test_a_win_is_celebrated_then_the_result_shows_rank_par_and_streak(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    await win_and_watch(play, served, "1280")


async def test_a_win_on_a_phone_is_celebrated_too(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    await play.viewport(PHONE)
    await win_and_watch(play, served, "390")
    assert await run(play.sideways_overflow) == 0


async def win_and_watch(
    play: PlayPage, served: tuple[RunningServer, SolvingProver], width: str
) -> None:
    game, last = await one_move_from_the_win(play, served, "win")
    assert last.count is not None
    await play.drag(last.source + 1, last.count, last.target + 1)
    started = time.monotonic()
    await wait_for(lambda: play.driver.execute_script(_CELEBRATING) > 0, 5, "the celebration")
    assert await run(lambda: shown(play, "[data-celebration]"))
    assert await run(play.result) is None  # the result waits for it
    await asyncio.sleep(0.3)
    await play.snapshot(f"win-celebration-{width}")
    result = await wait_for(play.result, 10, "the result")
    assert result == "won"
    assert time.monotonic() - started < 3
    assert await run(lambda: play.driver.execute_script(_CELEBRATING)) == 0
    assert not await run(lambda: play.driver.find_elements("css selector", "[data-celebration]"))
    rank = await run(lambda: play.text('[data-figure="rank"]'))
    assert rank.startswith("Rank\n") or rank.startswith("Rank ")
    assert any(character.isdigit() for character in rank)
    par = await run(lambda: play.text('[data-figure="par"]'))
    assert "Par" in par and "shown once the day is over" in par  # today's par is for tomorrow
    streak = await run(lambda: play.text('[data-figure="streak"]'))
    assert "Days in a row" in streak and "best 1" in streak
    assert await run(lambda: play.text("[data-result-share]"))
    await play.snapshot(f"win-result-{width}")
    # sound was never turned on: no AudioContext
    assert await run(lambda: play.find("body").get_attribute("data-audio")) is None
    game.push(last)
    assert game.is_won


async def test_with_reduced_motion_a_win_shows_its_result_with_no_celebration(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    await run(
        lambda: play.driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia",
            {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]},
        )
    )
    _, last = await one_move_from_the_win(play, served, "calm")
    assert last.count is not None
    await play.drag(last.source + 1, last.count, last.target + 1)
    seen = 0
    deadline = time.monotonic() + 5
    while (found := await run(play.result)) is None and time.monotonic() < deadline:
        seen += await run(lambda: play.driver.execute_script(_CELEBRATING))
        seen += len(
            await run(lambda: play.driver.find_elements("css selector", "[data-celebration]"))
        )
        await asyncio.sleep(0.02)
    assert found == "won"
    assert seen == 0
    assert "Rank" in await run(lambda: play.text('[data-figure="rank"]'))
