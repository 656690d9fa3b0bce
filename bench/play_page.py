"""The play page's budgets, measured in Debian's Chromium against a server process::

    python -m bench.play_page [--games 4] [--moves N] [--drag-seconds 2]

Starts ``python -m server.main`` on a free port (the embedded SQLite database in a
temporary folder; ``tests.support.servers.server_process``), then measures, with real
input from Chromium's DevTools protocol:

- **first load**: the bytes a first visit to ``/play`` transfers (page, stylesheets,
  scripts: the Resource Timing API's ``transferSize``, headers included, gzip as sent),
  with the browser's cache off;
- **first load in each language**: the same in English, Polish and Russian (``?lang=``),
  and the bytes of the page's catalog of words (``play/i18n/LANG.json``) in each;
- **repeat load**: a later visit with the caches on: the static files the page used, and
  those that went to the network (a revalidation is one);
- **interactive**: from the start of navigation to the page's first view shown with its
  handlers attached (the page's ``simon:ready`` mark), for a first visit and for a
  returning player whose game is taken up again (the table shown), median of ``--loads``;
- **drag**: a card dragged in a circle for ``--drag-seconds`` with a pointer event every
  16 ms; from the DevTools timeline trace, the main thread's tasks longer than 50 ms and
  the frames drawn, and the gaps between them; the same while a move's cards glide (from
  the drop, for 0.35 s: ``glide``) and while a restart's do (``restart_glide``);
- **round trip**: the moves of ``--games`` won 1-suit deals (the first ``--moves`` of each,
  if given; all of them ``--trip-rounds`` times) played by drag and drop (four pointer
  moves ``--hand-ms`` apart and that long before the release: 16, a person's pace, unless
  told; 0, the whole drag at once, let go in mid-motion), each from its send
  to its ``moved`` read, before it is drawn (the page's ``simon:move`` measures; its drawing
  is what the frames above measure), interleaved with the same moves
  sent by ``simon``'s websocket client (``client_cli.connection.Connection``, on a game of
  its own of the same deal, timed from its send to its ``moved`` read) on the same server:
  each page move, then the same move from ``simon``; then the same moves from a bare
  websocket of the page's origin (nothing drawn, no input). p50 and p99 of each, and the
  difference of the p99s. Then the same, interleaved again, in a Chromium whose scheduler
  does not hold the page's tasks for the frame after an input
  (``--disable-features=DeferRendererTasksAfterInput``); and pings both ways. These tell
  the browser's connection and its scheduling apart from the page's own work.

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import os
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from client_cli.connection import Connection
from server.engine import Game, Move
from server.i18n.languages import LANGUAGES
from server.protocol import Moved, MoveRequest, Register, Registered, Start, State
from server.solver import solve
from tests.support.servers import server_process
from tests.support.web import embedded_backend

#: Deals whose solutions are replayed (1 suit: the solver wins them in milliseconds).
DEALS = ["SS1-S1-AAAAABD", "SS1-S1-QWERTYU", "SS1-S1-BCDEFGH", "SS1-S1-ZYXWVUT"]
LONG_TASK_MS = 50.0
#: Chromium's scheduler holds a page's tasks (a websocket's message among them) after a
#: discrete input until the frame that follows it is drawn; this turns that off.
NO_DEFERRAL = "--disable-features=DeferRendererTasksAfterInput"


def browser(*flags: str) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("SIMON_CHROMIUM", "/usr/bin/chromium")
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-extensions",
        "--no-first-run",
        "--window-size=1280,800",
        *flags,
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    options.add_experimental_option(
        "perfLoggingPrefs",
        {
            "enableNetwork": False,
            "enablePage": False,
            "traceCategories": "toplevel,devtools.timeline,blink.user_timing",
        },
    )
    service = Service(os.environ.get("SIMON_CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False},
    )
    return driver


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "count": len(values),
        "p50": round(statistics.median(values), 3),
        "p99": round(percentile(values, 0.99), 3),
        "max": round(max(values), 3),
    }


def wait(driver: Any, script: str, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = driver.execute_script(script)
        if found:
            return found
        time.sleep(0.05)
    raise TimeoutError(script)


# -- what the browser measures -------------------------------------------------------


def first_load(driver: Any, url: str, language: str | None = None) -> dict[str, Any]:
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
    driver.get(f"{url}/play" + (f"?lang={language}" if language else ""))
    wait(driver, "return performance.getEntriesByName('simon:ready').length")
    entries = driver.execute_script(
        """
        const all = [performance.getEntriesByType('navigation')[0],
                     ...performance.getEntriesByType('resource')];
        return all.map((e) => [new URL(e.name).pathname, e.transferSize, e.decodedBodySize]);
        """
    )
    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
    files = {path: {"transferred": sent, "decoded": size} for path, sent, size in entries}
    return {
        "transferred_bytes": sum(sent for _, sent, _ in entries),
        "decoded_bytes": sum(size for _, _, size in entries),
        # the page's words (play/i18n/LANG.json): what a language adds to the first load
        "catalog_bytes": sum(
            sent for path, sent, _ in entries if path.startswith("/static/play/i18n/")
        ),
        "files": files,
    }


def first_load_in(driver: Any, url: str, language: str) -> dict[str, int]:
    """The first load of the page in ``language`` (nothing stored for the site, cache off):
    its bytes in all and its catalog's."""
    driver.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": url, "storageTypes": "all"})
    load = first_load(driver, url, language)
    return {"transferred_bytes": load["transferred_bytes"], "catalog_bytes": load["catalog_bytes"]}


