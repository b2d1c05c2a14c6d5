"""Allocator settings for large evaluations.

Ranking ten million rows makes a few dozen temporaries of 40-80 MB. By default glibc returns
each one to the operating system when it is freed, numpy asks for transparent huge pages, and
Arrow's own allocator hands freed pages back after a few milliseconds, so every new temporary
is faulted in (and zeroed, and on a virtual machine often fetched from the host) again: on the
benchmark machine that was a third of the wall time. Keeping freed memory in one heap for
reuse removes that cost; peak memory is unchanged.

Set ``SCORECARD_TUNE_MALLOC=0`` to leave the process's allocators alone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

import numpy as np
import pyarrow as pa

_M_TRIM_THRESHOLD = -1
_M_MMAP_MAX = -4
_done = False


def keep_freed_memory(*, arrow: bool = False) -> None:
    """Let glibc reuse freed blocks instead of unmapping them (once per process).

    ``arrow=True`` also routes Arrow's buffers through glibc, so the two libraries reuse one
    heap; call it before the first Arrow allocation that should benefit (a command-line run
    does, a library call need not).
    """
    global _done
    if os.environ.get("SCORECARD_TUNE_MALLOC", "1") == "0":
        return
    if arrow:
        pa.set_memory_pool(pa.system_memory_pool())
    if _done:
        return
    _done = True
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(_M_MMAP_MAX, 0)
        libc.mallopt(_M_TRIM_THRESHOLD, 2**31 - 1)
    except (OSError, AttributeError):
        pass  # not glibc: nothing to tune
    set_hugepage = getattr(getattr(np, "_core", None), "multiarray", None)
    if set_hugepage is not None and hasattr(set_hugepage, "_set_madvise_hugepage"):
        set_hugepage._set_madvise_hugepage(False)
