"""Every benchmark module imports: a benchmark is run rarely, so a renamed module or name
it uses must fail here, not months later in ``make bench``."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCHMARKS = sorted(p.stem for p in (Path(__file__).resolve().parents[1] / "benchmarks").glob(
    "*.py") if p.stem != "__init__")


def test_the_benchmarks_are_found() -> None:
    assert "run_all" in BENCHMARKS and "table" in BENCHMARKS


@pytest.mark.parametrize("name", BENCHMARKS)
def test_a_benchmark_imports(name: str) -> None:
    assert importlib.import_module(f"benchmarks.{name}").__name__ == f"benchmarks.{name}"


def test_run_all_names_only_benchmarks_that_exist() -> None:
    from benchmarks.run_all import BENCHMARKS as RUN

    assert set(RUN) <= set(BENCHMARKS)
