"""Importers: files into the workspace, each all-or-nothing in one ``BEGIN IMMEDIATE`` transaction.

Conventions
- Parsing is ``labeling.files.formats``' job; here frames are checked against the workspace and
stored
  in batches (a 1M-row run never sits whole in Python objects).
- Any error rolls the whole import back and surfaces as ``InputError`` naming file and line.
- Ids a qrels or run file names that the workspace does not know become placeholder chunks /
  queries (counted in ``ImportResult.placeholders`` and a warning); ``strict=True`` rejects the
  file instead, naming the first unknown id and its line.
- Qrels rows become judgments by ``annotator`` (one timestamp per import); when a file grades a
  pair twice the later line is the current judgment, the earlier stays in the history.
- Chunks and queries are upserts by id (re-importing a file is harmless; placeholders are filled).
"""

from __future__ import annotations

import csv
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import sqlite_utils

from labeling.errors import InputError, ScorecardError, storage_problem
from labeling.files import formats
from labeling.files.formats.tabular import TOO_DEEP
from labeling.workspace import frozen_split
from labeling.workspace.ids import check_run_name
from labeling.workspace.ids import problem as id_problem
from labeling.workspace.store import utc_now, write_transaction

RUN_COLUMNS = ("index_build", "chunk_size", "embedding_model", "query_set_version", "notes")
CHUNK_ID = ("id", "_id", "chunk_id", "docid", "doc_id")
QUERY_ID = ("id", "_id", "query_id", "qid")
QUERY_TEXT = ("text", "query")
IMPORT_CACHE_KIB = 64 * 1024  # SQLite page cache while a run imports
RUN_BATCH_ROWS = 50_000  # measured: 1M-row run peaks ~300 MB RSS (200k: ~430 MB), same speed


@dataclass
class ImportResult:
    """What an import did: rows stored, placeholder rows created, warnings for the user."""

    kind: str
    rows: int = 0
    placeholders: int = 0
    updated: int = 0
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line for the command line."""
        text = f"imported {self.rows} {self.kind} rows"
        if self.updated:
            text += f" ({self.updated} updated)"
        if self.placeholders:
            text += f", {self.placeholders} placeholder ids"
        return text


# ---------------------------------------------------------------------------------------------
# Helpers


class _RowLines:
    """Physical line of each row of a batch, computed from the file only when an error needs it.

    The streaming readers do not report lines, so the error path counts records in the file:
    the n-th non-blank line (TREC, JSON lines) or the start line of the n-th CSV/TSV record
    after the header.
    """

    def __init__(self, path: str | Path, fmt: str | None, first_row: int, rows: int):
        self.path, self.fmt, self.first_row, self.rows = Path(path), fmt, first_row, rows

    def __len__(self) -> int:
        return self.rows

    def __getitem__(self, row: int) -> int:
        return _line_of_row(self.path, self.fmt, self.first_row + int(row))


def _line_of_row(path: Path, fmt: str | None, index: int) -> int:
    """1-based physical line where data row ``index`` (0-based) of the file starts."""
    fmt = fmt or formats.detect_format(path)
    if fmt in ("csv", "tsv"):
        with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
            reader = csv.reader(handle, delimiter="\t" if fmt == "tsv" else ",")
            seen = -1  # the header is record -1
            while True:
                start = reader.line_num + 1
                try:
                    record = next(reader)
                except (StopIteration, csv.Error):
                    break
                if not any(cell.strip() for cell in record):
                    continue
                if seen == index:
                    return start
                seen += 1
        return index + 2
    with open(path, "rb") as handle:
        seen = 0
        for number, line in enumerate(handle, start=1):
            if line.strip():
                if seen == index:
                    return number
                seen += 1
    return index + 1


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # lists / dicts / arrays
        return False


def _plain(value: Any) -> Any:
    """A cell as a JSON/SQLite-friendly Python value (None for missing)."""
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if _is_missing(value):
        return None
    if isinstance(value, np.generic):
        return value.item()
    return value


def _json_kind(value: Any) -> str:
    """What a JSON value is, for a message: ``a string``, ``a list``, ``a number``..."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    return f"a {type(value).__name__}"


