"""The layout's limits (docs/architecture.md): small folders, classes and modules, so that
the tree keeps telling the architecture as it grows."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parent.parent / "server"
#: The message catalogue is one long list of small models, on purpose.
LONG_MODULES_ALLOWED = {SERVER / "protocol.py"}
MOST_MODULES_A_FOLDER = 15
MOST_LINES_A_MODULE = 600
#: The engine's classes are the rules themselves, held apart from this limit.
LONG_CLASSES_ALLOWED_UNDER = SERVER / "engine"
MOST_LINES_A_CLASS = 300


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


def test_no_function_takes_a_board_as_booleans() -> None:
    """A leaderboard is one value, :class:`server.kinds.DayBoard`: no signature in the
    server carries it as ``bots: bool`` and ``newcomers: bool`` again (issue #42)."""
    found = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            arguments = node.args
            for argument in (
                *arguments.posonlyargs,
                *arguments.args,
                *arguments.kwonlyargs,
            ):
                annotation = argument.annotation
                if (
                    argument.arg in ("bots", "newcomers")
                    and annotation is not None
                    and "bool" in ast.unparse(annotation)
                ):
                    found.append(f"{path.relative_to(SERVER)}:{node.lineno} {node.name}")
    assert found == []


def test_no_class_outside_the_engine_is_over_300_lines() -> None:
    long = {
        f"{path.relative_to(SERVER)}:{node.name}": lines
        for path in _modules()
        if not path.is_relative_to(LONG_CLASSES_ALLOWED_UNDER)
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ClassDef)
        and (lines := (node.end_lineno or node.lineno) - node.lineno + 1) > MOST_LINES_A_CLASS
    }
    assert long == {}


def test_the_session_handlers_do_not_import_the_session() -> None:
    """The session imports its handlers: they see it as a ``Conversation`` (imported from
    its own module), never import ``session.py`` (not even to name its type)."""
    folder = SERVER / "play" / "session"
    importers = sorted(
        path.name
        for path in folder.glob("*.py")
        if path.name != "session.py"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.ImportFrom)
        and (node.module or "").endswith("session")
        and (node.level == 1 or node.module == "server.play.session.session")
    )
    assert importers == []


def test_nothing_reads_a_frames_kind_from_its_text() -> None:
    """A frame is read with its union's adapter (the bus's with ``NodeMessage``), never told
    apart by how its encoded text begins (``frame.startswith('{"type":...')``)."""
    sniffs = sorted(
        f"{path.relative_to(SERVER)}:{node.lineno}"
        for path in _modules()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in {"startswith", "endswith", "find", "index", "__contains__"}
        and any(
            isinstance(arg, ast.Constant)
            and isinstance(arg.value, str | bytes)
            and arg.value[:1] in ("{", b"{")
            for arg in node.args
        )
    )
    assert sniffs == []


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


def test_the_performance_page_is_a_reference_not_a_diary() -> None:
    """docs/performance.md says what each figure is, how to reproduce it and its latest
    value; earlier runs go to performance-history.md (issue #42)."""
    page = SERVER.parent / "docs" / "performance.md"
    assert len(page.read_text().splitlines()) <= 450
