"""Runs, their results and their per-query values as stored (``runs``, ``run_results``,
``run_values``): the reads and writes of the run importers.

Conventions
- A run being imported is staged (``importing = 1``, ``labeling.workspace.staged_runs``);
  "visible" means ``NOT importing``.
- Every function here works in the caller's transaction (or, for reads, outside one): none
  opens or commits one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence


def run_id(conn: sqlite3.Connection, name: str) -> int | None:
    """The id of the run named ``name`` (staged or visible), or None."""
    row = conn.execute("SELECT id FROM runs WHERE name = ?", [name]).fetchone()
    return None if row is None else int(row[0])


def visible_run_exists(conn: sqlite3.Connection, name: str) -> bool:
    """Whether a visible (published) run is named ``name``."""
    return conn.execute(
        "SELECT 1 FROM runs WHERE name = ? AND NOT importing", [name]).fetchone() is not None


def delete_visible_run(conn: sqlite3.Connection, name: str) -> None:
    """Delete the visible run named ``name`` (its rows go with it), if there is one."""
    conn.execute("DELETE FROM runs WHERE name = ? AND NOT importing", [name])


# The ``runs`` columns a new run's row may set (``insert_run``).
RUN_ROW_COLUMNS = frozenset({
    "name", "created_at", "metadata", "importing", "notes", "index_build", "chunk_size",
    "embedding_model", "query_set_version", "chunk_set",
})


def insert_run(conn: sqlite3.Connection, columns: Mapping[str, object]) -> int:
    """Insert a ``runs`` row of ``columns`` (column name, one of ``RUN_ROW_COLUMNS`` -> value);
    returns its id."""
    names = list(columns)
    unknown = set(names) - RUN_ROW_COLUMNS
    if unknown:
        raise ValueError(f"not columns of a new run: {sorted(unknown)}")
    cursor = conn.execute(
        f"INSERT INTO runs ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
        list(columns.values()),
    )
    return int(cursor.lastrowid)


def set_run_chunk_set(
    conn: sqlite3.Connection, run_id: int, chunk_set: str, *, with_size: bool = False
) -> None:
    """Store the chunk set run ``run_id`` retrieves from; ``with_size``: and the chunk set's
    stated size as the run's ``chunk_size``."""
    if with_size:
        conn.execute(
            "UPDATE runs SET chunk_set = ?,"
            " chunk_size = (SELECT size FROM chunk_sets WHERE name = ?) WHERE id = ?",
            [chunk_set, chunk_set, run_id],
        )
    else:
        conn.execute("UPDATE runs SET chunk_set = ? WHERE id = ?", [chunk_set, run_id])


def insert_results(
    conn: sqlite3.Connection, run_id: int, query_ids: Sequence[str], chunk_ids: Sequence[str],
    ranks: Sequence[int | None], scores: Sequence[float],
) -> int | None:
    """Insert one batch of ``run_results`` rows of run ``run_id`` by one ``executemany`` in a
    savepoint. When a pair the run already holds makes it fail, nothing of the batch stays and
    the position of the first such row in the batch is returned; None when all were stored.
    Any other integrity failure is raised."""
    conn.execute("SAVEPOINT run_batch")
    try:
        conn.executemany(
            "INSERT INTO run_results (run_id, query_id, chunk_id, rank, score)"
            " VALUES (?, ?, ?, ?, ?)",
            zip([run_id] * len(query_ids), query_ids, chunk_ids, ranks, scores, strict=True),
        )
    except sqlite3.IntegrityError:
        conn.execute("ROLLBACK TO run_batch")
        row = _first_stored(conn, run_id, query_ids, chunk_ids)
        if row is None:
            raise
        return row
    conn.execute("RELEASE run_batch")
    return None


def _first_stored(
    conn: sqlite3.Connection, run_id: int, query_ids: Sequence[str], chunk_ids: Sequence[str]
) -> int | None:
    """Position of the first (query, chunk) pair run ``run_id`` already holds."""
    payload = json.dumps([list(query_ids), list(chunk_ids)])
    rows = conn.execute(
        "SELECT min(CAST(q.key AS INTEGER)) FROM json_each(?, '$[0]') q"
        " JOIN json_each(?, '$[1]') d ON d.key = q.key"
        " JOIN run_results r ON r.run_id = ? AND r.query_id = q.value AND r.chunk_id = d.value",
        [payload, payload, run_id],
    ).fetchone()
    return None if rows[0] is None else int(rows[0])


def put_run_values(
    conn: sqlite3.Connection, run_id: int, *, measures: list[str], labels: dict, engine: str,
    queries: int, data: bytes, created_at: str,
) -> None:
    """Store (or replace) the per-query values of run ``run_id``: ``data`` is the Arrow stream
    of the values table, ``labels`` what they were computed from."""
    conn.execute(
        "INSERT OR REPLACE INTO run_values"
        " (run_id, measures, labels, engine, queries, data, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        [run_id, json.dumps(measures), json.dumps(labels, sort_keys=True), engine, queries,
         data, created_at],
    )


def delete_run(conn: sqlite3.Connection, name: str) -> None:
    """Delete the run named ``name`` (staged or visible; its rows go with it), if any."""
    conn.execute("DELETE FROM runs WHERE name = ?", [name])


def insert_ranked_results(conn: sqlite3.Connection, run_id: int, rows: Iterable[tuple]) -> None:
    """Insert ``run_results`` rows of (query_id, chunk_id, rank, score) for run ``run_id`` by
    one ``executemany``."""
    conn.executemany("INSERT INTO run_results (run_id, query_id, chunk_id, rank, score)"
                     " VALUES (?, ?, ?, ?, ?)", ((run_id, *row) for row in rows))


def run_metadata(conn: sqlite3.Connection, name: str) -> str | None:
    """The ``metadata`` JSON text of the run named ``name``; None when there is no such run
    (or it has none)."""
    row = conn.execute("SELECT metadata FROM runs WHERE name = ?", [name]).fetchone()
    return None if row is None else row[0]