def _metadata(value: Any, source: str, lines: _RowLines, row: int) -> dict:
    """A record's ``metadata``: a JSON object, or its JSON text (a CSV cell); missing is {}."""
    value = _plain(value)
    if value is None or value == "":
        return {}
    parsed = value
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):
            parsed = value
    if not isinstance(parsed, dict):
        raise InputError(
            f"metadata must be a JSON object, found {_json_kind(value)}",
            source=source,
            line=int(lines[row]),
        )
    return dict(parsed)


def _json_text(value: Any, source: str, lines: _RowLines, row: int) -> str:
    """``value`` as JSON text for a metadata column; too deep a nesting is an input error."""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except RecursionError:
        raise InputError(TOO_DEEP, source=source, line=int(lines[row])) from None


def _text(value: Any, column: str, source: str, lines: _RowLines, row: int) -> Any:
    """A text cell (``text``, ``title``): a JSON list or object there is an input error."""
    value = _plain(value)
    if isinstance(value, (list, dict)):
        raise InputError(
            f"{column} must be text, found {_json_kind(value)}", source=source, line=int(lines[row])
        )
    return value


def _check_doc_id(doc_id: Any, source: str, lines: _RowLines, row: int) -> str | None:
    """A chunk's document id (from a column or BEIR metadata): text TREC files can hold."""
    if doc_id is None:
        return None
    if not isinstance(doc_id, str):
        doc_id = str(doc_id)
    reason = id_problem("doc_id", doc_id)
    if reason is not None:
        raise InputError(reason, source=source, line=int(lines[row]))
    return doc_id


def _unknown_ids(conn: sqlite3.Connection, table: str, ids: Iterable[str]) -> list[str]:
    """Ids (distinct, input order) not present in ``table`` (``chunks`` or ``queries``)."""
    payload = json.dumps(list(ids))
    sql = f"SELECT value FROM json_each(?) WHERE value NOT IN (SELECT id FROM {table})"
    return [r[0] for r in conn.execute(sql, [payload])]


def _ensure_ids(
    conn: sqlite3.Connection,
    table: str,
    ids: pd.Series,
    lines: _RowLines,
    *,
    strict: bool,
    source: str,
) -> int:
    """Insert placeholders for unknown ids (or raise when strict); return how many were added."""
    distinct = pd.unique(ids.to_numpy(dtype=object))
    unknown = _unknown_ids(conn, table, distinct.tolist())
    if not unknown:
        return 0
    if strict:
        mask = ids.isin(unknown).to_numpy()
        row = int(np.argmax(mask))
        noun = "chunk" if table == "chunks" else "query"
        raise InputError(
            f"unknown {noun} id {ids.iloc[row]!r} (strict mode; import the {table} first)",
            source=source,
            line=int(lines[row]),
        )
    conn.executemany(
        f"INSERT INTO {table} (id, placeholder) VALUES (?, 1)", ((i,) for i in unknown)
    )
    return len(unknown)


def _batches(
    iterator: Iterable[pd.DataFrame], path: str | Path, fmt: str | None
) -> Iterator[tuple[pd.DataFrame, _RowLines]]:
    """(batch, its lines); reader failures other than InputError become InputError."""
    source = str(path)
    first_row = 0
    it = iter(iterator)
    while True:
        try:
            batch = next(it)
        except StopIteration:
            return
        except InputError:
            raise
        except (UnicodeDecodeError, ValueError, OSError) as error:
            raise InputError(f"cannot read file: {error}", source=source) from error
        yield batch.reset_index(drop=True), _RowLines(path, fmt, first_row, len(batch))
        first_row += len(batch)


