"""Run files (TREC, CSV, JSON lines...) stored under a run name, streamed in batches."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import sqlite_utils

from labeling.errors import InputError
from labeling.files import formats
from labeling.files.importers.ids import ensure_pair_ids, first_duplicate
from labeling.files.importers.lines import RowLines, batches
from labeling.files.importers.result import ImportResult
from labeling.files.importers.transaction import import_transaction
from labeling.workspace import chunk_sets
from labeling.workspace.ids import check_run_name
from labeling.workspace.run_parts import write_run_parts
from labeling.workspace.store import utc_now

RUN_COLUMNS = ("index_build", "chunk_size", "embedding_model", "query_set_version", "notes",
               "chunk_set")
IMPORT_CACHE_KIB = 64 * 1024  # SQLite page cache while a run imports
RUN_BATCH_ROWS = 50_000  # measured: 1M-row run peaks ~300 MB RSS (200k: ~430 MB), same speed


def import_run(
    db: sqlite_utils.Database,
    path: str | Path,
    run_name: str,
    meta: Mapping[str, Any] | None = None,
    strict: bool = False,
    *,
    replace: bool = False,
    format: str | None = None,
    batch_rows: int = RUN_BATCH_ROWS,
) -> ImportResult:
    """Store a run file under ``run_name``, streaming ``batch_rows`` rows at a time.

    ``meta`` keys index_build, chunk_size, embedding_model, query_set_version, notes and
    chunk_set (the name of a chunk set the run retrieves from) fill the ``runs`` columns; any
    other key goes to ``runs.metadata``. A (query, doc) pair listed twice is an error naming the
    line; an existing name is an error unless ``replace=True``.
    """
    source = str(path)
    cache = db.conn.execute("PRAGMA cache_size").fetchone()[0]
    db.conn.execute(f"PRAGMA cache_size = {-IMPORT_CACHE_KIB}")  # index pages stay in memory
    try:
        with import_transaction(db, source) as conn:
            run_id = _create_run(conn, run_name, meta, replace, source)
            frames = formats.iter_run_batches(path, format=format, batch_rows=batch_rows)
            result = _store_run(
                conn, run_id, batches(frames, path, format), strict=strict, source=source
            )
            if result.rows == 0:
                raise InputError("no results in the run file", source=source)
            if not (meta or {}).get("chunk_set"):
                _infer_chunk_set(conn, run_id, run_name, result)
            write_run_parts(conn, run_id)  # the columnar copy the scores read
    finally:
        db.conn.execute(f"PRAGMA cache_size = {cache}")
    return result


def _create_run(
    conn: sqlite3.Connection,
    run_name: str,
    meta: Mapping[str, Any] | None,
    replace: bool,
    source: str,
) -> int:
    check_run_name(run_name, source)
    row = conn.execute("SELECT id FROM runs WHERE name = ?", [run_name]).fetchone()
    if row is not None:
        if not replace:
            raise InputError(
                f"a run named {run_name!r} already exists (replace it explicitly)", source=source
            )
        conn.execute("DELETE FROM runs WHERE id = ?", [row[0]])  # cascades to run_results
    meta = dict(meta or {})
    columns = {k: meta.pop(k) for k in RUN_COLUMNS if k in meta}
    if "chunk_size" in columns:
        try:
            columns["chunk_size"] = int(columns["chunk_size"])
        except (TypeError, ValueError) as error:
            raise InputError(
                f"chunk_size must be an integer, not {columns['chunk_size']!r}", source=source
            ) from error
    if columns.get("chunk_set") is not None and conn.execute(
        "SELECT 1 FROM chunk_sets WHERE name = ?", [columns["chunk_set"]]
    ).fetchone() is None:
        raise InputError(f"no chunk set named {columns['chunk_set']!r}", source=source)
    names = ["name", "created_at", "metadata", *columns]
    values = [
        run_name,
        utc_now(),
        json.dumps(meta, ensure_ascii=False, default=str),
        *columns.values(),
    ]
    cursor = conn.execute(
        f"INSERT INTO runs ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})", values
    )
    return int(cursor.lastrowid)


def _infer_chunk_set(
    conn: sqlite3.Connection, run_id: int, run_name: str, result: ImportResult
) -> None:
    """Name the chunk set of a run imported without one when its chunk ids say it: the one chunk
    set holding every retrieved chunk that belongs to any (``chunk_sets.infer_chunk_set``);
    otherwise a warning that the run is scored against every chunk set's labels."""
    name, warning = chunk_sets.infer_chunk_set(conn, run_id, run_name)
    if name is not None:
        conn.execute("UPDATE runs SET chunk_set = ? WHERE id = ?", [name, run_id])
    if warning:
        result.warnings.append(warning)