def repeat_load(driver: Any, url: str) -> dict[str, Any]:
    """A visit after others, caches on: the static files the page used, and those that
    moved bytes over the network (a revalidation moves its headers; the HTTP cache and the
    service worker's none)."""
    driver.get(f"{url}/play")
    wait(driver, "return performance.getEntriesByName('simon:ready').length")
    entries = driver.execute_script(
        "return performance.getEntriesByType('resource')"
        ".filter((e) => new URL(e.name).pathname.startsWith('/static/'))"
        ".map((e) => [new URL(e.name).pathname, e.transferSize]);"
    )
    return {
        "static_files": len(entries),
        "from_network": sorted(path for path, sent in entries if sent),
    }


def ready_ms(driver: Any) -> float:
    wait(driver, "return performance.getEntriesByName('simon:ready').length")
    return float(
        driver.execute_script("return performance.getEntriesByName('simon:ready')[0].startTime")
    )


def mouse(driver: Any, kind: str, x: float, y: float, buttons: int) -> None:
    event: dict[str, Any] = {"type": kind, "x": x, "y": y, "buttons": buttons}
    event["button"] = "left" if kind != "mouseMoved" or buttons else "none"
    if kind != "mouseMoved":
        event["clickCount"] = 1
    driver.execute_cdp_cmd("Input.dispatchMouseEvent", event)


def rect(driver: Any, selector: str, index: int = -1) -> tuple[float, float, float, float]:
    return tuple(
        driver.execute_script(
            "const e = Array.from(document.querySelectorAll(arguments[0])).at(arguments[1]);"
            "const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height];",
            selector,
            index,
        )
    )


