"""The play page as an installable app: a web app manifest with its icons, a service worker
that keeps the app shell, a repeat visit that asks the network for no unchanged file, and an
offline visit told that it is offline (over HTTP, and in Debian's Chromium)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import struct
from collections.abc import Iterator
from typing import Any

import pytest

from server.web.assets import IMPORT_MAP, PLAY_TYPES, STATIC, static_url
from tests.conftest import Backend
from tests.support.servers import server_settings, serving
from tests.support.web import fetch, page, run, screenshot, start_chromium, wait_for


def _png_size(body: bytes) -> tuple[int, int]:
    assert body[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", body[16:24])
    return width, height


async def test_every_page_links_the_manifest_whose_icons_are_served_at_their_sizes(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend)) as server:
        for path in ("/", "/play"):
            reply = await page(server.http_url + path)
            assert f'<link rel="manifest" href="{static_url("manifest.webmanifest")}">' in (
                reply.text
            ), path
        reply = await fetch(server.http_url + static_url("manifest.webmanifest"))
        assert reply.headers["Content-Type"].startswith("application/manifest+json")
        assert "immutable" in reply.headers["Cache-Control"]
        manifest = json.loads(reply.body)
        assert manifest["start_url"] == "/play" and manifest["display"] == "standalone"
        purposes = set()
        for icon in manifest["icons"]:
            served = await fetch(server.http_url + icon["src"])
            assert served.status == 200, icon["src"]
            assert served.headers["Content-Type"].split(";")[0] == icon["type"]
            if icon["type"] == "image/png":
                width, height = _png_size(served.body)
                assert icon["sizes"] == f"{width}x{height}"
                purposes.add(icon.get("purpose", "any"))
        assert purposes == {"any", "maskable"}


async def test_the_import_map_names_every_module_by_its_version_and_the_policy_allows_only_it(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend)) as server:
        reply = await page(server.http_url + "/play")
        inline = re.findall(r'<script type="importmap">(.*?)</script>', reply.text, re.S)
        assert inline == [IMPORT_MAP]
        imports = json.loads(IMPORT_MAP)["imports"]
        modules = {name for name in STATIC if name.startswith("play/") and name.endswith(".js")}
        # every module but the messages' types, which nothing imports at run time
        assert {f"/static/{name}" for name in modules - {PLAY_TYPES}} <= set(imports)
        assert f"/static/{PLAY_TYPES}" not in imports
        for plain, versioned in imports.items():
            assert versioned == static_url(plain.removeprefix("/static/"))
        digest = base64.b64encode(hashlib.sha256(IMPORT_MAP.encode()).digest()).decode()
        policy = reply.headers["Content-Security-Policy"]
        script_src = next(part for part in policy.split(";") if "script-src" in part).split()
        assert script_src == ["script-src", "'self'", f"'sha256-{digest}'"]
        assert "manifest-src 'self'" in policy and "unsafe-inline" not in policy
        # every module the page preloads is asked for by its versioned URL
        preloads = re.findall(r'<link rel="modulepreload" href="([^"]+)">', reply.text)
        assert preloads and all("?v=" in href for href in preloads)


async def test_the_service_worker_is_served_from_the_root_and_the_offline_page_speaks(
    backend: Backend,
) -> None:
    async with serving(server_settings(backend)) as server:
        worker = await fetch(server.http_url + "/sw.js")
        assert worker.status == 200 and worker.body == STATIC["sw.js"].body
        assert worker.headers["Content-Type"].startswith("text/javascript")
        assert worker.headers["Cache-Control"] == "public, max-age=86400"
        offline = await page(server.http_url + "/offline", Accept_Language="pl")
        assert offline.status == 200 and "Jesteś offline" in offline.text


@pytest.fixture
def fresh_chromium() -> Iterator[Any]:
    """A Chromium of its own: the worker it installs stays out of the other tests' browser."""
    driver = start_chromium()
    try:
        yield driver
    finally:
        driver.quit()


def _controlled(driver: Any) -> bool:
    return bool(driver.execute_script("return navigator.serviceWorker.controller !== null"))


