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