def _store_run(
    conn: sqlite3.Connection,
    run_id: int,
    frames: Iterable[tuple[pd.DataFrame, RowLines]],
    *,
    strict: bool,
    source: str,
) -> ImportResult:
    result = ImportResult("run")
    added_q = added_c = 0  # placeholder queries and chunks
    for batch, lines in frames:
        dup = first_duplicate(batch, ["query_id", "doc_id"])
        if dup is not None:
            raise _duplicate(batch, dup, lines, source)
        queries, chunks = ensure_pair_ids(conn, batch, lines, strict=strict, source=source)
        added_q, added_c = added_q + queries, added_c + chunks
        _insert_results(conn, run_id, batch, lines, source)
        result.rows += len(batch)
    result.add_placeholders(added_q, added_c)
    return result


def _insert_results(
    conn: sqlite3.Connection, run_id: int, batch: pd.DataFrame, lines: RowLines, source: str
) -> None:
    """Insert one batch of results; a pair an earlier batch stored is an error naming its line."""
    ranks = (
        batch["rank"].astype("Int64").astype(object).where(batch["rank"].notna(), None).tolist()
        if "rank" in batch.columns
        else [None] * len(batch)
    )
    conn.execute("SAVEPOINT run_batch")
    try:
        conn.executemany(
            "INSERT INTO run_results (run_id, query_id, chunk_id, rank, score)"
            " VALUES (?, ?, ?, ?, ?)",
            zip(
                [run_id] * len(batch),
                batch["query_id"].tolist(),
                batch["doc_id"].tolist(),
                ranks,
                batch["score"].astype("float64").tolist(),
                strict=True,
            ),
        )
    except sqlite3.IntegrityError as error:
        conn.execute("ROLLBACK TO run_batch")
        row = _first_stored(conn, run_id, batch)
        if row is None:
            raise
        raise _duplicate(batch, row, lines, source, earlier=True) from error
    conn.execute("RELEASE run_batch")


def _duplicate(
    batch: pd.DataFrame, row: int, lines: RowLines, source: str, earlier: bool = False
) -> InputError:
    pair = (batch["query_id"].iloc[row], batch["doc_id"].iloc[row])
    return InputError(
        f"query {pair[0]!r} lists doc {pair[1]!r} twice"
        + (" (it appeared on an earlier line)" if earlier else ""),
        source=source,
        line=int(lines[row]),
    )


def _first_stored(conn: sqlite3.Connection, run_id: int, batch: pd.DataFrame) -> int | None:
    """Position of the first batch row whose pair the run already holds (cross-batch duplicate)."""
    payload = json.dumps([batch["query_id"].tolist(), batch["doc_id"].tolist()])
    rows = conn.execute(
        "SELECT min(CAST(q.key AS INTEGER)) FROM json_each(?, '$[0]') q"
        " JOIN json_each(?, '$[1]') d ON d.key = q.key"
        " JOIN run_results r ON r.run_id = ? AND r.query_id = q.value AND r.chunk_id = d.value",
        [payload, payload, run_id],
    ).fetchone()
    return None if rows[0] is None else int(rows[0])
