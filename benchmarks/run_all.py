"""Run every benchmark in this folder; each writes benchmarks/results/<name>.json."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = ("engine", "vision", "table", "inline_doubles", "serve", "realism", "photoreal",
              "precision")


def main() -> int:
    sys.path.insert(0, str(HERE.parent))
    failed = []
    for name in BENCHMARKS:
        path = HERE / f"{name}.py"
        if not path.exists():
            print(f"[bench] {name}: not written yet, skipped")
            continue
        print(f"[bench] {name}")
        try:
            runpy.run_path(str(path), run_name="__main__")
        except SystemExit as exc:
            if exc.code not in (0, None):
                failed.append(name)
    if failed:
        print(f"[bench] failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