def drag_move(driver: Any, move: Move, mark: str | None = None, hand: float = 0.0) -> None:
    """Drag ``move``'s group onto its column (``mark``: a performance mark at the release):
    four pointer moves, ``hand`` seconds apart and ``hand`` before the release (0: as fast as
    DevTools takes them, let go in mid-motion)."""
    assert move.count is not None
    left, top, width, _ = rect(
        driver, f'[data-column="{move.source + 1}"] [data-card]', -move.count
    )
    x0, y0 = left + width / 2, top + 6
    target = f'[data-column="{move.target + 1}"]'
    cards = driver.execute_script(
        f"return document.querySelectorAll('{target} [data-card]').length"
    )
    if cards:
        left, top, width, height = rect(driver, f"{target} [data-card]")
    else:
        left, top, width, height = rect(driver, target, 0)
        height = min(height, 80)
    x1, y1 = left + width / 2, top + height / 2
    mouse(driver, "mouseMoved", x0, y0, 0)
    mouse(driver, "mousePressed", x0, y0, 1)
    for step in range(1, 5):
        time.sleep(hand)
        mouse(driver, "mouseMoved", x0 + (x1 - x0) * step / 4, y0 + (y1 - y0) * step / 4, 1)
    time.sleep(hand)
    if mark:
        driver.execute_script("performance.mark(arguments[0])", mark)
    mouse(driver, "mouseReleased", x1, y1, 0)


def practice(driver: Any, code: str) -> None:
    """Start a practice game of ``code`` from the lobby (real clicks and keys)."""
    from selenium.webdriver.common.by import By

    for button in reversed(driver.find_elements(By.CSS_SELECTOR, '[data-action="lobby"]')):
        if button.is_displayed():  # the result's, over the table, or the table's own
            button.click()
            break
    field = driver.find_element(By.CSS_SELECTOR, 'form[data-form="practice-code"] input')
    field.clear()
    field.send_keys(code)
    driver.find_element(By.CSS_SELECTOR, 'form[data-form="practice-code"] button').click()
    wait(driver, f"return document.querySelector('[data-view=game]').dataset.code === '{code}'"
         " && !document.querySelector('[data-view=game]').hidden")  # fmt: skip


