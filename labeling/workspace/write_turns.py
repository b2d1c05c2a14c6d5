"""Turns at the write lock between a bulk writer and the saves of the same process.

SQLite's busy handler is not a queue: a waiting connection sleeps (1, 2, 5 ... 100 ms) and
tries again, while a bulk writer that commits and begins its next transaction at once takes
the lock back first almost every time, so a save could wait behind a whole import of short
transactions. ``waiting_for_lock`` counts this process's connections waiting to begin a write
transaction; a bulk writer calls ``let_waiting_writers_in`` between two of its transactions
and pauses until they have had their turn. Writers in other processes cannot be counted: for
them the bulk writer pauses ``OTHER_PROCESS_GAP_S`` every time.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

OTHER_PROCESS_GAP_S = 0.005  # a pause in which another process's waiting save can wake
MOST_WAIT_S = 0.5  # a bulk writer waits at most this long for the waiting writers
_turns = threading.Condition()
_waiting = 0


@contextlib.contextmanager
def waiting_for_lock() -> Iterator[None]:
    """Count the block (a ``BEGIN IMMEDIATE``) as a writer waiting for the lock."""
    global _waiting
    with _turns:
        _waiting += 1
    try:
        yield
    finally:
        with _turns:
            _waiting -= 1
            _turns.notify_all()


def let_waiting_writers_in() -> None:
    """Pause until the writers of this process that were waiting have begun (at most
    ``MOST_WAIT_S``), or ``OTHER_PROCESS_GAP_S`` when none were."""
    deadline = time.monotonic() + MOST_WAIT_S
    with _turns:
        while _waiting and time.monotonic() < deadline:
            _turns.wait(deadline - time.monotonic())
    time.sleep(OTHER_PROCESS_GAP_S)
