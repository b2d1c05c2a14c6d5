"""Backups of a live workspace with SQLite's online backup API.

The copy is taken in one backup step inside one read transaction: in WAL mode readers do not
block writers, so the app keeps saving labels while it runs, and the copy is the workspace as
of one instant (never half of a transaction). It is written next to ``out`` under a temporary
name, checked with ``PRAGMA integrity_check`` and only then renamed to ``out``, so a crash
leaves either no backup or a whole one. The copy is a single self-contained file (rollback
journal, no ``-wal`` beside it); open it with ``open_workspace`` like any workspace.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

from labeling import store
from labeling.errors import ScorecardError


@dataclass
class BackupResult:
    """Where the copy went, its size in bytes, the copy's row counts and the seconds it took."""

    path: Path
    bytes: int
    counts: dict[str, int]
    seconds: float

    def summary(self) -> str:
        """One line for the command line."""
        c = self.counts
        return (
            f"backed up to {self.path} ({self.bytes / 1024 / 1024:.1f} MB: {c['chunks']} chunks, "
            f"{c['queries']} queries, {c['runs']} runs, {c['judgments']} judgments) "
            f"in {self.seconds:.2f} s"
        )


def backup(source: str | Path, out: str | Path, *, overwrite: bool = False) -> BackupResult:
    """Copy the workspace file ``source`` to ``out`` while other connections may write to it.

    Raises ``ScorecardError`` when ``source`` is missing, ``out`` exists (unless ``overwrite``)
    or is the workspace itself, or the copy fails its integrity check.
    """
    started = time.perf_counter()
    source, out = Path(source), Path(out)
    if not source.exists():
        raise ScorecardError(f"{source}: no such workspace")
    if out.exists() and out.resolve() == source.resolve():
        raise ScorecardError(f"{out}: the backup cannot overwrite the workspace itself")
    if out.exists() and not overwrite:
        raise ScorecardError(f"{out} exists (choose another name or overwrite it explicitly)")
    if not out.parent.is_dir():
        raise ScorecardError(f"{out.parent}: no such folder")
    db = store.open_workspace(source, create=False)
    partial = out.with_name(f".{out.name}.partial-{os.getpid()}")
    try:
        target = sqlite3.connect(str(partial), isolation_level=None)
        try:
            db.conn.backup(target)  # pages=-1: one step, one consistent snapshot
            target.execute("PRAGMA journal_mode = DELETE")  # one file, nothing beside it
            problems = [r[0] for r in target.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                raise ScorecardError(f"the copy failed its integrity check: {problems[:3]}")
            counts = store.counts(sqlite_utils.Database(target))
        finally:
            target.close()
        os.replace(partial, out)  # atomic on one file system
    except sqlite3.Error as error:
        raise ScorecardError(f"backup failed: {error}") from error
    finally:
        db.conn.close()
        partial.unlink(missing_ok=True)
    return BackupResult(out, out.stat().st_size, counts, time.perf_counter() - started)
