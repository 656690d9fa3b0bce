"""The play page's account panels in a real headless Chromium with real input (WebDriver
clicks and keys; the page is only read, never called into): a passkey added through the
menu with Chromium's virtual authenticator (DevTools ``WebAuthn``) signs the same account
in again once the browser's data is cleared; the devices list marks this device and signs
another place out; recovery codes are shown once; the account deleted by its typed name,
after which its old token is refused.

Passkeys need a named host: the page is opened at ``http://localhost:PORT``.
Screenshots of the panels at 1280x800 and 390x844 go to artifacts/web/.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest

from server.net import RunningServer
from tests.support.play import DESKTOP, PHONE, PlayPage, fresh_table, shown
from tests.support.servers import Client, fresh_clock, server_settings, serving, unique_name
from tests.support.web import chromium, embedded_backend, run, wait_for

__all__ = ["chromium"]  # the fixture, used by name

HELLO = {"type": "hello", "version": 1, "client": "test", "legal": True}
CODE = re.compile(r"^[A-Z0-9]{4}(-[A-Z0-9]{4}){3}$")


@pytest.fixture(scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[RunningServer]:
    settings = server_settings(embedded_backend(tmp_path_factory.mktemp("account")))
    async with serving(settings, clock=fresh_clock()) as server:
        yield server


def site(server: RunningServer) -> str:
    """The server by a name, as passkeys need (never 127.0.0.1)."""
    return f"http://localhost:{server.port}"


@pytest.fixture
async def play(chromium: Any, served: RunningServer) -> AsyncIterator[PlayPage]:
    async with fresh_table(chromium, site(served)) as table:
        yield table


def count(play: PlayPage, selector: str) -> int:
    return len(play.driver.find_elements("css selector", selector))


async def open_panel(play: PlayPage, name: str) -> None:
    await play.click('[data-action="account"]')
    await wait_for(lambda: shown(play, f'[data-panel="{name}"]'), 5, "the account menu")
    await play.click(f'[data-panel="{name}"]')
    await wait_for(lambda: shown(play, f'[data-panel-content="{name}"]'), 5, f"the {name} panel")


async def close_panel(play: PlayPage) -> None:
    await play.click('[data-action="close-panel"]')
    await wait_for(lambda: not shown(play, "[data-panel-box]"), 5, "the panel closed")


async def pictures(play: PlayPage, name: str) -> None:
    """The panel open now at 1280x800 and at 390x844."""
    await play.snapshot(f"account-{name}-desktop")
    await play.viewport(PHONE)
    await play.snapshot(f"account-{name}-phone")
    await play.viewport(DESKTOP)


async def virtual_authenticator(play: PlayPage) -> str:
    await run(lambda: play.driver.execute_cdp_cmd("WebAuthn.enable", {"enableUI": False}))
    found = await run(
        lambda: play.driver.execute_cdp_cmd(
            "WebAuthn.addVirtualAuthenticator",
            {
                "options": {
                    "protocol": "ctap2",
                    "transport": "internal",
                    "hasResidentKey": True,
                    "hasUserVerification": True,
                    "isUserVerified": True,
                    "automaticPresenceSimulation": True,
                }
            },
        )
    )
    return str(found["authenticatorId"])


async def token_of(play: PlayPage) -> str:
    return str(
        await run(lambda: play.driver.execute_script("return localStorage.getItem('simon.token')"))
    )


async def test_a_passkey_added_in_the_menu_signs_the_account_in_after_the_data_is_cleared(
    play: PlayPage, served: RunningServer
) -> None:
    authenticator = await virtual_authenticator(play)
    try:
        await play.open(f"{site(served)}/play")
        name = unique_name("key")
        await play.register(name)
        await play.start("practice", 1)  # a game in the account's history
        await open_panel(play, "passkeys")
        await wait_for(lambda: play.text("[data-passkeys]"), 5, "the passkeys listed")
        field = play.find("#passkey-name")
        assert await run(lambda: field.get_attribute("value"))  # named by the browser
        await run(field.clear)
        await run(lambda: field.send_keys("My laptop"))
        await play.click('[data-form="add-passkey"] button[type="submit"]')
        await wait_for(lambda: count(play, "[data-passkey]") == 1, 10, "the passkey listed")
        assert "My laptop" in play.text("[data-passkeys]")
        await pictures(play, "passkeys")
        await close_panel(play)

        # the browser's data cleared: nothing kept but the authenticator's passkey
        await run(
            lambda: play.driver.execute_cdp_cmd(
                "Storage.clearDataForOrigin", {"origin": site(served), "storageTypes": "all"}
            )
        )
        await run(lambda: play.driver.execute_cdp_cmd("Network.clearBrowserCookies", {}))
        await play.open(f"{site(served)}/play")
        await wait_for(lambda: shown(play, '[data-view="welcome"]'), 10, "the welcome")
        assert await token_of(play) == "None"
        await play.click('[data-action="passkey-sign-in"]')
        await wait_for(lambda: shown(play, '[data-view="lobby"]'), 10, "signed in by the passkey")
        assert play.text("[data-account] [data-player-name]") == name
        assert await token_of(play) != "None"
        # the same account: its game is there (the games in progress)
        await wait_for(lambda: count(play, "[data-resume]") == 1, 10, "the account's game")
        # and the place the passkey signed in is a new device of the account's
        await open_panel(play, "devices")
        await wait_for(lambda: count(play, "[data-credential]") == 2, 5, "two places")
        assert "A passkey" in play.text('[data-credential][data-current="true"]')
    finally:
        await run(
            lambda: play.driver.execute_cdp_cmd(
                "WebAuthn.removeVirtualAuthenticator", {"authenticatorId": authenticator}
            )
        )
        await run(lambda: play.driver.execute_cdp_cmd("WebAuthn.disable", {}))


async def test_devices_mark_this_one_and_sign_another_out(
    play: PlayPage, served: RunningServer
) -> None:
    await play.open(f"{site(served)}/play")
    await play.register(unique_name("dev"))
    token = await token_of(play)
    # the account signed in somewhere else too: a terminal, by a recovery code
    async with Client.connect(served.url) as mine, Client.connect(served.url) as other:
        await mine.request(HELLO)
        assert (await mine.request({"type": "auth", "token": token}))["type"] == "authenticated"
        codes = (await mine.request({"type": "recovery_codes"}))["codes"]
        await other.request(HELLO)
        assert (await other.request({"type": "recover", "code": codes[0]}))["type"] == "signed_in"
        await open_panel(play, "devices")
        await wait_for(lambda: count(play, "[data-credential]") == 2, 5, "two places")
        assert count(play, '[data-credential][data-current="true"]') == 1
        assert "this device" in play.text('[data-credential][data-current="true"]')
        await pictures(play, "devices")
        await play.click('[data-credential][data-current="false"] [data-revoke]')
        await wait_for(lambda: count(play, "[data-credential]") == 1, 5, "the other signed out")
        pushed = await other.pushed_event(lambda frame: frame.get("type") == "signed_out")
        assert pushed["reason"] == "revoked"
    await close_panel(play)


async def test_recovery_codes_are_shown_once_and_sign_in(
    play: PlayPage, served: RunningServer
) -> None:
    await play.open(f"{site(served)}/play")
    name = unique_name("rec")
    await play.register(name)
    await open_panel(play, "recovery")
    await wait_for(lambda: play.text("[data-codes-left]"), 5, "the codes left")
    await play.click('[data-action="make-codes"]')
    await wait_for(lambda: count(play, ".recovery-codes li") == 10, 5, "ten codes")
    codes = [e.text for e in play.driver.find_elements("css selector", ".recovery-codes li")]
    assert all(CODE.match(code) for code in codes), codes
    assert shown(play, '[data-action="print-codes"]') and shown(play, ".warning")
    await pictures(play, "recovery")
    await close_panel(play)
    # opened again: the codes are not shown again, only how many are left
    await open_panel(play, "recovery")
    await wait_for(lambda: "10" in play.text("[data-codes-left]"), 5, "ten left")
    assert count(play, ".recovery-codes li") == 0
    await close_panel(play)
    # a code signs in on a browser with nothing kept
    await run(
        lambda: play.driver.execute_cdp_cmd(
            "Storage.clearDataForOrigin", {"origin": site(served), "storageTypes": "all"}
        )
    )
    await play.open(f"{site(served)}/play")
    await wait_for(lambda: shown(play, '[data-view="welcome"]'), 10, "the welcome")
    await play.click(".other-sign-in summary")
    field = play.find("#recover-code")
    await run(lambda: field.send_keys(codes[0].lower()))
    await play.click('[data-form="recover"] button[type="submit"]')
    await wait_for(lambda: shown(play, '[data-view="lobby"]'), 10, "signed in by the code")
    assert play.text("[data-account] [data-player-name]") == name


async def test_a_deleted_account_signs_out_and_its_token_is_refused(
    play: PlayPage, served: RunningServer
) -> None:
    await play.open(f"{site(served)}/play")
    name = unique_name("del")
    await play.register(name)
    token = await token_of(play)
    await open_panel(play, "data")
    assert not play.find('[data-form="delete-account"] button[type="submit"]').is_enabled()
    await pictures(play, "data")
    field = play.find("#delete-name")
    await run(lambda: field.send_keys(name))
    await play.click('[data-form="delete-account"] button[type="submit"]')
    await wait_for(lambda: shown(play, '[data-view="welcome"]'), 10, "the welcome again")
    notice = await wait_for(lambda: play.text("[data-welcome-notice]"), 5, "the notice")
    assert "#" in notice  # the anonymous name the results keep
    assert await token_of(play) == "None"
    await play.snapshot("account-deleted-desktop")
    async with Client.connect(served.url) as client:
        await client.request(HELLO)
        refused = await client.request({"type": "auth", "token": token})
        assert refused["type"] == "error" and refused["code"] == "bad-token"


async def test_a_terminal_is_approved_from_the_address_its_code_names(
    play: PlayPage, served: RunningServer
) -> None:
    await play.open(f"{site(served)}/play")
    await play.register(unique_name("term"))
    async with Client.connect(served.url) as terminal:
        await terminal.request(HELLO)
        asked = await terminal.request({"type": "device_code", "device": "simon on a laptop"})
        await play.open(f"{site(served)}/play?code={asked['user_code']}")
        await wait_for(lambda: shown(play, "[data-asking]"), 10, "what asks")
        assert "simon on a laptop" in play.text("[data-asking]")
        assert asked["user_code"] in play.text("[data-time-left]")
        await pictures(play, "terminal")
        await play.click('[data-action="approve-terminal"]')
        await wait_for(lambda: shown(play, '[data-answered="approved"]'), 5, "approved")
        polled = await terminal.request(
            {"type": "device_token", "device_code": asked["device_code"]}
        )
        assert polled["type"] == "signed_in"
