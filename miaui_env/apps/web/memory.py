"""The browser app's memory: glibc's allocator gives each thread that allocates its own arenas,
and a search agent's sampled worlds left a waitress thread's arenas holding hundreds of MB after
its game (fragmentation, not a leak: `malloc_trim` hands it back). The server caps the arenas
before its threads start and trims after each agent game. Elsewhere than glibc both do nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

M_ARENA_MAX = -8  # mallopt's parameter number, from glibc's malloc.h
ARENAS = 2  # as MALLOC_ARENA_MAX=2: the threads share two arenas instead of up to 8 per core


@functools.cache
def _glibc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None


def limit_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's allocator arenas for threads started from now on; whether it could (glibc only)."""
    libc = _glibc()
    return bool(libc is not None and libc.mallopt(M_ARENA_MAX, arenas) == 1)


def release_memory() -> bool:
    """Hand the allocator's free memory back to the system; whether any was (glibc only)."""
    libc = _glibc()
    return bool(libc is not None and libc.malloc_trim(0) == 1)
