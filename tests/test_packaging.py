"""The wheel carries every file the code reads at run time, not only the Python modules."""

from __future__ import annotations

import fnmatch
import tomllib
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_data_file_of_a_package_is_declared_as_package_data() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    package_data: dict[str, list[str]] = config["package-data"]
    packages = [pattern.rstrip("*") for pattern in config["packages"]["find"]["include"]]
    missing = []
    for package in packages:
        for path in (ROOT / package).rglob("*"):
            if not path.is_file() or path.suffix in {".py", ".pyc"} or "__pycache__" in path.parts:
                continue
            if path.name.endswith(tuple(EXTENSION_SUFFIXES)):
                continue  # a module compiled at install (setup.py), not data
            relative = path.relative_to(ROOT / package).as_posix()
            if not any(fnmatch.fnmatch(relative, glob) for glob in package_data.get(package, [])):
                missing.append(f"{package}/{relative}")
    assert missing == [], f"not shipped in the wheel: {missing}"