def register(driver: Any, url: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(f"{url}/play")
    field = driver.find_element(By.CSS_SELECTOR, 'form[data-form="register"] input[name="name"]')
    field.send_keys(f"bench-{uuid.uuid4().hex[:8]}")
    driver.find_element(By.CSS_SELECTOR, 'form[data-form="register"] button').click()
    wait(driver, "return !document.querySelector('[data-view=lobby]').hidden")


def drag_trace(driver: Any, seconds: float) -> dict[str, Any]:
    """Drag the last card of column 1 round in circles, then make a move by drag and drop
    and restart the game, each watched while its cards glide (a fresh browser whose
    timeline trace has not been read yet: chromedriver hands it over once)."""
    driver.execute_script("performance.mark('bench:drag-start')")
    left, top, width, _ = rect(driver, '[data-column="1"] [data-card]', -1)
    x0, y0 = left + width / 2, top + 6
    mouse(driver, "mouseMoved", x0, y0, 0)
    mouse(driver, "mousePressed", x0, y0, 1)
    started = time.monotonic()
    step = 0
    while time.monotonic() - started < seconds:
        angle = step / 20
        mouse(driver, "mouseMoved", x0 + 200 * math.sin(angle), y0 + 120 * (1 - math.cos(angle)), 1)
        step += 1
        time.sleep(max(0.0, started + step * 0.016 - time.monotonic()))
    mouse(driver, "mouseReleased", x0, y0, 0)  # back where it came from: no move
    driver.execute_script("performance.mark('bench:drag-end')")
    time.sleep(0.5)
    # a move's glide: from the release to a little past the glide's end
    code = driver.execute_script("return document.querySelector('[data-view=game]').dataset.code")
    game = Game.from_code(code)
    drag_move(driver, game.resolve(next(game.legal_moves())), mark="bench:glide-start")
    time.sleep(GLIDE_WATCHED)
    driver.execute_script("performance.mark('bench:glide-end')")
    time.sleep(0.3)
    # a restart's: every card that moved glides back to the deal
    driver.execute_script("performance.mark('bench:restart-start')")
    for _ in range(2):
        driver.find_element("css selector", '[data-action="restart"]').click()
    time.sleep(GLIDE_WATCHED + 0.2)
    driver.execute_script("performance.mark('bench:restart-end')")
    time.sleep(0.3)
    events = [json.loads(entry["message"])["message"] for entry in driver.get_log("performance")]
    trace = [e["params"] for e in events if e.get("method") == "Tracing.dataCollected"]
    drag = timeline(trace, "drag")
    return {
        "pointer_events": step,
        **drag,
        "glide": timeline(trace, "glide"),
        "restart_glide": timeline(trace, "restart"),
    }


#: Seconds a glide is watched for from its start (motion.js's GLIDE is 0.2 s).
GLIDE_WATCHED = 0.35


def timeline(trace: list[dict[str, Any]], name: str) -> dict[str, Any]:
    """The main thread's tasks and the frames drawn between the page's marks
    ``bench:NAME-start`` and ``bench:NAME-end``."""
    marks = {e["name"]: e for e in trace if e.get("name", "").startswith(f"bench:{name}-")}
    begin, end = marks[f"bench:{name}-start"], marks[f"bench:{name}-end"]
    page = begin["pid"]
    names = {
        (e["pid"], e["tid"]): e["args"]["name"] for e in trace if e.get("name") == "thread_name"
    }
    main = {key for key, name in names.items() if key[0] == page and name == "CrRendererMain"}

    def during(e: dict[str, Any]) -> bool:
        return begin["ts"] <= e.get("ts", 0) <= end["ts"] and (e["pid"], e["tid"]) in main

    tasks = [
        e["dur"] / 1000 for e in trace
        if during(e) and e.get("ph") == "X" and "dur" in e and e["name"].endswith("RunTask")
    ]  # fmt: skip
    frames = sorted(
        e["ts"] for e in trace if during(e) and e.get("name") == "AnimationFrame"
        and e.get("ph") in ("b", "B")
    )  # fmt: skip
    gaps = [(b - a) / 1000 for a, b in itertools.pairwise(frames)]
    drawn = (end["ts"] - begin["ts"]) / 1e6
    return {
        "seconds": round(drawn, 2),
        "main_thread_tasks": len(tasks),
        "long_tasks_over_50ms": sum(d > LONG_TASK_MS for d in tasks),
        "longest_task_ms": round(max(tasks, default=0.0), 2),
        "task_p99_ms": round(percentile(tasks, 0.99), 2) if tasks else None,
        "frames": len(frames),
        "frames_per_second": round(len(frames) / drawn, 1),
        "frame_gap_p99_ms": round(percentile(gaps, 0.99), 2) if gaps else None,
    }


class SimonPlayer:
    """``simon``'s websocket client on an event loop of its own (a thread), so its moves
    can be played between the page's; each move is timed on that loop, from its send to
    its ``moved`` read."""

    def __init__(self, url: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.connection = Connection(url)
        self.run(self._open())

    def run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    async def _open(self) -> None:
        await self.connection.__aenter__()
        name = f"bench-{uuid.uuid4().hex[:8]}"
        await self.connection.request(Register(type="register", name=name), Registered)

    async def _start(self, code: str) -> None:
        await self.connection.request(Start(type="start", mode="practice", code=code), State)

    async def _move(self, move: Move) -> float:
        sent = time.perf_counter()
        await self.connection.request(MoveRequest(type="move", move=move.text()), Moved)
        return (time.perf_counter() - sent) * 1000

    def start(self, code: str) -> None:
        self.run(self._start(code))

    def move(self, move: Move) -> float:
        return float(self.run(self._move(move)))

    def close(self) -> None:
        self.run(self.connection.__aexit__(None, None, None))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


def solution(code: str, moves: int | None) -> list[Move]:
    """The first ``moves`` moves of the deal's solution (None: all of them, to the win)."""
    return solve(Game.from_code(code), shorten=False).moves[:moves]


#: Whether every card's glide is over (the page's animations read, not acted on).
GLIDES_OVER = (
    "return !document.getAnimations().some((a) => a.id === 'glide' && a.playState === 'running')"
)


def round_trips(
    driver: Any, url: str, games: int, moves: int | None, hand: float = 0.0
) -> tuple[list[float], list[float]]:
    """Each move dropped on the page (by :func:`drag_move`, ``hand`` its pace), then the same
    move from ``simon``: (page, simon)."""
    simon = SimonPlayer(url)
    simon_times = []
    try:
        driver.execute_script("performance.clearMeasures('simon:move')")
        for code in DEALS[:games]:
            practice(driver, code)
            simon.start(code)
            for move in solution(code, moves):
                drag_move(driver, move, hand=hand)
                time.sleep(0.1)  # the page's main thread to itself while the move goes round
                wait(driver, "return document.querySelector('[data-board]').dataset.pending == 0")
                # a person's hand waits for the cards to land (a glide lasts 200 ms): a card
                # picked up mid-flight is not where it will lie
                wait(driver, GLIDES_OVER)
                simon_times.append(simon.move(move))
    finally:
        simon.close()
    page_times = driver.execute_script(
        "return performance.getEntriesByName('simon:move').map((e) => e.duration)"
    )
    return list(page_times), simon_times


_PINGS = """
const done = arguments[arguments.length - 1];
const socket = new WebSocket(arguments[0]);
const times = [];
let sent = 0;
const ping = () => {
  sent = performance.now();
  socket.send(JSON.stringify({type: "ping", id: times.length}));
};
socket.onopen = ping;
socket.onmessage = () => {
  times.push(performance.now() - sent);
  if (times.length < arguments[1]) ping(); else { socket.close(); done(times); }
};
socket.onerror = () => done([]);
"""


_MOVES = """
const [url, code, moves, done] = [arguments[0], arguments[1], arguments[2], arguments[3]];
const socket = new WebSocket(url);
const send = (message) => socket.send(JSON.stringify(message));
const times = [];
let sent = 0;
const next = () => {
  sent = performance.now();
  send({type: "move", id: `m${times.length}`, move: moves[times.length]});
};
socket.onopen = () => {
  send({type: "hello", id: "h", legal: true});
  send({type: "register", id: "r", name: `raw-${Math.random().toString(36).slice(2, 10)}`});
  send({type: "start", id: "s", mode: "practice", code});
};
socket.onmessage = (event) => {
  const message = JSON.parse(event.data);
  if (message.id === "s") next();
  if (message.type !== "moved") return;
  times.push(performance.now() - sent);
  if (times.length < moves.length) next(); else { socket.close(); done(times); }
};
socket.onerror = () => done([]);
"""


def page_socket_round_trips(driver: Any, url: str, games: int, moves: int | None) -> list[float]:
    """The same moves from a websocket of the page's origin, with nothing drawn: the
    browser's connection without the page's input and frames."""
    times: list[float] = []
    for code in DEALS[:games]:
        texts = [move.text() for move in solution(code, moves)]
        times += driver.execute_async_script(_MOVES, url, code, texts)
    return times


def browser_pings(driver: Any, url: str, count: int) -> list[float]:
    """The connection alone: pings from a websocket of the page's origin, nothing drawn."""
    return list(driver.execute_async_script(_PINGS, url, count))


async def simon_pings(url: str, count: int) -> list[float]:
    from websockets.asyncio.client import connect

    times = []
    async with connect(url, compression=None) as socket:
        for number in range(count):
            sent = time.perf_counter()
            await socket.send(json.dumps({"type": "ping", "id": number}))
            await socket.recv()
            times.append((time.perf_counter() - sent) * 1000)
    return times


def measure(url: str, args: argparse.Namespace) -> dict[str, Any]:
    """Every figure, against the server at websocket URL ``url``."""
    http = url.replace("ws://", "http://")
    driver = browser()
    try:
        load = first_load(driver, http)
        by_language = {language: first_load_in(driver, http, language) for language in LANGUAGES}
        first_visit = []
        for _ in range(args.loads):
            driver.execute_cdp_cmd(
                "Storage.clearDataForOrigin", {"origin": http, "storageTypes": "all"}
            )
            driver.get(f"{http}/play")
            first_visit.append(ready_ms(driver))
        register(driver, http)
        driver.find_element("css selector", '[data-start="practice"][data-suits="1"]').click()
        wait(driver, "return !document.querySelector('[data-view=game]').hidden")
        returning = []
        for _ in range(args.loads):
            driver.get(f"{http}/play")
            returning.append(ready_ms(driver))
            wait(driver, "return document.querySelector('[data-board] [data-card]')")
        repeat = repeat_load(driver, http)
        browser_times: list[float] = []
        simon_times: list[float] = []
        socket_times: list[float] = []
        for _ in range(args.trip_rounds):  # the page's, simon's, the page's socket's, in turn
            page_round, simon_round = round_trips(
                driver, url, args.games, args.moves, args.hand_ms / 1000
            )
            browser_times += page_round
            simon_times += simon_round
            socket_times += page_socket_round_trips(driver, f"{url}/", args.games, args.moves)
        browser_ping = browser_pings(driver, f"{url}/", 200)
        errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    finally:
        driver.quit()
    driver = browser(NO_DEFERRAL)
    try:
        register(driver, http)
        driver.find_element("css selector", '[data-start="practice"][data-suits="1"]').click()
        wait(driver, "return !document.querySelector('[data-view=game]').hidden")
        undeferred_times, undeferred_simon = round_trips(
            driver, url, args.games, args.moves, args.hand_ms / 1000
        )
    finally:
        driver.quit()
    driver = browser()
    try:  # a browser of its own: its timeline trace is read once
        register(driver, http)
        driver.find_element("css selector", '[data-start="practice"][data-suits="1"]').click()
        wait(driver, "return document.querySelector('[data-board] [data-card]')")
        drag = drag_trace(driver, args.drag_seconds)
    finally:
        driver.quit()
    simon_ping = asyncio.run(simon_pings(url, 200))
    browser_rt, simon_rt = summary(browser_times), summary(simon_times)
    return {
        "first_load": load,
        "first_load_by_language": by_language,
        "repeat_load": repeat,
        "interactive_ms": {
            "first_visit": summary(first_visit),
            "returning_to_a_game": summary(returning),
        },
        "drag": drag,
        "round_trip_ms": {
            "browser": browser_rt,
            "simon": simon_rt,
            "p50_difference": round(browser_rt["p50"] - simon_rt["p50"], 3),
            "p99_difference": round(browser_rt["p99"] - simon_rt["p99"], 3),
            "browser_without_deferral_after_input": summary(undeferred_times),
            "simon_beside_it": summary(undeferred_simon),
            "page_socket_no_drawing": summary(socket_times),
        },
        "ping_ms": {"browser": summary(browser_ping), "python": summary(simon_ping)},
        "console_errors": errors[:10],
    }


#: Its arguments at a tiny size, for ``python -m bench --smoke``.
SMOKE: Final = "--games 1 --moves 8 --loads 1 --drag-seconds 0.5"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4, choices=range(1, len(DEALS) + 1))
    parser.add_argument("--loads", type=int, default=7)
    parser.add_argument(
        "--moves", type=int, help="moves of each game played (default: all, to the win)"
    )
    parser.add_argument("--drag-seconds", type=float, default=2.0)
    parser.add_argument(
        "--trip-rounds",
        type=int,
        default=1,
        help="the round trips' games played this many times (a p99 of 189 moves is its 2nd worst)",
    )
    parser.add_argument(
        "--hand-ms",
        type=float,
        default=16.0,
        help="a drop's pace: ms between its pointer moves and before its release (16, the "
        "default: a person's, a frame a step and the hand still a frame; 0: the whole drag at "
        "once, let go in mid-motion)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder)
        with server_process(embedded_backend(data), data) as url:
            measured = measure(url, args)
    print(json.dumps(measured, indent=2))


if __name__ == "__main__":
    main()
