"""The ``mtrain`` command line: one entry point, sub-commands contributed by packages.

Each package offers a module with ``register(sub)`` that adds its parsers and
sets ``func`` on each. :data:`COMMANDS` says which module registers which
sub-command, so that running one imports only its own module: ``mtrain
moves`` loads the engine and nothing else (no OpenCV, Flask or ONNX Runtime);
``mtrain --help`` and an unknown command load them all. Heavy imports happen
inside the handlers, so that registration stays cheap either way.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence

from engine.errors import BadInputError
from vision.models.precision import check_setting

#: Sub-command -> the module that registers it, in the order of ``--help``.
COMMANDS: dict[str, str] = {
    "rules": "engine.cli",
    "moves": "engine.cli",
    "hint": "engine.cli",
    "check": "engine.cli",
    "simulate": "engine.cli",
    "read": "vision.cli.read",
    "score": "vision.cli.read",
    "calibrate": "vision.cli.read",
    "watch": "vision.cli.watch",
    "camera-plan": "vision.cli.watch",
    "mat": "vision.cli.watch",
    "train": "training.cli",
    "synth": "datasets.cli",
    "serve": "companion_app.serve",
}

#: Modules that contribute sub-commands, in the order they appear in ``--help``.
COMMAND_MODULES = tuple(dict.fromkeys(COMMANDS.values()))


def _command(argv: Sequence[str]) -> str | None:
    """The sub-command ``argv`` names (the first word that is not an option)."""
    return next((arg for arg in argv if not arg.startswith("-")), None)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with every sub-command, or only the modules ``command`` needs."""
    parser = argparse.ArgumentParser(
        prog="mtrain",
        description="A table companion for Mexican Train dominoes.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = (COMMANDS[command],) if command in COMMANDS else COMMAND_MODULES
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:  # a real missing dependency, not a missing module
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_in = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command(args_in))
    args = parser.parse_args(args_in)
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
