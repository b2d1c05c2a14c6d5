"""Chunks and queries from records files (JSON lines, CSV/TSV, Parquet), upserted by id.

A record's fields other than the known columns go to the chunk's ``metadata`` or become the
query's segment attributes (``query_attributes``); a ``metadata`` object's entries join them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from labeling.errors import InputError
from labeling.files import formats
from labeling.files.formats.values import is_missing, plain_value
from labeling.files.importers import cells
from labeling.files.importers.ids import pick_column, unique_ids
from labeling.files.importers.lines import RowLines, batches
from labeling.files.importers.result import ImportResult
from labeling.files.importers.transaction import import_transaction
from labeling.workspace import chunk_store, frozen_split, query_store, search_index
from labeling.workspace.imports import forget_seen, unknown_ids
from labeling.workspace.query_store import SOURCES, SPLITS

if TYPE_CHECKING:
    import sqlite_utils

CHUNK_ID = ("id", "_id", "chunk_id", "docid", "doc_id")
QUERY_ID = ("id", "_id", "query_id", "qid")
QUERY_TEXT = ("text", "query")
# The information need of a query (``queries.narrative``), for the judges.
QUERY_NARRATIVE = ("narrative", "description")

# Stores one batch of a records file: (connection, batch, its lines, source, result).
StoreBatch = Callable[[sqlite3.Connection, pd.DataFrame, RowLines, str, ImportResult], None]


def import_chunks(db: sqlite_utils.Database, path: str | Path) -> ImportResult:
    """Chunks from a records file (JSONL/CSV/Parquet): id, text, optional title, doc_id; other
    fields go to ``metadata``. Upsert by id."""
    return _import_records(db, path, store_chunks, "chunks")


def import_queries(db: sqlite_utils.Database, path: str | Path) -> ImportResult:
    """Queries from a records file: id, text, optional source (real/synthetic), split (dev/test),
    narrative (or description: what the person asking wants to know, shown to the judges);
    other scalar fields (and scalar entries of a ``metadata`` object) become segment attributes.
    A file without a narrative column keeps the narratives the queries have."""
    return _import_records(db, path, store_queries, "queries")


def _import_records(
    db: sqlite_utils.Database, path: str | Path, store: StoreBatch, kind: str
) -> ImportResult:
    source = str(path)
    result = ImportResult(kind)
    with import_transaction(db, source) as conn:
        try:
            for batch, lines in batches(formats.iter_record_batches(path), path, None):
                store(conn, batch, lines, source, result)
            if result.rows == 0:
                raise InputError(f"no {kind} in the file", source=source)
            if kind == "chunks":
                search_index.settle_after_import(conn, result.rows)
        finally:
            forget_seen(conn)
    return result


def _id_and_text_columns(
    batch: pd.DataFrame, ids: tuple[str, ...], texts: tuple[str, ...], kind: str,
    lines: RowLines, source: str,
) -> tuple[str, str]:
    """The id and text columns of a batch of ``kind`` records; an error when one is missing."""
    id_col, text_col = pick_column(batch.columns, ids), pick_column(batch.columns, texts)
    if id_col is None or text_col is None:
        raise InputError(
            f"a {kind} file needs an id column ({ids[0]}, {ids[1]} or {ids[2]}) and a text column",
            source=source,
            line=lines.first(),
        )
    return id_col, text_col


def _fields(
    record: dict[str, Any], extras: list[str], source: str, lines: RowLines, row: int
) -> dict[str, Any]:
    """A record's ``metadata`` object joined by its fields outside the known columns."""
    values = cells.metadata(record.get("metadata"), source, lines, row)
    values.update({c: plain_value(record[c]) for c in extras if not is_missing(record[c])})
    return values


def _count_stored(
    conn: sqlite3.Connection, table: str, ids: pd.Series, result: ImportResult
) -> None:
    """Count a batch about to be upserted: its rows, and those that replace a stored one."""
    result.rows += len(ids)
    result.updated += len(ids) - len(unknown_ids(conn, table, ids.tolist()))


