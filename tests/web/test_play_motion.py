"""The play page's motion and marks in a real headless Chromium, played with real input
(DevTools mouse and touch events, WebDriver clicks and keys): every move glides, whatever
made it (a drag, a double-click, the keys, undo, restart), none with reduced motion; a group
let go below the table goes back and sends nothing; a pointer's refusal says the rule in
words, the keys' repeats what was typed; the columns a held group may go to are lit
unmistakably in light and dark; the keys' focus ring never shows after a click or a race's
link; and no long task while cards glide.

The page is only read: ``document.getAnimations()`` is sampled each frame by an observer
installed for the test (it records, it acts on nothing), long tasks by a
``PerformanceObserver``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest

from server.engine import Game, IllegalMoveError, Move
from server.net import RunningServer
from tests.support.play import DESKTOP, PHONE, PlayPage, SolvingProver, board_of
from tests.support.rooms import room_reply, signed_up
from tests.support.servers import Client, unique_name
from tests.support.web import chromium, run, wait_for
from tests.web.test_play_browser import DEAL, first_illegal, key_of, play, practising, served

__all__ = ["chromium", "play", "served"]  # the fixtures, used by name (a server a module)

#: A glide's length (motion.js's GLIDE) must read as motion, not as a wait.
SHORTEST, LONGEST = 150, 250

#: Records every animation the page starts (its target card and length) and every long
#: task, read back by :data:`_RECORDED`; observation only.
_WATCH = """
window.__seen = new WeakSet();
window.__glides = [];
window.__long = [];
const look = () => {
  for (const animation of document.getAnimations()) {
    if (window.__seen.has(animation)) continue;
    window.__seen.add(animation);
    const target = animation.effect && animation.effect.target;
    const timing = animation.effect ? animation.effect.getTiming() : {};
    window.__glides.push({
      id: animation.id,
      card: target && target.dataset ? target.dataset.card || null : null,
      column: target && target.parentElement && target.parentElement.dataset
        ? target.parentElement.dataset.column || null : null,
      layer: target ? target.className : "",
      duration: timing.duration,
      at: performance.now(),
    });
  }
  requestAnimationFrame(look);
};
requestAnimationFrame(look);
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) window.__long.push([entry.startTime, entry.duration]);
}).observe({ type: "longtask", buffered: true });
"""
_RECORDED = "const g = window.__glides; window.__glides = []; return g;"


async def media(play: PlayPage, **features: str) -> None:
    """Emulate media features (``prefers_reduced_motion="reduce"``); none: the browser's."""
    listed = [{"name": name.replace("_", "-"), "value": value} for name, value in features.items()]
    await run(
        lambda: play.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": listed})
    )


async def watch(play: PlayPage) -> None:
    await run(lambda: play.driver.execute_script(_WATCH))


async def glides(play: PlayPage, settle: float = 0.6) -> list[dict[str, Any]]:
    """The animations started since the last look (after ``settle`` seconds)."""
    await asyncio.sleep(settle)
    return list(await run(lambda: play.driver.execute_script(_RECORDED)))


