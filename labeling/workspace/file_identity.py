"""Notice when the workspace file under an open connection is deleted or replaced.

A SQLite connection keeps using the files it opened, whatever happens to their names: when the
``-wal`` file is deleted, or the workspace is replaced by another file (``mv``, a restore done by
hand), the connection goes on "saving" into files no other process reads, and the work is lost
when it closes. So ``open_workspace`` records, per connection, the identity (device, inode) of
the workspace file and of its ``-wal`` and ``-shm`` files as they are while the connection has
them open; ``write_transaction`` checks before each write that the names still point at them.

While a connection is open SQLite never deletes or recreates the ``-wal`` and ``-shm`` files
(only the last connection to close removes them; checkpoints rewrite them in place), so a
different identity always means someone else removed or replaced them. A file overwritten in
place (``cp backup.db scorecard.db``) keeps its inode and is not noticed here; use ``scorecard
restore``, which refuses while any process has the workspace open.

``database_file(db)`` is the one answer to "which file did this connection open".
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import sqlite_utils

from labeling.errors import ScorecardError

# Database objects carry the identity in this attribute (sqlite3.Connection takes neither
# attributes nor weak references).
_ATTRIBUTE = "_scorecard_file_identity"
SIDE_FILES = ("-wal", "-shm")

FileId = tuple[int, int]  # (st_dev, st_ino)


class WorkspaceReplacedError(ScorecardError):
    """The workspace file, or its ``-wal``/``-shm`` file, is not the one the connection uses."""


@dataclass(frozen=True)
class FileIdentity:
    """The workspace path and the identities of it and its side files when the connection
    opened them (``None`` for a side file that did not exist, e.g. outside WAL mode)."""

    path: Path
    main: FileId
    sides: dict[str, FileId | None]


def _file_id(path: Path) -> FileId | None:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return info.st_dev, info.st_ino


def database_file(db: sqlite_utils.Database) -> Path | None:
    """The file of the connection's main database as SQLite resolved it (absolute), or None
    for an in-memory or temporary database."""
    row = db.conn.execute("PRAGMA database_list").fetchone()
    return Path(row[2]) if row and row[2] else None


def remember(db: sqlite_utils.Database) -> sqlite_utils.Database:
    """Record the identity of ``db``'s files; call right after opening (returns ``db``).

    The connection must already have read the database, so that in WAL mode it holds its
    ``-wal`` and ``-shm`` files open (``open_workspace`` reads the journal mode first).
    """
    path = database_file(db)
    main = _file_id(path) if path else None
    if path is not None and main is not None:
        sides = {suffix: _file_id(Path(f"{path}{suffix}")) for suffix in SIDE_FILES}
        setattr(db, _ATTRIBUTE, FileIdentity(path, main, sides))
    return db


def identity_of(db: sqlite_utils.Database) -> FileId | None:
    """(device, inode) of the workspace file when ``db`` opened it (None when not recorded):
    tells apart two files that were at the same path."""
    identity: FileIdentity | None = getattr(db, _ATTRIBUTE, None)
    return None if identity is None else identity.main


def changed_file(db: sqlite_utils.Database) -> str | None:
    """Which of ``db``'s files was deleted or replaced since it was opened, or None.

    None also when ``db`` was not opened through ``remember`` (nothing to compare with).
    """
    identity: FileIdentity | None = getattr(db, _ATTRIBUTE, None)
    if identity is None:
        return None
    if _file_id(identity.path) != identity.main:
        return str(identity.path)
    for suffix, recorded in identity.sides.items():
        if recorded is not None and _file_id(Path(f"{identity.path}{suffix}")) != recorded:
            return f"{identity.path}{suffix}"
    return None


def check_unchanged(db: sqlite_utils.Database) -> None:
    """Raise ``WorkspaceReplacedError`` when a file under ``db`` was deleted or replaced.

    Called by ``store.write_transaction`` after ``BEGIN IMMEDIATE``, so the write is rolled back
    and nothing is reported saved.
    """
    changed = changed_file(db)
    if changed is not None:
        raise WorkspaceReplacedError(
            f"the workspace file {changed} was deleted or replaced while the app was running, "
            "so nothing was saved: restart the app (or reopen the workspace) to work on the "
            "file that is there now"
        )
