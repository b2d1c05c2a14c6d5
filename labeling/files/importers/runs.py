"""Run files (TREC, CSV, JSON lines...) stored under a run name, streamed in batches."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from labeling.errors import InputError
from labeling.files import formats
from labeling.files.importers.ids import first_duplicate, missing_ids
from labeling.files.importers.lines import RowLines, batches
from labeling.files.importers.result import ImportResult
from labeling.files.importers.transaction import import_transaction
from labeling.workspace import chunk_sets, imports, runs, staged_runs, write_turns
from labeling.workspace.ids import check_run_name
from labeling.workspace.run_parts import insert_run_part, run_part_rows
from labeling.workspace.store import utc_now

if TYPE_CHECKING:
    import sqlite_utils

RUN_COLUMNS = ("index_build", "chunk_size", "embedding_model", "query_set_version", "notes",
               "chunk_set")
IMPORT_CACHE_KIB = 64 * 1024  # SQLite page cache while a run imports
RUN_BATCH_ROWS = 50_000  # measured: 1M-row run peaks ~300 MB RSS (200k: ~430 MB), same speed
STAGE_ROWS = 2_000  # rows per write transaction (~0.1 s): what a save waits behind at most


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

    The run is staged (``labeling.workspace.staged_runs``): its rows go in by transactions of
    ``STAGE_ROWS``, so other writers (saves) wait at most one of them, and it becomes visible,
    replacing a run of the same name, in one short final transaction. On any failure the
    staged rows are deleted: nothing of the file is seen.
    """
    source = str(path)
    check_run_name(run_name, source)
    _refuse_taken(db.conn, run_name, replace, source)
    with import_transaction(db, source) as conn:
        run_id = _create_run(conn, staged_runs.staged_name(), meta, source)
    with imports.larger_page_cache(db.conn, IMPORT_CACHE_KIB):  # index pages stay in memory
        try:
            result = _stage(db, run_id, path, format, batch_rows, strict, source)
            chunk_set = None
            if not (meta or {}).get("chunk_set"):  # a read, outside the write lock
                chunk_set = _infer_chunk_set(db.conn, run_id, run_name, result)
            replaced = _publish(db, run_id, run_name, replace, result, source, chunk_set)
        except BaseException:
            _drop_staged(db, run_id)
            raise
    if replaced is not None:
        staged_runs.discard(db.conn, replaced)
    return result


def _refuse_taken(conn: sqlite3.Connection, run_name: str, replace: bool, source: str) -> None:
    if runs.visible_run_exists(conn, run_name) and not replace:
        raise InputError(
            f"a run named {run_name!r} already exists (replace it explicitly)", source=source
        )


def _stage(
    db: sqlite_utils.Database, run_id: int, path: str | Path, format: str | None,
    batch_rows: int, strict: bool, source: str,
) -> _Staged:
    """Store the file's rows and the run's parts under staged run ``run_id``."""
    frames = formats.iter_run_batches(path, format=format, batch_rows=batch_rows)
    with staged_runs.foreign_keys_off(db.conn):  # placeholders come at publishing
        result = _store_run(db, run_id, batches(frames, Path(path), format), strict=strict,
                            source=source)
    if result.rows == 0:
        raise InputError("no results in the run file", source=source)
    for row in run_part_rows(db.conn, run_id):  # built outside the write lock
        with import_transaction(db, source) as conn:
            insert_run_part(conn, row)
        write_turns.let_waiting_writers_in()
    return result


def _publish(
    db: sqlite_utils.Database, run_id: int, run_name: str, replace: bool, result: _Staged,
    source: str, chunk_set: str | None = None,
) -> int | None:
    """Add the placeholders, store an inferred ``chunk_set`` and make the run visible; returns
    the id of the run it replaced."""
    few = sum(map(len, result.unknown.values())) <= staged_runs.PLACEHOLDER_ROWS
    if not few:  # many: their own transactions, before the short one that publishes
        result.add_placeholders(*_placeholders(db.conn, result.unknown))
    with import_transaction(db, source) as conn:
        if few:
            result.add_placeholders(*_placeholders(conn, result.unknown))
        if chunk_set is not None:
            runs.set_run_chunk_set(conn, run_id, chunk_set)
        try:
            return staged_runs.publish(conn, run_id, run_name, replace=replace)
        except FileExistsError:
            raise InputError(
                f"a run named {run_name!r} already exists (replace it explicitly)",
                source=source) from None


def _placeholders(conn: sqlite3.Connection, unknown: dict[str, set[str]]) -> tuple[int, int]:
    return (staged_runs.add_placeholders(conn, "queries", unknown["queries"]),
            staged_runs.add_placeholders(conn, "chunks", unknown["chunks"]))


