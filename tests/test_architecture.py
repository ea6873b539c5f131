"""The project's shape, checked: import contracts, function complexity, module length.

The import contracts (``[tool.importlinter]`` in pyproject.toml) and ruff's
McCabe limit run here as well as in ``make lint``, so ``make test`` alone keeps
the architecture. A module grows past ``MAX_LINES`` only by being split.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The most lines a Python module of the project may have.
MAX_LINES = 600

#: Modules still over ``MAX_LINES``, each to be split. The list only shrinks:
#: a module that gets under the limit must leave it (a test says so).
OVER_LIMIT: frozenset[str] = frozenset()

#: Folders that hold no project code (environments, caches, generated data).
SKIPPED = frozenset({"data", "runs", "build", "instance", "var", "node_modules"})


def project_modules() -> dict[str, int]:
    """Every Python file of the project, as a repository-relative path, with its line count."""
    found: dict[str, int] = {}
    stack = [ROOT]
    while stack:
        folder = stack.pop()
        for path in folder.iterdir():
            if path.is_dir():
                skip = path.name.startswith(".") or path.name in SKIPPED
                if not skip and not path.name.endswith(".egg-info"):
                    stack.append(path)
            elif path.suffix == ".py":
                with path.open("rb") as handle:
                    found[path.relative_to(ROOT).as_posix()] = sum(1 for _ in handle)
    return found


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    """Runs a lint tool of this interpreter's environment from the repository root."""
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_the_walk_finds_the_packages_tests_and_benchmarks() -> None:
    modules = project_modules()
    assert "engine/__init__.py" in modules
    assert "tests/test_architecture.py" in modules
    assert "benchmarks/run_all.py" in modules
    assert not any(name.startswith(".venv/") for name in modules)


def test_no_module_is_longer_than_the_limit() -> None:
    too_long = {
        name: lines
        for name, lines in project_modules().items()
        if lines > MAX_LINES and name not in OVER_LIMIT
    }
    assert not too_long, f"split these modules to {MAX_LINES} lines or fewer: {too_long}"


def test_the_over_limit_list_only_names_modules_still_over_it() -> None:
    modules = project_modules()
    stale = sorted(name for name in OVER_LIMIT if modules.get(name, 0) <= MAX_LINES)
    assert not stale, f"remove from OVER_LIMIT (gone or now short enough): {stale}"


def test_import_contracts_are_kept() -> None:
    result = run_tool(
        "-c",
        "import sys; from importlinter.cli import lint_imports_command;"
        " sys.exit(lint_imports_command(['--no-cache']))",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_function_is_more_complex_than_the_limit() -> None:
    result = run_tool("-m", "ruff", "check", "--select", "C901", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout + result.stderr
