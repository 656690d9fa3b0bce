"""``python -m bench --smoke`` (bench/__main__.py): every bench declares its smoke arguments,
and the run tells a bench that failed or hung from one that ran."""

from __future__ import annotations

import types
from pathlib import Path

import pytest

from bench.__main__ import Bench, discover, modules, run_one, smoke, smoke_arguments

BENCH = Path(__file__).resolve().parents[2] / "bench"


def runnable() -> set[str]:
    """The modules of bench/ that run as programs (``python -m bench.X``)."""
    names = set()
    for path in BENCH.rglob("*.py"):
        if path.name != "__main__.py" and 'if __name__ == "__main__":' in path.read_text():
            names.add(".".join(path.relative_to(BENCH.parent).with_suffix("").parts))
    return names


def test_every_bench_module_declares_its_smoke_arguments() -> None:
    found = {module.__name__: module for module in modules()}
    assert runnable() <= found.keys()
    missing = sorted(name for name in runnable() if not hasattr(found[name], "SMOKE"))
    assert missing == [], f"no SMOKE (its arguments at a tiny size, or None): {missing}"


def test_the_smoke_run_takes_the_benches_of_every_subpackage_and_skips_workers() -> None:
    names = {bench.name for bench in discover()}
    assert {"bench.engine", "bench.leaderboard", "bench.solver.run", "bench.fairplay.run"} <= names
    assert "bench.crowd" not in names  # a worker of the soak benches: SMOKE = None
    assert all(name in runnable() for name in names)


def test_smoke_arguments_are_a_command_line_split_as_a_shell_would() -> None:
    module = types.ModuleType("bench.example")
    module.__dict__["SMOKE"] = "--rows 1000 --note 'two words'"
    assert smoke_arguments(module) == ("--rows", "1000", "--note", "two words")
    module.__dict__["SMOKE"] = ["--rows", "1000"]
    with pytest.raises(TypeError):
        smoke_arguments(module)


def test_a_failed_bench_fails_the_run_and_shows_its_output() -> None:
    lines: list[str] = []
    status = smoke(
        [Bench("json.tool", ("--help",)), Bench("bench.no_such_bench", ())], say=lines.append
    )
    assert status == 1
    assert any(line.startswith("json.tool") and " ok " in line for line in lines)
    assert any(line.startswith("bench.no_such_bench") and "FAILED" in line for line in lines)
    assert any("No module named bench.no_such_bench" in line for line in lines)
    assert lines[-1].startswith("bench smoke: FAILED: bench.no_such_bench")


def test_a_run_where_every_bench_ran_exits_zero() -> None:
    lines: list[str] = []
    assert smoke([Bench("json.tool", ("--help",))], jobs=2, say=lines.append) == 0
    assert lines[-1].startswith("bench smoke: all 1 benches ran")


def test_a_bench_still_running_at_its_timeout_is_stopped_and_fails() -> None:
    sleeper = Bench("timeit", ("-n", "1", "-r", "1", "import time; time.sleep(120)"))
    outcome = run_one(sleeper, timeout=1)
    assert not outcome.ok
    assert "(stopped: still running after 1 s)" in outcome.tail
