"""The layout's limits (docs/architecture.md): small folders, classes and modules, so that
the tree keeps telling the architecture as it grows."""

from __future__ import annotations

from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parent.parent / "server"
#: The message catalogue is one long list of small models, on purpose.
LONG_MODULES_ALLOWED = {SERVER / "protocol.py"}
MOST_MODULES_A_FOLDER = 15
MOST_LINES_A_MODULE = 600


def _modules() -> list[Path]:
    return sorted(SERVER.rglob("*.py"))


@pytest.mark.parametrize(
    "folder", sorted({path.parent for path in _modules()}), ids=lambda p: str(p.name)
)
def test_no_folder_holds_more_than_15_modules(folder: Path) -> None:
    modules = sorted(path.name for path in folder.glob("*.py"))
    assert len(modules) <= MOST_MODULES_A_FOLDER, modules


def test_no_module_is_over_600_lines() -> None:
    long = {
        str(path.relative_to(SERVER)): lines
        for path in _modules()
        if path not in LONG_MODULES_ALLOWED
        and (lines := len(path.read_text().splitlines())) > MOST_LINES_A_MODULE
    }
    assert long == {}


#: The browser client (docs/architecture.md, "The browser client"): small modules, but few
#: of them, each one more request on a first visit.
CLIENT = SERVER / "web" / "static"
MOST_LINES_A_CLIENT_MODULE = 400


def test_no_browser_module_is_over_400_lines() -> None:
    long = {
        str(path.relative_to(CLIENT)): lines
        for path in sorted(CLIENT.rglob("*.js"))
        if (lines := len(path.read_text().splitlines())) > MOST_LINES_A_CLIENT_MODULE
    }
    assert long == {}
