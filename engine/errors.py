"""Errors that mean "the input is wrong", as opposed to a bug in mtrain."""

from __future__ import annotations


class BadInputError(ValueError):
    """Bad input from a user: a missing file, malformed JSON, an impossible state.

    The command line prints ``mtrain: <source>: <problem>`` on one line and
    exits with status 2; it never shows a traceback for this error.
    """

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.problem = problem
