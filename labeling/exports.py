"""Exporters: the workspace out to files other tools read.

- ``export_qrels``: TREC qrels, one grade per pair from ``labeling.consensus``.
- ``export_run``: a stored run in TREC run format (tag = run name).
- ``export_judgments``: the full judgment history as CSV. User text is untrusted: a text cell
  starting with ``= + - @`` (or tab / carriage return) gets a leading ``'`` so spreadsheets do not
  run it as a formula; numbers are written as numbers.
- ``export_beir``: corpus (non-placeholder chunks), queries (with segment attributes in
  ``metadata``) and consensus qrels as a BEIR folder.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import sqlite_utils

from labeling import formats
from labeling.consensus import consensus_qrels, run_frame

JUDGMENT_COLUMNS = (
    "id",
    "query_id",
    "chunk_id",
    "grade",
    "annotator",
    "created_at",
    "note",
    "flags",
)
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def defuse(cell: object) -> object:
    """Prefix ``'`` to a text cell a spreadsheet would read as a formula; other cells unchanged."""
    if isinstance(cell, str) and cell.startswith(FORMULA_PREFIXES):
        return "'" + cell
    return cell


def export_qrels(db: sqlite_utils.Database, path: str | Path, *, rule: str = "default") -> int:
    """Write consensus qrels (``labeling.consensus.RULES``) in TREC format; return the pairs."""
    qrels = consensus_qrels(db, rule)
    formats.write_trec_qrels(qrels, path)
    return len(qrels)


def export_run(db: sqlite_utils.Database, run_name: str, path: str | Path) -> int:
    """Write the run ``run_name`` in TREC run format; return the number of rows."""
    run = run_frame(db, run_name)
    formats.write_trec_run(run, path, tag=run_name)
    return len(run)


def export_judgments(db: sqlite_utils.Database, path: str | Path) -> int:
    """Write every judgment, oldest first, as CSV with a header; return the number of rows."""
    count = 0
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(JUDGMENT_COLUMNS)
        cursor = db.conn.execute(f"SELECT {', '.join(JUDGMENT_COLUMNS)} FROM judgments ORDER BY id")
        while rows := cursor.fetchmany(10_000):
            writer.writerows([defuse(cell) for cell in row] for row in rows)
            count += len(rows)
    return count


def corpus_frame(db: sqlite_utils.Database) -> pd.DataFrame:
    """Non-placeholder chunks as a BEIR corpus: _id, title, text, metadata (dict)."""
    frame = pd.read_sql_query(
        "SELECT id AS _id, coalesce(title, '') AS title, coalesce(text, '') AS text, doc_id,"
        " metadata FROM chunks WHERE placeholder = 0 ORDER BY rowid",
        db.conn,
    )
    meta = [json.loads(m) for m in frame.pop("metadata")]
    doc_ids = frame.pop("doc_id").tolist()
    frame["metadata"] = [
        ({"doc_id": d} if isinstance(d, str) else {}) | m
        for d, m in zip(doc_ids, meta, strict=True)
    ]
    return frame


def queries_frame(db: sqlite_utils.Database) -> pd.DataFrame:
    """Non-placeholder queries as BEIR queries: _id, text, metadata (attributes, source, split)."""
    frame = pd.read_sql_query(
        "SELECT id AS _id, coalesce(text, '') AS text, source, split, metadata FROM queries"
        " WHERE placeholder = 0 ORDER BY rowid",
        db.conn,
    )
    attributes: dict[str, dict[str, str]] = {}
    for qid, name, value in db.conn.execute("SELECT query_id, name, value FROM query_attributes"):
        attributes.setdefault(qid, {})[name] = value
    metadata = []
    for qid, source, split, meta in zip(
        frame["_id"], frame.pop("source"), frame.pop("split"), frame.pop("metadata"), strict=True
    ):
        entry = json.loads(meta) | attributes.get(qid, {})
        entry |= {k: v for k, v in (("source", source), ("split", split)) if isinstance(v, str)}
        metadata.append(entry)
    frame["metadata"] = metadata
    return frame


def export_beir(db: sqlite_utils.Database, folder: str | Path) -> dict[str, int]:
    """Write the workspace as a BEIR folder; return row counts per part."""
    corpus, queries, qrels = corpus_frame(db), queries_frame(db), consensus_qrels(db)
    formats.write_beir(folder, corpus, queries, qrels)
    return {"corpus": len(corpus), "queries": len(queries), "qrels": len(qrels)}
