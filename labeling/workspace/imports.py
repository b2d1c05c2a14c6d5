"""What every importer asks of the workspace: which ids of ``queries`` or ``chunks`` it lacks,
placeholder rows for them, the ids seen across the batches of one import, the rollback of
a transaction a failed COMMIT left open, and a larger page cache for a long bulk write (an
import, a transfer of labels).

Conventions
- ``table`` is ``"queries"`` or ``"chunks"`` (both keyed by ``id``); a placeholder is a row
  with only its id and ``placeholder = 1``.
- The ids seen by one import are kept in the connection's temporary table ``import_seen``
  until ``forget_seen``.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable, Iterator

ID_TABLES = ("queries", "chunks")


def _checked(table: str) -> str:
    if table not in ID_TABLES:
        raise ValueError(f"not a table of ids: {table!r}")
    return table


def unknown_ids(conn: sqlite3.Connection, table: str, ids: Iterable[str]) -> list[str]:
    """Ids (distinct, input order) not present in ``table`` (``chunks`` or ``queries``)."""
    payload = json.dumps(list(ids))
    sql = f"SELECT value FROM json_each(?) WHERE value NOT IN (SELECT id FROM {_checked(table)})"
    return [r[0] for r in conn.execute(sql, [payload])]


def insert_placeholders(conn: sqlite3.Connection, table: str, ids: Iterable[str]) -> None:
    """Insert a placeholder row for each of ``ids`` (known to be missing) in the caller's
    transaction, by one ``executemany``."""
    conn.executemany(
        f"INSERT INTO {_checked(table)} (id, placeholder) VALUES (?, 1)", ((i,) for i in ids)
    )


def seen_before(conn: sqlite3.Connection, ids: list[str]) -> set[str]:
    """Those of ``ids`` an earlier batch of this import showed; all of ``ids`` are then
    remembered as seen (temporary table ``import_seen``)."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS import_seen (id TEXT PRIMARY KEY)")
    payload = json.dumps(ids)
    again = {
        r[0]
        for r in conn.execute(
            "SELECT value FROM json_each(?) WHERE value IN (SELECT id FROM temp.import_seen)",
            [payload],
        )
    }
    conn.execute("INSERT OR IGNORE INTO temp.import_seen SELECT value FROM json_each(?)", [payload])
    return again


def forget_seen(conn: sqlite3.Connection) -> None:
    """Forget the ids ``seen_before`` remembered (after each file of an import)."""
    conn.execute("DROP TABLE IF EXISTS temp.import_seen")


def roll_back(conn: sqlite3.Connection) -> None:
    """``ROLLBACK`` the transaction open on ``conn`` (one a failure at COMMIT left open)."""
    conn.execute("ROLLBACK")


@contextlib.contextmanager
def larger_page_cache(conn: sqlite3.Connection, kib: int) -> Iterator[None]:
    """SQLite's page cache of ``conn`` set to ``kib`` KiB for the block (a long import keeps
    its index pages in memory), then back to what it was."""
    cache = conn.execute("PRAGMA cache_size").fetchone()[0]
    conn.execute(f"PRAGMA cache_size = {-int(kib)}")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA cache_size = {cache}")
