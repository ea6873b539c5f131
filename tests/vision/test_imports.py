"""The runtime vision package stands on its own: it imports neither the data generator
nor training, and no two of its modules import each other (lazy imports count)."""

from __future__ import annotations

import ast
from pathlib import Path

VISION = Path(__file__).resolve().parents[2] / "vision"


def _imports() -> dict[str, set[str]]:
    """Each vision module's imported modules, at any depth of its code."""
    out: dict[str, set[str]] = {}
    for path in sorted(VISION.rglob("*.py")):
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                deps.add(node.module)
            elif isinstance(node, ast.Import):
                deps.update(alias.name for alias in node.names)
        parts = path.relative_to(VISION.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = deps
    return out


def test_vision_imports_neither_datasets_nor_training() -> None:
    assert len(_imports()) > 20  # the package was found
    above = {module: sorted(d for d in deps if d.split(".")[0] in ("datasets", "training"))
             for module, deps in _imports().items()}
    assert {m: d for m, d in above.items() if d} == {}


def test_no_vision_modules_import_each_other_in_a_cycle() -> None:
    graph = {module: {d for d in deps if d.startswith("vision.")}
             for module, deps in _imports().items() if module != "vision"}
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done
    cycles: list[list[str]] = []

    def walk(module: str, path: list[str]) -> None:
        state[module] = 1
        for dep in sorted(graph.get(module, ())):
            if state.get(dep) == 1:
                cycles.append([*path[path.index(dep):], dep])
            elif dep not in state:
                walk(dep, [*path, dep])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])
    assert cycles == []
