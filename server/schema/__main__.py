"""``python -m server.schema [--check] [FOLDER]``: write the generated contract to FOLDER
(``docs/schema`` by default), or with ``--check`` exit 1 when a file there is not current."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import DOCUMENTS, FILES, render

DEFAULT = Path(__file__).resolve().parents[2] / "docs" / "schema"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.schema", description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT)
    arguments = parser.parse_args(argv)
    stale = []
    for name, make in DOCUMENTS.items():
        path = arguments.folder / FILES[name]
        text = render(make())
        if arguments.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path}")
    if stale:
        print(f"stale: {', '.join(stale)}: run python -m server.schema", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
