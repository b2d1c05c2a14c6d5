"""Whether another process has a SQLite file open, and holding it so none can while a restore
swaps it.

SQLite's own locks (os_unix.c) are POSIX record locks: on the database file, the bytes from
PENDING_BYTE (2**30): pending, reserved and 510 shared bytes; every connection holds a read lock
on the shared bytes for as long as it has a WAL-mode database open, and a read lock on byte 128
of the -shm file (the "dead man switch") for as long as it uses the WAL index.
"""

from __future__ import annotations

import contextlib
import errno
import os
import struct
from collections.abc import Iterator
from pathlib import Path

from labeling.errors import ScorecardError

try:
    import fcntl
except ImportError:  # Windows has no fcntl: SQLite's own lock is the only check there
    fcntl = None

SQLITE_LOCK_START, SQLITE_LOCK_BYTES = 2**30, 512
SHM_DMS_BYTE = 128

# Open file description locks (Linux) conflict with SQLite's locks in every process, this one
# included, and stay put when another descriptor of the file closes. Elsewhere the probes find
# nothing and ``_fold_wal`` (SQLite's own exclusive lock) is the check.

_OFD = fcntl is not None and hasattr(fcntl, "F_OFD_GETLK")


def _sqlite_lock_ranges(path: Path) -> list[tuple[Path, int, int]]:
    return [
        (path, SQLITE_LOCK_START, SQLITE_LOCK_BYTES),
        (Path(f"{path}-shm"), SHM_DMS_BYTE, 1),
    ]


def _flock_request(start: int, length: int) -> bytes:
    return struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, start, length, 0)  # struct flock


def holder(path: Path) -> int | None:
    """A process that has the SQLite file ``path`` open (its PID; -1 when unknown), or None."""
    if not _OFD:
        return None
    for name, start, length in _sqlite_lock_ranges(path):
        try:
            descriptor = os.open(name, os.O_RDONLY)
        except OSError:
            continue
        try:
            answer = fcntl.fcntl(descriptor, fcntl.F_OFD_GETLK, _flock_request(start, length))
        finally:
            os.close(descriptor)
        kind, _, _, _, pid = struct.unpack("hhqqi4x", answer)
        if kind != fcntl.F_UNLCK:
            return pid if pid > 0 else -1
    return None


def in_use(path: Path) -> ScorecardError:
    """The refusal to restore over ``path`` while a process has it open, naming the process."""
    pid = holder(path)
    who = f" (process {pid})" if pid and pid > 0 else ""
    return ScorecardError(
        f"{path} is open in another process{who}: stop the app and any scorecard command "
        "using it, then restore again"
    )


@contextlib.contextmanager
def exclusively(path: Path) -> Iterator[None]:
    """Hold write locks on SQLite's lock bytes of ``path`` and on its -shm file's "dead man
    switch" byte, so that no connection has it open or can read it until the block ends.

    Raises ``ScorecardError`` naming the holder when a connection has it open.
    """
    descriptors: list[int] = []
    try:
        for name, start, length in _sqlite_lock_ranges(path) if _OFD else []:
            try:
                descriptors.append(os.open(name, os.O_RDWR))
            except FileNotFoundError:
                continue
            except OSError as error:
                raise ScorecardError(
                    f"{name}: cannot open it to restore ({error.strerror})"
                ) from error
            try:
                fcntl.fcntl(descriptors[-1], fcntl.F_OFD_SETLK, _flock_request(start, length))
            except OSError as error:
                if error.errno in (errno.EAGAIN, errno.EACCES):
                    raise in_use(path) from error
                raise
        yield
    finally:
        for descriptor in descriptors:
            os.close(descriptor)