def cards_glided(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [g for g in found if g["id"] == "glide" and g["card"]]


def assert_glide_lengths(found: list[dict[str, Any]]) -> None:
    assert found, "no card glided"
    for glide in found:
        assert SHORTEST <= glide["duration"] <= LONGEST, glide


async def test_every_move_glides_whatever_made_it_and_none_with_reduced_motion(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, prover = served
    game = await practising(play, server.http_url, "glide")
    await watch(play)
    moves = [Move.from_text(text) for text in prover.solution(DEAL)]

    # a drag: the dragged card glides from where the hand let it go onto its column
    first = moves[0]
    assert first.count is not None
    moved_card = board_of(game)[first.source][-1]
    await play.drag(first.source + 1, first.count, first.target + 1)
    game.push(first)
    await play.shows(game, "the dragged move")
    found = cards_glided(await glides(play))
    assert_glide_lengths(found)
    assert {"card": moved_card, "column": str(first.target + 1)}.items() <= found[-1].items()
    await play.settled()

    # a double-click: the card goes to its best place, gliding there
    column = next(c for c in range(10) if _auto_or_none(game, c) is not None)
    best = game.choose_auto_move(column, 1)
    game.push(best)
    await play.double_click(column + 1, 1)
    await play.shows(game, "the double-clicked move")
    found = cards_glided(await glides(play))
    assert_glide_lengths(found)
    assert any(g["column"] == str(best.target + 1) for g in found), found
    await play.settled()

    # a move typed with the keys
    typed = game.resolve(next(game.legal_moves()))
    await play.type_keys(key_of(typed.source), key_of(typed.target))
    game.push(typed)
    await play.shows(game, f"the typed move {typed.text()}")
    found = cards_glided(await glides(play))
    assert_glide_lengths(found)
    assert any(g["column"] == str(typed.target + 1) for g in found), found
    await play.settled()

    # undo: the card glides back to the column it came from
    game.undo()
    await play.click('[data-action="undo"]')
    await play.shows(game, "the move undone")
    found = cards_glided(await glides(play))
    assert_glide_lengths(found)
    assert any(g["column"] == str(typed.source + 1) for g in found), found
    await play.settled()

    # restart (asked twice): the cards glide back to the deal, with no long task
    await run(lambda: play.driver.execute_script("window.__long = [];"))
    await play.click('[data-action="restart"]')
    await play.click('[data-action="restart"]')
    game = Game.from_code(DEAL)
    await play.shows(game, "the deal again")
    found = cards_glided(await glides(play))
    assert_glide_lengths(found)
    assert await run(lambda: play.driver.execute_script("return window.__long;")) == []
    await play.settled()

    # with reduced motion asked for, a drag and an undo move nothing on their way
    await media(play, prefers_reduced_motion="reduce")
    await play.drag(first.source + 1, first.count, first.target + 1)
    game.push(first)
    await play.shows(game, "the dragged move, reduced")
    await play.settled()
    game.undo()
    await play.click('[data-action="undo"]')
    await play.shows(game, "the undo, reduced")
    assert await glides(play) == []


def _auto_or_none(game: Game, column: int) -> Move | None:
    try:
        return game.choose_auto_move(column, 1)
    except IllegalMoveError:
        return None


async def test_a_group_let_go_off_the_table_glides_back_and_sends_nothing(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, _ = served
    game = await practising(play, server.http_url, "below")
    await watch(play)
    move = game.resolve(next(game.legal_moves()))
    assert move.count is not None
    card = board_of(game)[move.source][-1]

    def let_go_off_the_table() -> None:
        x0, y0 = play.card_point(move.source + 1, move.count or 1)
        x1, _ = play.column_point(move.target + 1)  # a column that takes it
        _, top, _, height = play._rect("[data-board]", 0)
        # the felt fills the window to its foot (fit.js): off the table is above it, on the
        # bar, or past its foot where a screen has room below
        y1 = top + height + 90 if top + height + 90 < DESKTOP["height"] - 5 else top - 60
        assert 5 < y1 < DESKTOP["height"] - 5
        play._drag((x0, y0), (x1, y1), 8)

    await run(let_go_off_the_table)
    found = cards_glided(await glides(play, 1.0))
    assert_glide_lengths(found)
    assert {"card": card, "column": str(move.source + 1)}.items() <= found[-1].items()
    # nothing sent: no move on its way, none counted, no refusal
    assert await run(lambda: play.find("[data-board]").get_attribute("data-pending")) == "0"
    assert await run(lambda: play.figure("data-moves")) == 0
    assert await run(lambda: play.text('[role="alert"]')) == ""
    assert await run(play.columns) == board_of(game)
    # and the server has no move either: the same group still goes where it went
    await play.drag(move.source + 1, move.count, move.target + 1)
    game.push(move)
    await play.shows(game, "the move made after")
    await play.settled()
    assert await run(lambda: play.figure("data-moves")) == 1


async def test_a_pointer_refusal_says_the_rule_and_a_typed_one_what_was_typed(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, _ = served
    game = await practising(play, server.http_url, "rule")
    await watch(play)
    source, count, target, sentence = first_illegal(game)
    card = board_of(game)[source - 1][-count]
    await play.drag(source, count, target)
    alert = await wait_for(lambda: play.text('[role="alert"]'), 10, "the rule")
    assert alert == sentence  # the rule alone: no mark, no notation
    found = cards_glided(await glides(play))
    assert_glide_lengths(found)
    assert any(g["card"] == card and g["column"] == str(source) for g in found), found
    await play.settled()
    assert await run(play.columns) == board_of(game)

    with pytest.raises(IllegalMoveError) as refused:
        game.resolve(Move.from_text(f"{source}-{target}"))
    await play.type_keys(key_of(source - 1), key_of(target - 1))
    await wait_for(lambda: play.text('[role="alert"]') != sentence, 10, "a new refusal")
    alert = await wait_for(lambda: play.text('[role="alert"]'), 10, "the typed rule")
    assert alert == f"✗ {source}-{target}: {refused.value.message}"


_STYLE = """
const [legal, plain] = [arguments[0], arguments[1]].map((column) => {
  const style = getComputedStyle(column);
  const marker = getComputedStyle(column, '::after');
  return {
    background: style.backgroundColor, outline: parseFloat(style.outlineWidth),
    outlineStyle: style.outlineStyle, marker: marker.content,
  };
});
return {legal, plain};
"""


def _alpha(colour: str) -> float:
    """The opacity of a computed colour (``rgba(0, 0, 0, 0)``: 0; ``rgb(...)``: 1)."""
    if colour.startswith("rgba("):
        return float(colour.rstrip(")").split(",")[-1])
    return 1.0 if colour.startswith("rgb(") else 0.0


async def _hold_touch(play: PlayPage, source: int, count: int, target: int) -> None:
    """A finger pressed on a group and moved onto column ``target``, not lifted."""

    def go() -> None:
        (x0, y0), (x1, y1) = play.card_point(source, count), play.column_point(target)
        play._touch("touchStart", [(x0, y0)])
        for step in range(1, 9):
            play._touch("touchMove", [(x0 + (x1 - x0) * step / 8, y0 + (y1 - y0) * step / 8)])

    await run(go)


@pytest.mark.parametrize("scheme", ["light", "dark"])
async def test_the_columns_a_held_group_may_go_to_are_lit_unmistakably(
    play: PlayPage, served: tuple[RunningServer, SolvingProver], scheme: str
) -> None:
    server, prover = served
    await media(play, prefers_color_scheme=scheme)
    game = await practising(play, server.http_url, f"lit{scheme[0]}")
    # four-colour suits, as a player may have them
    await play.click('[data-action="account"]')
    await wait_for(lambda: play.find('[data-action="settings"]').is_displayed(), 5, "the menu")
    await play.click('[data-action="settings"]')
    await wait_for(lambda: play.find("[data-settings-box]").is_displayed(), 5, "the settings")
    await play.click('[data-setting="four_colour"]')
    await play.click('[data-action="close-settings"]')
    assert await run(lambda: "four-colour" in play.find("body").get_attribute("class"))
    move = Move.from_text(prover.solution(DEAL)[0])
    assert move.count is not None
    legal = [t + 1 for t in game.targets(move.source, move.count)]
    plain = next(c for c in range(1, 11) if c not in legal and c != move.source + 1)

    await play.press_and_hold(move.source + 1, move.count, move.target + 1)
    assert await run(play.legal_columns) == legal
    styles = await run(
        lambda: play.driver.execute_script(
            _STYLE,
            play.find(f'[data-column="{legal[0]}"]'),
            play.find(f'[data-column="{plain}"]'),
        )
    )
    lit, normal = styles["legal"], styles["plain"]
    # a lit wash over the column (none on a plain one), a thick outline, and a marker: not
    # a change of hue alone
    assert _alpha(normal["background"]) == 0, normal
    assert _alpha(lit["background"]) >= 0.3, lit
    assert lit["outline"] >= 3 and lit["outlineStyle"] == "solid", lit
    assert normal["outline"] == 0 or normal["outlineStyle"] == "none", normal
    assert lit["marker"] not in ("none", "normal", ""), lit
    assert normal["marker"] in ("none", "normal"), normal
    await move_over(play, move.target + 1)
    await play.snapshot(f"play-legal-{scheme}-1280")
    await play.release_on(move.target + 1)
    game.push(move)
    await play.shows(game, "the move")
    await play.settled()

    # on a phone, by touch (drawn at one pixel a pixel: headless Chromium's screenshot puts
    # a fixed layer, the held group, off its place at 3)
    await play.viewport({**PHONE, "deviceScaleFactor": 1}, touch=True)
    await play.open(f"{server.http_url}/play")
    await play.dealt()
    await play.shows(game, "the game on the phone")
    second = Move.from_text(prover.solution(DEAL)[1])
    assert second.count is not None
    await _hold_touch(play, second.source + 1, second.count, second.target + 1)
    assert second.target + 1 in await run(play.legal_columns)
    await play.snapshot(f"play-legal-{scheme}-390")
    await run(lambda: play._touch("touchEnd", []))
    game.push(second)
    await play.shows(game, "the touched move")
    await play.settled()


async def move_over(play: PlayPage, column: int) -> None:
    """The held group moved onto ``column`` (the mouse still pressed)."""

    def go() -> None:
        x, y = play.column_point(column)
        play._mouse("mouseMoved", x, y, buttons=1)

    await run(go)
    await asyncio.sleep(0.1)


_RING = """
const column = document.activeElement;
if (!column || !column.dataset || !column.dataset.column) return null;
const style = getComputedStyle(column);
return style.outlineStyle === 'none' ? 0 : parseFloat(style.outlineWidth);
"""


async def ring(play: PlayPage) -> float | None:
    """The focus ring's width on the focused column (0: none; None: no column focused)."""
    return await run(lambda: play.driver.execute_script(_RING))


async def test_the_focus_ring_is_the_keys_alone(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, _ = served
    # a deal started with a click: the keys may go on at the table, but no ring shows
    await play.open(f"{server.http_url}/play")
    await play.register(unique_name("ring"))
    field = await run(lambda: play.find('form[data-form="practice-code"] input[name="code"]'))
    await run(lambda: field.send_keys(DEAL))
    await play.click('form[data-form="practice-code"] button[type="submit"]')
    await play.dealt()
    game = Game.from_code(DEAL)
    await play.shows(game, "the deal")
    assert await ring(play) == 0
    # an arrow key: the ring shows where the keys are
    await play.type_keys("\ue014")  # ArrowRight
    assert (await ring(play) or 0) >= 2
    # a drag: gone again
    move = game.resolve(next(game.legal_moves()))
    assert move.count is not None
    await play.drag(move.source + 1, move.count, move.target + 1)
    game.push(move)
    await play.shows(game, "the dragged move")
    assert await ring(play) == 0


async def test_no_focus_ring_in_a_race_started_from_its_link(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, _ = served
    async with Client.connect(server.url) as owner:
        await signed_up(owner, "own")
        room = await room_reply(owner, {"type": "race_new", "suits": 1})
        code = room["code"]
        await play.open(f"{server.http_url}/play?race={code}")
        # signed up with the keys (the name, then Enter): the race's deal comes by itself
        await wait_for(
            lambda: play.find('form[data-form="register"]').is_displayed(), 10, "the form"
        )
        field = await run(lambda: play.find('form[data-form="register"] input[name="name"]'))
        await run(lambda: field.send_keys(unique_name("link") + "\n"))
        await wait_for(lambda: play.find('[data-view="room"]').is_displayed(), 10, "the room")
        await wait_for(
            lambda: len(play.driver.find_elements("css selector", "[data-room-racers] li")) == 2,
            10,
            "two racers",
        )
        started = await owner.request({"type": "race_start", "code": code})
        assert started["type"] == "race_room", started
        deal = await play.dealt()
        game = Game.from_code(deal)
        await play.shows(game, "the race's deal")
        assert await ring(play) in (0, None)
        move = game.resolve(next(game.legal_moves()))
        assert move.count is not None
        await play.drag(move.source + 1, move.count, move.target + 1)
        game.push(move)
        await play.shows(game, "the race's first move")
        assert await ring(play) in (0, None)
        await owner.send({"type": "resign"})


async def drag_to_a_run(
    play: PlayPage,
    game: Game,
    moves: Iterator[str],
    between: Callable[[], Awaitable[object]] | None = None,
) -> None:
    """Drag ``moves`` (the solver's, as text) until one removes a run (``between``: after
    each move shown before it)."""
    for move in map(Move.from_text, moves):
        assert move.count is not None
        await play.drag(move.source + 1, move.count, move.target + 1)
        game.push(move)
        if game.removed_count:
            return
        await play.shows(game, f"the move {move.text()}")
        if between is not None:
            await between()
    raise AssertionError("no run removed")


async def test_a_removed_run_lands_then_sweeps_off_as_one(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    server, prover = served
    game = await practising(play, server.http_url, "sweep")
    await watch(play)
    await drag_to_a_run(play, game, iter(prover.solution(DEAL)), lambda: glides(play, 0))
    found = await glides(play, 0.3)
    sweeps = [g for g in found if g["id"] == "sweep"]
    assert len(sweeps) == 1, found  # one layer, the whole run in it
    assert "leaving-layer" in sweeps[0]["layer"]
    copies = await run(
        lambda: play.driver.execute_script(
            "return Array.from(document.querySelectorAll('.leaving-layer'),"
            " (layer) => layer.children.length)"
        )
    )
    assert copies == [13]
    await play.shows(game, "the run gone")
    await asyncio.sleep(1.0)
    assert await run(lambda: play.driver.execute_script(
        "return document.querySelectorAll('.leaving-layer').length"
    )) == 0  # fmt: skip


#: The run's flourishes still playing: its sweep and the runs count's pulse (observation only).
_FLOURISHING = """
return document.getAnimations()
  .filter((a) => a.playState === 'running')
  .map((a) => a.id === 'sweep' ? 'sweep'
    : a.effect.target.querySelector('[data-removed]') ? 'pulse' : '')
  .filter(Boolean).sort();
"""


async def test_a_press_ends_the_last_runs_flourishes(
    play: PlayPage, served: tuple[RunningServer, SolvingProver]
) -> None:
    # they tick on the main thread here: left running, a frame they ask for holds the answer
    # to the drop that follows (docs/web.md)
    server, prover = served
    game = await practising(play, server.http_url, "settle")
    moves = iter(prover.solution(DEAL))
    await drag_to_a_run(play, game, moves)
    await play.shows(game, "the run gone")
    assert await run(lambda: play.driver.execute_script(_FLOURISHING)) == ["pulse", "sweep"]
    following = Move.from_text(next(moves))
    assert following.count is not None
    await play.press_and_hold(following.source + 1, following.count, following.target + 1)
    assert await run(lambda: play.driver.execute_script(_FLOURISHING)) == []
    assert await run(lambda: play.driver.execute_script(
        "return document.querySelectorAll('.leaving-layer').length"
    )) == 0  # fmt: skip
    await play.release_on(following.target + 1)
    game.push(following)
    await play.shows(game, "the move after the run")
