"""``mtrain serve`` caps the C allocator's arenas before it starts a thread; a
``MALLOC_ARENA_MAX`` set by hand wins. (The memory it keeps over 100 photo reads is
measured in benchmarks/serve.py, ``photo_memory``.)"""

from __future__ import annotations

import subprocess
import sys

import pytest

from companion_app import memory, serve
from engine.errors import BadInputError

from .test_serve import parse


def test_serve_caps_the_arenas_first(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def cap(arenas: int = memory.ARENAS) -> bool:
        calls.append(arenas)
        return True

    monkeypatch.setattr(memory, "cap_arenas", cap)
    with pytest.raises(BadInputError):
        serve.serve(parse("--port", "70000"))
    assert calls == [memory.ARENAS]


def test_a_hand_set_malloc_arena_max_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert memory.cap_arenas() is False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_the_cap_is_taken_by_glibc() -> None:
    code = ("import os; os.environ.pop('MALLOC_ARENA_MAX', None);"
            "from companion_app.memory import cap_arenas; print(cap_arenas())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "True"
