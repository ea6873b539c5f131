"""Run every benchmark of this package (``python -m benchmarks.run_all``); each writes
benchmarks/results/<name>.json."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = ("engine", "vision", "hands", "bare_photos", "table", "inline_doubles", "serve",
              "realism", "photoreal", "composite", "sequences", "precision")


def main() -> int:
    failed = []
    for name in BENCHMARKS:
        path = HERE / f"{name}.py"
        if not path.exists():
            print(f"[bench] {name}: not written yet, skipped")
            continue
        print(f"[bench] {name}")
        try:
            runpy.run_module(f"benchmarks.{name}", run_name="__main__", alter_sys=True)
        except SystemExit as exc:
            if exc.code not in (0, None):
                failed.append(name)
    if failed:
        print(f"[bench] failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