def _first_duplicate(frame: pd.DataFrame, columns: list[str]) -> int | None:
    """Position of the first row repeating an earlier row's ``columns``, or None."""
    dup = frame.duplicated(columns).to_numpy()
    return int(np.argmax(dup)) if dup.any() else None


def _pick(columns: Iterable[str], names: tuple[str, ...]) -> str | None:
    present = set(columns)
    return next((n for n in names if n in present), None)


def _warn_placeholders(result: ImportResult, queries: int, chunks: int) -> None:
    result.placeholders = queries + chunks
    if result.placeholders:
        result.warnings.append(
            f"{queries} unknown query ids and {chunks} unknown chunk ids were added as "
            "placeholders (use strict to reject them)"
        )


# ---------------------------------------------------------------------------------------------
# Chunks and queries (records files)


def _unique_ids(
    conn: sqlite3.Connection,
    batch: pd.DataFrame,
    id_col: str,
    kind: str,
    lines: _RowLines,
    source: str,
) -> pd.Series:
    """The batch's ids as strings; an id that is missing or repeats (in the batch or an earlier
    batch of this import) is an error naming its line."""
    ids = batch[id_col].astype("string")
    if ids.isna().any():
        row = int(np.argmax(ids.isna().to_numpy()))
        raise InputError(f"{kind} without an id", source=source, line=int(lines[row]))
    dup = _first_duplicate(batch.assign(_id=ids), ["_id"])
    seen = _seen(conn, ids)
    if dup is not None or seen is not None:
        row = dup if seen is None or (dup is not None and dup < seen) else seen
        raise InputError(
            f"{kind} id {ids.iloc[row]!r} appears twice", source=source, line=int(lines[row])
        )
    return ids


def _store_chunks(
    conn: sqlite3.Connection,
    batch: pd.DataFrame,
    lines: _RowLines,
    source: str,
    result: ImportResult,
) -> None:
    id_col = _pick(batch.columns, CHUNK_ID)
    if id_col is None or "text" not in batch.columns:
        raise InputError(
            "a chunks file needs an id column (id, _id or chunk_id) and a text column",
            source=source,
            line=int(lines[0]) if len(lines) else None,
        )
    chunk_ids = _unique_ids(conn, batch, id_col, "chunk", lines, source)
    doc_col = "doc_id" if id_col != "doc_id" and "doc_id" in batch.columns else None
    known = {id_col, "text", "title", "line", "metadata"} | ({doc_col} if doc_col else set())
    extras = [c for c in batch.columns if c not in known]
    existing = len(chunk_ids) - len(_unknown_ids(conn, "chunks", chunk_ids.tolist()))
    rows = []
    for i, record in enumerate(batch.to_dict("records")):
        meta = _metadata(record.get("metadata"), source, lines, i)
        meta.update({c: _plain(record[c]) for c in extras if not _is_missing(record[c])})
        doc_id = _plain(record[doc_col]) if doc_col else None
        doc_id = meta.pop("doc_id", None) if doc_id is None else doc_id  # BEIR keeps it in metadata
        rows.append(
            (
                chunk_ids.iloc[i],
                _check_doc_id(doc_id, source, lines, i),
                _text(record.get("title"), "title", source, lines, i),
                _text(record["text"], "text", source, lines, i),
                _json_text(meta, source, lines, i),
            )
        )
    frozen_split.check_chunks(conn, [(r[0], r[2], r[3]) for r in rows], source, lines)
    conn.executemany(
        "INSERT INTO chunks (id, doc_id, title, text, metadata, placeholder)"
        " VALUES (?, ?, ?, ?, ?, 0)"
        " ON CONFLICT (id) DO UPDATE SET doc_id = excluded.doc_id, title = excluded.title,"
        " text = excluded.text, metadata = excluded.metadata, placeholder = 0",
        rows,
    )
    result.rows += len(rows)
    result.updated += existing