def _drop_staged(db: sqlite_utils.Database, run_id: int) -> None:
    """Delete what a failed import staged (never raising over the import's own error)."""
    conn = db.conn
    if conn.in_transaction and getattr(conn, "writer", None) is None:
        imports.roll_back(conn)  # a failure at COMMIT leaves SQLite's transaction open
    if conn.in_transaction:
        return  # inside the caller's transaction: its rollback takes the staged rows
    try:
        with staged_runs.foreign_keys_off(conn):
            staged_runs.discard(conn, run_id)
    except sqlite3.Error:
        pass  # the file is failing (full disk); sweep_abandoned deletes it at the next open


def _create_run(
    conn: sqlite3.Connection,
    run_name: str,
    meta: Mapping[str, Any] | None,
    source: str,
    *,
    staged: bool = True,
) -> int:
    meta = dict(meta or {})
    columns = {k: meta.pop(k) for k in RUN_COLUMNS if k in meta}
    if "chunk_size" in columns:
        try:
            columns["chunk_size"] = int(columns["chunk_size"])
        except (TypeError, ValueError) as error:
            raise InputError(
                f"chunk_size must be an integer, not {columns['chunk_size']!r}", source=source
            ) from error
    if columns.get("chunk_set") is not None and not chunk_sets.has_chunk_set(
            conn, columns["chunk_set"]):
        raise InputError(f"no chunk set named {columns['chunk_set']!r}", source=source)
    return runs.insert_run(conn, {
        "name": run_name,
        "created_at": utc_now(),
        "metadata": json.dumps(meta, ensure_ascii=False, default=str),
        "importing": int(staged),
        **columns,
    })


def replace_run(
    conn: sqlite3.Connection, run_name: str, meta: Mapping[str, Any] | None, replace: bool,
    source: str,
) -> int:
    """A new visible run ``run_name`` in the caller's transaction (for files small enough to
    store in one: per-query values); an existing one is deleted when ``replace``."""
    check_run_name(run_name, source)
    _refuse_taken(conn, run_name, replace, source)
    runs.delete_visible_run(conn, run_name)
    return _create_run(conn, run_name, meta, source, staged=False)


class _Staged(ImportResult):
    """An ``ImportResult`` and the ids, by table, that the stored rows name and the workspace
    lacked (their placeholders are added when the run is published)."""

    def __init__(self) -> None:
        super().__init__("run")
        self.unknown: dict[str, set[str]] = {"queries": set(), "chunks": set()}


def _infer_chunk_set(
    conn: sqlite3.Connection, run_id: int, run_name: str, result: ImportResult
) -> str | None:
    """Name the chunk set of a run imported without one when its chunk ids say it: the one chunk
    set holding every retrieved chunk that belongs to any (``chunk_sets.infer_chunk_set``);
    otherwise a warning that the run is scored against every chunk set's labels. Returns the
    chunk set to store with the run, or None."""
    name, warning = chunk_sets.infer_chunk_set(conn, run_id, run_name)
    if warning:
        result.warnings.append(warning)
    return name


def _store_run(
    db: sqlite_utils.Database,
    run_id: int,
    frames: Iterable[tuple[pd.DataFrame, RowLines]],
    *,
    strict: bool,
    source: str,
) -> _Staged:
    """Store the batches under ``run_id``, ``STAGE_ROWS`` rows per transaction (savepoints of
    the caller's transaction when it holds one). Foreign keys must be off or deferred."""
    result = _Staged()
    for batch, lines in frames:
        dup = first_duplicate(batch, ["query_id", "doc_id"])
        if dup is not None:
            raise _duplicate(batch, dup, lines, source)
        for start in range(0, len(batch), STAGE_ROWS):
            part = batch.iloc[start:start + STAGE_ROWS].reset_index(drop=True)
            part_lines = RowLines(lines.path, lines.fmt, lines.first_row + start, len(part))
            with import_transaction(db, source) as conn:
                for table, column in (("queries", "query_id"), ("chunks", "doc_id")):
                    result.unknown[table].update(missing_ids(
                        conn, table, part[column], part_lines, strict=strict, source=source))
                _insert_results(conn, run_id, part, part_lines, source)
            if not db.conn.in_transaction:
                write_turns.let_waiting_writers_in()
        result.rows += len(batch)
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
    row = runs.insert_results(conn, run_id, batch["query_id"].tolist(), batch["doc_id"].tolist(),
                              ranks, batch["score"].astype("float64").tolist())
    if row is not None:
        raise _duplicate(batch, row, lines, source, earlier=True)


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

