"""The ``mtrain`` command line: one entry point, sub-commands contributed by packages.

Each package offers a module with ``register(sub)`` that adds its parsers and
sets ``func`` on each; heavy imports happen inside the handlers so that
``mtrain --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence

from engine.errors import BadInputError
from vision.precision import check_setting

#: Modules that contribute sub-commands, in the order they appear in ``--help``.
COMMAND_MODULES = (
    "engine.cli",
    "vision.cli",
    "vision.watch_cli",
    "vision.train",
    "datasets.cli",
    "companion_app.serve",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mtrain",
        description="A table companion for Mexican Train dominoes.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:  # a real missing dependency, not a missing module
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 0
    try:
        check_setting()  # MTRAIN_PRECISION, before a model loads or a server starts
        return int(func(args) or 0)
    except BadInputError as exc:
        print(f"mtrain: {exc.source}: {exc.problem}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:  # a handler that forgot to wrap its parse
        print(f"mtrain: malformed JSON: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mtrain: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
