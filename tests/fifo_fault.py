"""A run part that kills the worker reading it, once: a worker failing mid-job, on cue.

The part is a named pipe. The first process other than the test's own that opens it for
reading is sent SIGKILL while it waits for data (a cluster worker dying in the middle of its
task); every later reader is served the part's text, so the engine's retry of the task reads it
normally. Nothing is left to timing: the kill happens while the reader is blocked on the pipe.
"""

from __future__ import annotations

import errno
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")
# How long a reader that opened the pipe may take to show in /proc: generous for a shared,
# busy machine, yet a reader that never shows fails the test instead of being served.
READER_SECONDS = 30.0


def _readers(path: Path) -> list[int]:
    """Processes that have ``path`` open for reading (from /proc). The write end this process
    holds does not count: seen before the reader's own descriptor shows (a busy machine), it
    would pass for a reader that is this process, and nobody would be killed."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                if os.readlink(fd) == str(path) and not _write_only(entry, fd.name):
                    found.append(int(entry.name))
                    break
        except OSError:  # gone, or not ours to look at
            continue
    return found


def _write_only(process: Path, fd: str) -> bool:
    flags = (process / "fdinfo" / fd).read_text().split("flags:")[1].split()[0]
    return int(flags, 8) & 0o3 == os.O_WRONLY


class KillFirstReader:
    """Serve ``text`` through the named pipe ``path``; kill the first outside reader."""

    def __init__(self, path: Path, text: str, timeout: float = 300.0):
        self.path, self.data, self.timeout = path, text.encode(), timeout
        self.killed: int | None = None
        self.failure: str | None = None
        self.served = 0
        self._stop = threading.Event()
        os.mkfifo(path)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _open_writer(self) -> int | None:
        """A write end once a reader waits (None when stopped or timed out)."""
        deadline = time.monotonic() + self.timeout
        while not self._stop.is_set() and time.monotonic() < deadline:
            try:
                return os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as error:
                if error.errno != errno.ENXIO:  # ENXIO: no reader yet
                    raise
                time.sleep(0.01)
        return None

    def _outside_readers(self) -> list[int] | None:
        """The readers other than this process; the reader's open() returns just after ours,
        so look for it for up to ``READER_SECONDS`` (a busy machine can take seconds). Empty
        when the reader is this process; None (and ``failure`` set) when no reader shows."""
        deadline = time.monotonic() + READER_SECONDS
        while time.monotonic() < deadline:
            readers = _readers(self.path)
            if readers:
                return [p for p in readers if p != os.getpid()]
            time.sleep(0.01)
        self.failure = (f"a reader opened {self.path.name} but no process showed holding it"
                        f" in {READER_SECONDS:.0f} s")
        return None

    def _serve(self) -> None:
        while not self._stop.is_set():
            fd = self._open_writer()
            if fd is None:
                return
            try:
                readers = self._outside_readers() if self.killed is None else []
                if readers is None:
                    return
                if readers:
                    self.killed = readers[0]
                    os.kill(self.killed, signal.SIGKILL)
                    continue
                os.set_blocking(fd, True)
                try:
                    os.write(fd, self.data)
                    self.served += 1
                except BrokenPipeError:
                    pass
            finally:
                os.close(fd)
            time.sleep(0.05)  # let that reader see the end of the pipe before the next open

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def with_one_part_killed(part: Path, evaluate: Callable[[], T]) -> T:
    """``evaluate()`` with ``part`` (a run part file) turned into a ``KillFirstReader``: the
    first worker to read it dies; checks that one did and that the part was served after."""
    text = part.read_text(encoding="utf-8")
    part.unlink()
    fault = KillFirstReader(part, text)
    try:
        result = evaluate()
    finally:
        fault.stop()
    assert fault.failure is None, fault.failure
    assert fault.killed is not None, "no worker read the part"
    assert fault.served >= 1
    return result
