"""A server whose memory stays flat: the C allocator's arenas capped.

glibc's malloc gives each thread that meets contention an arena of its own,
up to eight per core, and keeps what each arena once held. Photo decoding and
reading (OpenCV, ONNX Runtime) allocate hundreds of megabytes at a time from
whichever request thread runs them, so a server with a few dozen threads
grows by an arena's worth of free memory per thread that ever read a photo.
Capping the arenas (``mallopt(M_ARENA_MAX)``, what the ``MALLOC_ARENA_MAX``
environment variable sets) makes the threads share them, and the memory
freed after one read serves the next. ``mtrain serve`` calls
:func:`cap_arenas` before it starts any thread; ``MALLOC_ARENA_MAX`` set by
hand wins. Elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

#: Arenas the server's threads share.
ARENAS = 2
M_ARENA_MAX = -8  # glibc's malloc.h

__all__ = ["ARENAS", "cap_arenas"]


def cap_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas at ``arenas`` for this process; whether it was done
    (False: ``MALLOC_ARENA_MAX`` is set already, or the C library is not glibc)."""
    if os.environ.get("MALLOC_ARENA_MAX"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_ARENA_MAX, arenas))