def _static_fetches(driver: Any) -> list[tuple[str, int]]:
    """The page's static files as Resource Timing saw them: (URL, bytes over the network).
    A file from the HTTP cache or the worker's cache moved 0 bytes; a revalidation (304)
    moved its headers."""
    return [
        (str(url), int(size))
        for url, size in driver.execute_script(
            "return performance.getEntriesByType('resource')"
            ".filter((e) => new URL(e.name).pathname.startsWith('/static/'))"
            ".map((e) => [e.name, e.transferSize]);"
        )
    ]


async def test_chromium_installs_the_page_repeats_a_visit_from_its_caches_and_says_offline(
    backend: Backend, fresh_chromium: Any
) -> None:
    driver = fresh_chromium
    async with serving(server_settings(backend)) as server:
        url = server.http_url + "/play"
        await run(lambda: driver.get(url))
        await wait_for(
            lambda: driver.execute_script("return navigator.serviceWorker.ready.then(() => true)"),
            10,
            "the service worker active",
        )
        errors = await run(lambda: driver.execute_cdp_cmd("Page.getInstallabilityErrors", {}))
        assert errors["installabilityErrors"] == []

        await run(lambda: driver.get(url))  # a repeat visit, controlled by the worker
        await wait_for(lambda: _controlled(driver), 10, "the page controlled by the worker")
        await wait_for(
            lambda: driver.execute_script(
                "return performance.getEntriesByName('simon:ready').length"
            ),
            10,
            "the page ready",
        )
        fetched = await run(lambda: _static_fetches(driver))
        assert len(fetched) >= 10, fetched  # the modules, the stylesheet, the catalog...
        assert [entry for entry in fetched if entry[1] != 0] == []
        assert all("?v=" in entry[0] for entry in fetched), fetched

    # the server gone: the page says so, in place of the browser's error
    await run(lambda: driver.get(url))
    heading = await run(
        lambda: driver.execute_script("return document.querySelector('h1')?.textContent")
    )
    assert heading == "You are offline"
    rules = await run(
        lambda: driver.execute_script(
            "return [...document.styleSheets].map((sheet) => sheet.cssRules.length)"
        )
    )
    assert len(rules) == 1 and rules[0] > 10  # its stylesheet, from the worker's cache
    await run(lambda: screenshot(driver, "offline-390", width=390))


def _heading(driver: Any) -> str:
    return str(driver.execute_script("return document.querySelector('h1')?.textContent"))


async def _worker_keeps(driver: Any, lang: str) -> None:
    """Wait until the worker's offline page is the one in ``lang``."""

    def kept() -> bool:
        return bool(
            driver.execute_script(
                "return caches.match('/offline').then((page) =>"
                " page?.headers.get('Content-Language') === arguments[0])",
                lang,
            )
        )

    await wait_for(kept, 10, f"the offline page in {lang}")


async def test_the_offline_page_speaks_the_language_of_the_last_page_read(
    backend: Backend, fresh_chromium: Any
) -> None:
    driver = fresh_chromium
    async with serving(server_settings(backend)) as server:
        base = server.http_url
        await run(lambda: driver.get(f"{base}/play"))
        await wait_for(
            lambda: driver.execute_script("return navigator.serviceWorker.ready.then(() => true)"),
            10,
            "the service worker active",
        )
        await _worker_keeps(driver, "en")  # from its install: the browser's language
        await run(lambda: driver.get(f"{base}/?lang=pl"))
        await wait_for(lambda: _controlled(driver), 10, "the page controlled by the worker")
        await _worker_keeps(driver, "pl")
        await run(lambda: driver.get(f"{base}/play?lang=ru"))
        await _worker_keeps(driver, "ru")
        await run(lambda: driver.get(f"{base}/day/2026-01-01?lang=pl"))  # Polish kept: no fetch
        await _worker_keeps(driver, "pl")

    # the server gone: the last page's language, or the one a link asks for if it was kept
    await run(lambda: driver.get(f"{base}/play"))
    assert await run(lambda: _heading(driver)) == "Jesteś offline"
    await run(lambda: driver.get(f"{base}/play?lang=ru"))
    assert await run(lambda: _heading(driver)) == "Нет подключения к сети"
    await run(lambda: driver.get(f"{base}/?lang=en"))
    assert await run(lambda: _heading(driver)) == "You are offline"
    await run(lambda: driver.get(f"{base}/?lang=de"))
    assert await run(lambda: _heading(driver)) == "Jesteś offline"
