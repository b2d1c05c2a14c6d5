"""Allocator settings for large evaluations.

Ranking ten million rows makes a few dozen temporaries of 40-80 MB. By default glibc returns
each one to the operating system when it is freed and numpy asks for transparent huge pages,
so every new temporary is faulted in (and zeroed, and on a virtual machine often compacted)
again: on the benchmark machine that was a third of the wall time. Keeping freed memory in
the heap for reuse removes that cost; peak memory is unchanged.

Set ``SCORECARD_TUNE_MALLOC=0`` to leave the process's allocator alone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

import numpy as np

_M_TRIM_THRESHOLD = -1
_M_MMAP_MAX = -4
_done = False


def keep_freed_memory() -> None:
    """Once per process: let glibc reuse freed blocks instead of unmapping them."""
    global _done
    if _done:
        return
    _done = True
    if os.environ.get("SCORECARD_TUNE_MALLOC", "1") == "0":
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(_M_MMAP_MAX, 0)
        libc.mallopt(_M_TRIM_THRESHOLD, 2**31 - 1)
    except (OSError, AttributeError):
        pass  # not glibc: nothing to tune
    set_hugepage = getattr(getattr(np, "_core", None), "multiarray", None)
    if set_hugepage is not None and hasattr(set_hugepage, "_set_madvise_hugepage"):
        set_hugepage._set_madvise_hugepage(False)