def _seen(conn: sqlite3.Connection, ids: pd.Series) -> int | None:
    """Track ids across batches of one import; position of the first id seen in an earlier one."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS import_seen (id TEXT PRIMARY KEY)")
    payload = json.dumps(ids.tolist())
    again = {
        r[0]
        for r in conn.execute(
            "SELECT value FROM json_each(?) WHERE value IN (SELECT id FROM temp.import_seen)",
            [payload],
        )
    }
    conn.execute("INSERT OR IGNORE INTO temp.import_seen SELECT value FROM json_each(?)", [payload])
    if not again:
        return None
    return int(np.argmax(ids.isin(again).to_numpy()))


def _clear_seen(conn: sqlite3.Connection) -> None:
    conn.execute("DROP TABLE IF EXISTS temp.import_seen")


def _store_queries(
    conn: sqlite3.Connection,
    batch: pd.DataFrame,
    lines: _RowLines,
    source: str,
    result: ImportResult,
) -> None:
    id_col = _pick(batch.columns, QUERY_ID)
    text_col = _pick(batch.columns, QUERY_TEXT)
    if id_col is None or text_col is None:
        raise InputError(
            "a queries file needs an id column (id, _id or query_id) and a text column",
            source=source,
            line=int(lines[0]) if len(lines) else None,
        )
    query_ids = _unique_ids(conn, batch, id_col, "query", lines, source)
    known = {id_col, text_col, "source", "split", "line", "metadata"}
    extras = [c for c in batch.columns if c not in known]
    existing = len(query_ids) - len(_unknown_ids(conn, "queries", query_ids.tolist()))
    rows, attributes = [], []
    for i, record in enumerate(batch.to_dict("records")):
        qid = query_ids.iloc[i]
        values = _metadata(record.get("metadata"), source, lines, i)
        values.update({c: _plain(record[c]) for c in extras if not _is_missing(record[c])})
        # BEIR exports carry source / split inside metadata
        origin = _plain(record.get("source")) or values.pop("source", None)
        split = _plain(record.get("split")) or values.pop("split", None)
        if origin not in (None, "real", "synthetic"):
            raise InputError(
                f"source must be real or synthetic, not {origin!r}",
                source=source,
                line=int(lines[i]),
            )
        if split not in (None, "", "dev", "test"):
            raise InputError(
                f"split must be dev or test, not {split!r}", source=source, line=int(lines[i])
            )
        nested = {k: v for k, v in values.items() if isinstance(v, (dict, list))}
        for name, value in values.items():
            if name not in nested and value is not None:
                attributes.append((qid, str(name), str(value)))
        rows.append(
            (
                qid,
                _text(record[text_col], text_col, source, lines, i),
                origin,
                split or None,
                _json_text(nested, source, lines, i),
            )
        )
    frozen_split.check_queries(conn, rows, attributes, source, lines)
    conn.executemany(
        "INSERT INTO queries (id, text, source, split, metadata, placeholder)"
        " VALUES (?, ?, ?, ?, ?, 0)"
        " ON CONFLICT (id) DO UPDATE SET text = excluded.text, source = excluded.source,"
        " split = excluded.split, metadata = excluded.metadata, placeholder = 0",
        rows,
    )
    conn.executemany("DELETE FROM query_attributes WHERE query_id = ?", ((r[0],) for r in rows))
    conn.executemany(
        "INSERT INTO query_attributes (query_id, name, value) VALUES (?, ?, ?)", attributes
    )
    result.rows += len(rows)
    result.updated += existing


def _records(
    path: str | Path, source: str, store, kind: str, db: sqlite_utils.Database
) -> ImportResult:
    result = ImportResult(kind)
    with _import_transaction(db, source) as conn:
        try:
            for batch, lines in _batches(formats.iter_record_batches(path), path, None):
                store(conn, batch, lines, source, result)
            if result.rows == 0:
                raise InputError(f"no {kind} in the file", source=source)
        finally:
            _clear_seen(conn)
    return result


def import_chunks(db: sqlite_utils.Database, path: str | Path) -> ImportResult:
    """Chunks from a records file (JSONL/CSV/Parquet): id, text, optional title, doc_id; other
    fields go to ``metadata``. Upsert by id."""
    return _records(path, str(path), _store_chunks, "chunks", db)


def import_queries(db: sqlite_utils.Database, path: str | Path) -> ImportResult:
    """Queries from a records file: id, text, optional source (real/synthetic), split (dev/test);
    other scalar fields (and scalar entries of a ``metadata`` object) become segment attributes."""
    return _records(path, str(path), _store_queries, "queries", db)


# ---------------------------------------------------------------------------------------------
# Qrels and runs


class _import_transaction:
    """``write_transaction`` that turns SQLite failures into InputError naming the file.

    A failure at COMMIT (a full disk shows there, when the write-ahead log grows) leaves the
    transaction open in SQLite; it is rolled back here so that nothing of the file stays.
    """

    def __init__(self, db: sqlite_utils.Database, source: str):
        self._conn = db.conn
        self._context = write_transaction(db, action="import")  # admin only
        self._source = source

    def __enter__(self) -> sqlite3.Connection:
        return self._context.__enter__()

    def __exit__(self, exc_type, exc, tb) -> bool:
        try:
            suppressed = self._context.__exit__(exc_type, exc, tb)
        except sqlite3.Error as error:  # COMMIT or ROLLBACK failed
            failure = error
        else:
            if not isinstance(exc, sqlite3.Error):
                return bool(suppressed)
            failure = exc
        if self._conn.in_transaction:
            self._conn.execute("ROLLBACK")
        raise InputError(
            f"could not store the file: {storage_problem(failure)}; nothing was imported",
            source=self._source,
        ) from failure


def _store_qrels(
    conn: sqlite3.Connection,
    frames: Iterable[tuple[pd.DataFrame, _RowLines]],
    *,
    annotator: str,
    strict: bool,
    source: str,
) -> ImportResult:
    result = ImportResult("qrels")
    scale = [r[0] for r in conn.execute("SELECT grade FROM scale")]
    created_at = utc_now()
    added_q = added_c = 0
    for batch, lines in frames:
        grades = batch["relevance"]
        off = ~grades.isin(scale).to_numpy()
        if off.any():
            row = int(np.argmax(off))
            raise InputError(
                f"grade {grades.iloc[row]} is not on the workspace scale {sorted(scale)}",
                source=source,
                line=int(lines[row]),
            )
        added_q += _ensure_ids(
            conn, "queries", batch["query_id"], lines, strict=strict, source=source
        )
        added_c += _ensure_ids(conn, "chunks", batch["doc_id"], lines, strict=strict, source=source)
        conn.executemany(
            "INSERT INTO judgments (query_id, chunk_id, grade, annotator, created_at, flags)"
            " VALUES (?, ?, ?, ?, ?, '{}')",
            zip(
                batch["query_id"].tolist(),
                batch["doc_id"].tolist(),
                grades.astype("int64").tolist(),
                [annotator] * len(batch),
                [created_at] * len(batch),
                strict=True,
            ),
        )
        result.rows += len(batch)
    _warn_placeholders(result, added_q, added_c)
    return result


def import_qrels(
    db: sqlite_utils.Database,
    path: str | Path,
    annotator: str = "import",
    strict: bool = False,
    *,
    format: str | None = None,
) -> ImportResult:
    """Append a qrels file (TREC/CSV/JSONL...) as judgments by ``annotator``."""
    source = str(path)
    with _import_transaction(db, source) as conn:
        result = _store_qrels(
            conn,
            _batches(formats.iter_qrels_batches(path, format=format), path, format),
            annotator=annotator,
            strict=strict,
            source=source,
        )
        if result.rows == 0:
            raise InputError("no judgments in the file", source=source)
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


def _store_run(
    conn: sqlite3.Connection,
    run_id: int,
    frames: Iterable[tuple[pd.DataFrame, _RowLines]],
    *,
    strict: bool,
    source: str,
) -> ImportResult:
    result = ImportResult("run")
    added_q = added_c = 0
    for batch, lines in frames:
        dup = _first_duplicate(batch, ["query_id", "doc_id"])
        if dup is not None:
            raise _duplicate(batch, dup, lines, source)
        added_q += _ensure_ids(
            conn, "queries", batch["query_id"], lines, strict=strict, source=source
        )
        added_c += _ensure_ids(conn, "chunks", batch["doc_id"], lines, strict=strict, source=source)
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
        result.rows += len(batch)
    _warn_placeholders(result, added_q, added_c)
    return result


def _duplicate(
    batch: pd.DataFrame, row: int, lines: _RowLines, source: str, earlier: bool = False
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

    ``meta`` keys index_build, chunk_size, embedding_model, query_set_version, notes fill the
    ``runs`` columns; any other key goes to ``runs.metadata``. A (query, doc) pair listed twice is
    an error naming the line; an existing name is an error unless ``replace=True``.
    """
    source = str(path)
    cache = db.conn.execute("PRAGMA cache_size").fetchone()[0]
    db.conn.execute(f"PRAGMA cache_size = {-IMPORT_CACHE_KIB}")  # index pages stay in memory
    try:
        with _import_transaction(db, source) as conn:
            run_id = _create_run(conn, run_name, meta, replace, source)
            batches = formats.iter_run_batches(path, format=format, batch_rows=batch_rows)
            result = _store_run(
                conn, run_id, _batches(batches, path, format), strict=strict, source=source
            )
            if result.rows == 0:
                raise InputError("no results in the run file", source=source)
    finally:
        db.conn.execute(f"PRAGMA cache_size = {cache}")
    return result


