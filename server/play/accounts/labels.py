"""What a credential was made by, in a few words: a browser and its system, from the
``User-Agent`` of the connection's handshake, or what the client calls itself."""

from __future__ import annotations

import re

_BROWSERS = (
    ("Edge", re.compile(r"Edg/(\d+)")),
    ("Opera", re.compile(r"OPR/(\d+)")),
    ("Firefox", re.compile(r"Firefox/(\d+)")),
    ("Chromium", re.compile(r"Chromium/(\d+)")),
    ("Chrome", re.compile(r"Chrome/(\d+)")),
    ("Safari", re.compile(r"Version/(\d+).*Safari/")),
)
_SYSTEMS = (
    ("Android", "Android"),
    ("iPhone", "iOS"),
    ("iPad", "iPadOS"),
    ("Windows", "Windows"),
    ("Mac OS X", "macOS"),
    ("CrOS", "ChromeOS"),
    ("Linux", "Linux"),
)
_CLIENT = re.compile(r"^(?:simon|Python|python-websockets)[/ ]")
_LENGTH = 64


def device_label(user_agent: str, given: str | None = None) -> str:
    """``given`` (what the client calls itself) when there is one; else the browser and
    system of ``user_agent`` (``Firefox 133 on Linux``), else its first words."""
    if given:
        return given[:_LENGTH]
    browser = next(
        (
            f"{name} {found.group(1)}"
            for name, pattern in _BROWSERS
            if (found := pattern.search(user_agent))
        ),
        None,
    )
    system = next((name for key, name in _SYSTEMS if key in user_agent), None)
    if browser is not None:
        return (f"{browser} · {system}" if system else browser)[:_LENGTH]
    if _CLIENT.match(user_agent):
        return user_agent.split(" ")[0][:_LENGTH]
    return user_agent[:_LENGTH]