def store_chunks(
    conn: sqlite3.Connection, batch: pd.DataFrame, lines: RowLines, source: str,
    result: ImportResult,
) -> None:
    """Upsert one batch of chunk records."""
    id_col, _ = _id_and_text_columns(batch, CHUNK_ID, ("text",), "chunks", lines, source)
    chunk_ids = unique_ids(conn, batch, id_col, "chunk", lines, source)
    doc_col = "doc_id" if id_col != "doc_id" and "doc_id" in batch.columns else None
    known = {id_col, "text", "title", "line", "metadata"} | ({doc_col} if doc_col else set())
    extras = [c for c in batch.columns if c not in known]
    rows = []
    for i, record in enumerate(batch.to_dict("records")):
        meta = _fields(record, extras, source, lines, i)
        doc_id = plain_value(record[doc_col]) if doc_col else None
        doc_id = meta.pop("doc_id", None) if doc_id is None else doc_id  # BEIR keeps it in metadata
        rows.append((
            chunk_ids.iloc[i],
            cells.doc_id(doc_id, source, lines, i),
            cells.text(record.get("title"), "title", source, lines, i),
            cells.text(record["text"], "text", source, lines, i),
            cells.json_text(meta, source, lines, i),
        ))
    frozen_split.check_chunks(conn, [r[:4] for r in rows], source, lines)
    _count_stored(conn, "chunks", chunk_ids, result)
    chunk_store.upsert_chunks(conn, rows)


def store_queries(
    conn: sqlite3.Connection, batch: pd.DataFrame, lines: RowLines, source: str,
    result: ImportResult,
) -> None:
    """Upsert one batch of query records and replace their segment attributes."""
    id_col, text_col = _id_and_text_columns(batch, QUERY_ID, QUERY_TEXT, "queries", lines, source)
    query_ids = unique_ids(conn, batch, id_col, "query", lines, source)
    narrative_col = pick_column(batch.columns, QUERY_NARRATIVE)
    known = {id_col, text_col, "source", "split", "line", "metadata", narrative_col}
    extras = [c for c in batch.columns if c not in known]
    rows, attributes, narratives = [], [], []
    for i, record in enumerate(batch.to_dict("records")):
        qid = query_ids.iloc[i]
        values = _fields(record, extras, source, lines, i)
        if narrative_col is not None:
            narrative = cells.text(record[narrative_col], narrative_col, source, lines, i)
            narratives.append((_narrative(narrative), qid))
        elif "narrative" in values:  # a BEIR export keeps it in the query's metadata
            narratives.append((_narrative(values.pop("narrative")), qid))
        origin, split = _origin_and_split(record, values, source, lines, i)
        nested = {k: v for k, v in values.items() if isinstance(v, (dict, list))}
        attributes += [
            (qid, str(name), str(value)) for name, value in values.items()
            if name not in nested and value is not None
        ]
        rows.append((
            qid,
            cells.text(record[text_col], text_col, source, lines, i),
            origin,
            split,
            cells.json_text(nested, source, lines, i),
        ))
    frozen_split.check_queries(conn, rows, attributes, source, lines)
    _count_stored(conn, "queries", query_ids, result)
    query_store.upsert_queries(conn, rows, narratives, attributes)


def _narrative(value: Any) -> str | None:
    """A narrative cell as stored: text, blanks trimmed, None when empty."""
    return None if value is None else (str(value).strip() or None)


def _origin_and_split(
    record: dict[str, Any], values: dict[str, Any], source: str, lines: RowLines, row: int
) -> tuple[str | None, str | None]:
    """A query's ``source`` and ``split``, from their columns or (BEIR exports) from its
    metadata, whose entries they are taken out of; a value outside ``SOURCES`` / ``SPLITS`` is
    an error."""
    origin = plain_value(record.get("source")) or values.pop("source", None)
    split = plain_value(record.get("split")) or values.pop("split", None)
    if origin is not None and origin not in SOURCES:
        raise InputError(
            f"source must be {' or '.join(SOURCES)}, not {origin!r}",
            source=source,
            line=int(lines[row]),
        )
    if split not in (None, "", *SPLITS):
        raise InputError(
            f"split must be {' or '.join(SPLITS)}, not {split!r}",
            source=source,
            line=int(lines[row]),
        )
    return origin, split or None
