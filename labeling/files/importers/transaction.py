"""The write transaction of an import: all of a file or nothing, failures named after the file."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from labeling.errors import InputError, storage_problem
from labeling.workspace import imports
from labeling.workspace.store import write_transaction

if TYPE_CHECKING:
    import sqlite_utils


@contextmanager
def import_transaction(db: sqlite_utils.Database, source: str) -> Iterator[sqlite3.Connection]:
    """``write_transaction`` (action ``import``: admins only) that turns SQLite failures into an
    ``InputError`` naming ``source``.

    A failure at COMMIT (a full disk shows there, when the write-ahead log grows) leaves the
    transaction open in SQLite; it is rolled back here so that nothing of the file stays.
    """
    try:
        with write_transaction(db, action="import") as conn:
            yield conn
    except sqlite3.Error as failure:  # in the import, or at COMMIT or ROLLBACK
        if db.conn.in_transaction:
            imports.roll_back(db.conn)
        raise InputError(
            f"could not store the file: {storage_problem(failure)}; nothing was imported",
            source=source,
        ) from failure
