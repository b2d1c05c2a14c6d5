"""Provenance: who or what made each judgment, and how each judged pair reached the judges.

Conventions
- A judgment's ``origin`` is one of ``ORIGINS``: ``person`` (someone judging in the app),
  ``import`` (a qrels file; ``origin_source`` is the file's name), ``generator`` (the
  synthetic-question generator's label of a question's source passage), ``machine`` (a model;
  ``origin_source`` names model and prompt), ``transferred`` (carried over from another chunk
  set) and ``unknown`` (rows stored before origins were recorded).
- A pair's sources are rows of ``pair_sources``, one of ``PAIR_SOURCES``: ``pool`` (a run's top
  ``pool_depth`` results), ``search`` (found by a corpus search), ``import``, ``synthetic``,
  ``transfer`` and ``queue`` (queued by hand). ``pool_depth`` is set for pools only.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence

import pyarrow as pa
import sqlite_utils

from labeling.errors import InputError
from labeling.workspace.columnar import read_columns, table_of_rows
from labeling.workspace.store import utc_now

ORIGINS = ("person", "import", "generator", "machine", "transferred", "unknown")
PAIR_SOURCES = ("pool", "search", "import", "synthetic", "transfer", "queue")
# What a count of judgments of each origin is, in words (``judgments_by_origin``).
ORIGIN_WORDS = {
    "person": "by people", "import": "imported", "generator": "by the question generator",
    "machine": "by machine judges", "transferred": "transferred from another chunk set",
    "unknown": "of unknown origin",
}


def judgments_by_origin(conn: sqlite3.Connection) -> dict[str, int]:
    """Stored judgment rows (every grade ever given, a changed grade being a new row) per
    origin, in ``ORIGINS`` order, origins without rows left out."""
    found = dict(conn.execute("SELECT origin, count(*) FROM judgments GROUP BY origin"))
    return {origin: int(found[origin]) for origin in ORIGINS if found.get(origin)}


def describe_origins(by_origin: dict[str, int]) -> str:
    """``judgments_by_origin`` in words: "612 by people, 1,301 transferred from another chunk
    set" ("none yet" when empty)."""
    return ", ".join(f"{n:,} {ORIGIN_WORDS[origin]}" for origin, n in by_origin.items()) \
        or "none yet"


def check_origin(origin: str) -> str:
    """``origin`` itself, or ``InputError`` naming the allowed ones."""
    if origin not in ORIGINS:
        raise InputError(f"unknown judgment origin {origin!r}; one of {', '.join(ORIGINS)}",
                         source="judgment")
    return origin


def add_pair_sources(
    conn: sqlite3.Connection,
    pairs: Iterable[tuple[str, str]],
    source: str,
    *,
    pool_depth: int | None = None,
    detail: str | None = None,
) -> int:
    """Record that each (query id, chunk id) pair reached the judges through ``source``, inside
    the caller's transaction; returns the number of rows written."""
    if source not in PAIR_SOURCES:
        raise InputError(f"unknown pair source {source!r}; one of {', '.join(PAIR_SOURCES)}",
                         source="pair sources")
    if (pool_depth is not None) != (source == "pool"):
        raise InputError("a pool depth is given for pools, and only for them",
                         source="pair sources")
    created_at = utc_now()
    cursor = conn.executemany(
        "INSERT INTO pair_sources (query_id, chunk_id, source, pool_depth, detail, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        ((query_id, chunk_id, source, pool_depth, detail, created_at)
         for query_id, chunk_id in pairs),
    )
    return cursor.rowcount


# ---------------------------------------------------------------------------------------------
# Reads and writes used by labeling.judging


def chunks_with_source(conn: sqlite3.Connection, query_id: str, source: str) -> set[str]:
    """The chunk ids of ``query_id``'s pairs that reached the judges through ``source``."""
    rows = conn.execute(
        "SELECT DISTINCT chunk_id FROM pair_sources WHERE query_id = ? AND source = ?",
        [query_id, source],
    ).fetchall()
    return {r[0] for r in rows}


def sources_of_pair(conn: sqlite3.Connection, query_id: str,
                    chunk_id: str) -> list[tuple[str, int | None]]:
    """(source, pool depth) of each ``pair_sources`` row of a pair, oldest first."""
    return conn.execute(
        "SELECT source, pool_depth FROM pair_sources WHERE query_id = ? AND chunk_id = ?"
        " ORDER BY id",
        [query_id, chunk_id],
    ).fetchall()
# Reads and writes used by labeling.evaluation

# A pool's depth, when the pool was recorded no later than the pair's first judgment: a pool
# queued over a label already made did not bring that pair to the judges.
_JUDGED_POOL_DEPTH = (
    "CASE WHEN source = 'pool' AND NOT EXISTS (SELECT 1 FROM judgments j"
    " WHERE j.query_id = pair_sources.query_id AND j.chunk_id = pair_sources.chunk_id"
    " AND j.created_at < pair_sources.created_at) THEN pool_depth END")


def pair_sources_version(db: sqlite_utils.Database) -> int | None:
    """The newest ``pair_sources`` id (None when none is recorded): changes with every new
    record."""
    return db.conn.execute("SELECT max(id) FROM pair_sources").fetchone()[0]


def queue_pairs_recorded(conn: sqlite3.Connection, detail: str) -> set[tuple[str, str]]:
    """(query_id, chunk_id) of the pairs recorded as brought by the queue with ``detail``."""
    return set(conn.execute(
        "SELECT query_id, chunk_id FROM pair_sources WHERE source = 'queue' AND detail = ?",
        [detail]).fetchall())


def pair_source_rows(db: sqlite_utils.Database, other_sources: Sequence[str],
                     query_ids: list[str] | None = None) -> pa.Table:
    """One row per recorded pair source (of ``query_ids``; of every query when None):
    query_id, chunk_id, depth (the pool's depth when a pool brought the pair before its first
    judgment, else null) and other (the source's position in ``other_sources``, null when it
    is not one). Every row is read as columns (``columnar.read_columns``); a few queries'
    through the pair index."""
    other = "CASE source " + " ".join(
        f"WHEN '{name}' THEN {rank}" for rank, name in enumerate(other_sources)) + " END"
    columns = {"depth": _JUDGED_POOL_DEPTH, "other": other}
    if query_ids is None:
        return read_columns(db.conn, "pair_sources", text=["query_id", "chunk_id"],
                            integer=columns)
    found = db.conn.execute(
        f"SELECT query_id, chunk_id, {_JUDGED_POOL_DEPTH}, {other} FROM pair_sources"
        " WHERE query_id IN (SELECT value FROM json_each(?))", [json.dumps(query_ids)],
    ).fetchall()
    return table_of_rows(found, {"query_id": pa.string(), "chunk_id": pa.string(),
                                 "depth": pa.int64(), "other": pa.int64()})
