"""The solver's search compiled to C with mypyc where a C compiler is found (reviews and
proofs about three times quicker); without one the same module runs as plain Python."""

from __future__ import annotations

import os

from setuptools import Extension, setup

#: The modules compiled: the solver's inner loops (docs/performance.md, "Solver").
COMPILED = ["server/solver/search.py"]


def compiled_modules() -> list[Extension]:
    if os.environ.get("SIMON_PURE_PYTHON"):
        return []
    from mypyc.build import mypycify

    extensions = mypycify(["--config-file=", *COMPILED], opt_level="3")
    for extension in extensions:
        extension.optional = True  # no compiler: a warning, and the module stays Python
    return extensions


setup(ext_modules=compiled_modules())