# ---------------------------------------------------------------------------------------------
# BEIR


def import_beir(
    db: sqlite_utils.Database, folder: str | Path, annotator: str = "beir"
) -> ImportResult:
    """A BEIR folder (corpus.jsonl, queries.jsonl, qrels/*.tsv) in one transaction.

    Corpus documents become chunks (chunk id = BEIR ``_id``), qrels become judgments by
    ``annotator``; all qrels files of the folder are read (the split of a query comes from its
    own ``metadata.split``, not from the qrels file name).
    """
    source = str(folder)
    try:
        data = formats.read_beir(folder)
    except InputError:
        raise
    except (UnicodeDecodeError, ValueError, OSError) as error:
        raise InputError(f"cannot read BEIR folder: {error}", source=source) from error
    root = Path(folder)
    result = ImportResult("beir")
    with _import_transaction(db, source) as conn:
        try:
            for name, frame, store in (
                ("corpus.jsonl", _frame(data.corpus), _store_chunks),
                ("queries.jsonl", _frame(data.queries), _store_queries),
            ):
                lines = _RowLines(root / name, "jsonl", 0, len(frame))
                store(conn, frame, lines, str(root / name), result)
                _clear_seen(conn)
        finally:
            _clear_seen(conn)
        qrels = _frame(data.qrels)
        splits = qrels["split"] if "split" in qrels.columns else pd.Series("test", qrels.index)
        placeholders: list[str] = []
        for split in pd.unique(splits):
            part = qrels.loc[(splits == split).to_numpy()].reset_index(drop=True)
            path = root / "qrels" / f"{split}.tsv"
            sub = _store_qrels(
                conn,
                [(part, _RowLines(path, "tsv", 0, len(part)))],
                annotator=annotator,
                strict=False,
                source=str(path),
            )
            result.rows += sub.rows
            result.placeholders += sub.placeholders
            placeholders += sub.warnings
    result.warnings = placeholders
    return result


def _frame(value: Any) -> pd.DataFrame:
    if isinstance(value, pd.DataFrame):
        return value.reset_index(drop=True)
    raise ScorecardError(
        f"labeling.files.formats.read_beir returned {type(value).__name__}, not a frame"
    )
