"""The solver's search is compiled at install (mypyc, ``setup.py``) and must find exactly what
its Python source finds: the same outcomes, solutions and node counts, on deals of every
suit count."""

from __future__ import annotations

import importlib.util
import os
import random
from pathlib import Path
from types import ModuleType

from server.engine import Game, GameCode
from server.play.daily.deals import solver_build
from server.solver import search
from server.solver.api import _BEAMS, _QUICK


def as_python() -> ModuleType:
    """``search.py`` loaded as plain Python, beside the module the solver imports."""
    source = Path(search.__file__).with_name("search.py")
    spec = importlib.util.spec_from_file_location("search_as_python", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_search_runs_compiled_and_current_unless_asked_for_python() -> None:
    expected = "python" if os.environ.get("SIMON_PURE_PYTHON") else "compiled"
    build = solver_build()
    assert build == expected, f"the search runs {build}: `pip install -e .` compiles it again"


def test_the_compiled_search_finds_what_its_python_source_finds() -> None:
    python = as_python()
    assert python.__file__ != search.__file__ or solver_build() == "python"
    rng = random.Random(48)
    for suits in (1, 2, 4):
        for _ in range(2):
            start = tuple(
                bytes(c) for c in Game.from_code(str(GameCode(suits, rng.randrange(26**7)))).columns
            )
            for module_costs, width in _BEAMS[:2]:
                found = []
                for module in (search, python):
                    costs = module.Costs(*module_costs.weights)
                    found.append(
                        module.beam(
                            start,
                            width=width // 4,
                            costs=costs,
                            max_nodes=20_000,
                            out_of_time=lambda: False,
                        )
                    )
                assert found[0] == found[1]
            quick_costs, weight, nodes = _QUICK[0]
            found = [
                module.search(
                    start,
                    weight=weight,
                    costs=module.Costs(*quick_costs.weights),
                    max_nodes=nodes // 3,
                    out_of_time=lambda: False,
                )
                for module in (search, python)
            ]
            assert found[0] == found[1]
            assert [move[:3] for move in search.children(start)] == [
                move[:3] for move in python.children(start)
            ]
