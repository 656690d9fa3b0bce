"""Helpers for the web pages' tests: plain HTTP with any headers, players who finish a
daily over the websocket, and a real headless Chromium (Debian's ``chromium`` driven by
its ``chromium-driver`` through Selenium; never a downloaded browser).

Screenshots go to ``artifacts/web/`` at the repository root (``SIMON_ARTIFACTS`` moves
it), which is kept out of git.
"""

from __future__ import annotations

import asyncio
import gzip
import os
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import Message
from pathlib import Path
from typing import Any, TypeVar

import pytest
from selenium.common.exceptions import (
    NoSuchElementException,
    StaleElementReferenceException,
    WebDriverException,
)

from server.play.accounts import hash_token, new_token
from server.web import Source
from tests.conftest import Backend
from tests.support.servers import Client, unique_name

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("SIMON_ARTIFACTS", ROOT / "artifacts")) / "web"


@dataclass
class Reply:
    status: int
    headers: Message
    raw: bytes  # as sent (gzip when the server gzipped it)

    @property
    def body(self) -> bytes:
        if self.headers.get("Content-Encoding") == "gzip":
            return gzip.decompress(self.raw)
        return self.raw

    @property
    def text(self) -> str:
        return self.body.decode()


def _get(url: str, headers: dict[str, str]) -> Reply:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return Reply(response.status, response.headers, response.read())
    except urllib.error.HTTPError as error:
        return Reply(error.code, error.headers, error.read())


async def fetch(url: str, **headers: str) -> Reply:
    """GET ``url`` with ``headers`` (``Accept="text/html"``; underscores become dashes)."""
    named = {name.replace("_", "-"): value for name, value in headers.items()}
    return await asyncio.to_thread(_get, url, named)


BROWSER = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


async def page(url: str, **headers: str) -> Reply:
    """GET ``url`` as a browser asks for a page."""
    return await fetch(url, **{"Accept": BROWSER["Accept"], **headers})


def no_cache(server: Any) -> None:
    """Every request renders afresh (the node's one-second page cache is off)."""
    Source.of(server.hub).cache_seconds = 0


async def finish_daily(
    url: str, *, name: str | None = None, suits: int = 1, bot: bool = False, token: str = ""
) -> str:
    """A player (new, or signed in with ``token``) starts today's daily and resigns at once:
    a result on the board (a human's passes the fair-play screening)."""
    async with Client.connect(url) as client:
        if token:
            reply = await client.request({"type": "auth", "token": token})
        else:
            reply = await client.request(
                {"type": "register", "name": name or unique_name(), "bot": bot}
            )
        assert reply["type"] in ("registered", "authenticated"), reply
        started = await client.request({"type": "start", "suits": suits})
        assert started["type"] == "state", started
        resigned = await client.request({"type": "resign"})
        assert resigned["type"] == "state", resigned
        return str(reply["player"]["name"])


async def player_named(server: Any, name: str) -> str:
    """An account with any name at all (the store takes what the protocol would refuse,
    as an older server or an operator might have written): its token."""
    token = new_token()
    await server.hub.store.create_player(
        name=name, token_hash=hash_token(token), now=datetime.now(UTC)
    )
    return token


def embedded_backend(tmp_path: Path) -> Backend:
    return Backend(
        name="embedded",
        database_url=f"sqlite+aiosqlite:///{tmp_path / 'simon.sqlite3'}",
        redis_url=None,
        redis_prefix="simon-test-web",
    )


def _program(variable: str, name: str) -> str:
    found = os.environ.get(variable) or shutil.which(name)
    if found is None or not Path(found).is_file():
        pytest.fail(
            f"{name} is not installed: the browser tests need Debian's chromium and "
            "chromium-driver (apt-get install chromium chromium-driver; scripts/test does it)",
            pytrace=False,
        )
    return found


@pytest.fixture
def chromium(chromium_session: Any) -> Any:
    """The session's Chromium on a blank page with its console read: a page left open by
    the test before, whose server has stopped, polls no more and logs nothing here."""
    chromium_session.get("about:blank")
    chromium_session.get_log("browser")
    # a cookie is the host's whatever the port: one test's language (lang=ru) must not
    # follow the browser to the next test's server
    chromium_session.execute_cdp_cmd("Network.clearBrowserCookies", {})
    return chromium_session


@pytest.fixture(scope="session")
def chromium_session() -> Iterator[Any]:
    """A headless Chromium through chromedriver, for the whole session (fails, never
    skips, when either is missing)."""
    driver = start_chromium()
    try:
        yield driver
    finally:
        driver.quit()


def start_chromium(language: str | None = None) -> Any:
    """A headless Chromium, set to ``language`` as a person sets theirs (``--lang`` and the
    languages it asks pages in), else to the machine's."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    if language is not None:
        options.add_argument(f"--lang={language}")
        options.add_experimental_option("prefs", {"intl.accept_languages": language})
    options.binary_location = _program("SIMON_CHROMIUM", "chromium")
    for argument in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-extensions",
        "--no-first-run",
        "--window-size=1280,900",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=_program("SIMON_CHROMEDRIVER", "chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(20)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return driver


def screenshot(driver: Any, name: str, *, width: int | None = None) -> Path:
    """Save the whole page as ``artifacts/web/NAME.png`` (at ``width`` if given)."""
    if width is not None:
        driver.set_window_size(width, 900)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width or driver.get_window_size()["width"], min(height + 120, 4000))
    path = ARTIFACTS / f"{name}.png"
    assert driver.save_screenshot(str(path)), path
    return path


T = TypeVar("T")


async def run(call: Callable[[], T]) -> T:
    """A blocking browser call, off the event loop the server runs on."""
    return await asyncio.to_thread(call)


async def wait_for(check: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            found = await run(check)
        except (StaleElementReferenceException, NoSuchElementException):
            # The page's live update replaced the element between finding and reading it,
            # or a reload is under way and the new page has no body yet.
            found = None
        except WebDriverException as error:
            # A page that reloads itself (to take a language) can be between documents
            # when a script asks about it: Chromium answers with an inspector error.
            if not _between_documents(error):
                raise
            found = None
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"not seen within {timeout} s: {what}")
        await asyncio.sleep(0.2)


def _between_documents(error: WebDriverException) -> bool:
    message = str(error.msg or "")
    return "inspector error" in message or "Cannot find context" in message


#: What the play page warns of a server message it has no handler for (main.js).
UNKNOWN_MESSAGE = "simon: a message of an unknown type"


def severe_logs(driver: Any) -> list[str]:
    """Console errors (a content security policy violation is one), and the play page's
    warnings of a message type it has no handler for."""
    return [
        entry["message"]
        for entry in driver.get_log("browser")
        if entry["level"] == "SEVERE" or UNKNOWN_MESSAGE in entry["message"]
    ]
