"""Stored runs read for scoring (with a parquet cache beside the workspace) and ranked once
per (run, label snapshot, unit).

Unit ``chunk`` scores the run as stored. Unit ``document`` turns chunks into documents: a
document takes the rank of its best-ranked chunk and the highest consensus grade of its
chunks; a chunk without ``doc_id`` is its own document.
"""

from __future__ import annotations

import hashlib

import pandas as pd
import sqlite_utils

from labeling.errors import ScorecardError
from labeling.evaluation.chunk_set_labels import labels_for_chunk_set, run_chunk_set
from labeling.evaluation.label_sets import Labels
from labeling.evaluation.result_cache import (
    _HEAVY,
    _cache_dir,
    _run_version,
    _workspace,
    _write_parquet,
)
from labeling.evaluation.score_controls import UNITS
from labeling.judging import consensus
from labeling.metrics.ranking import RankedRows, rank_rows


def load_run(db: sqlite_utils.Database, run: str, *, use_disk_cache: bool = True) -> pd.DataFrame:
    """A run as query_id, doc_id (chunk id), score, rank; cached in memory and on disk.

    The disk cache is a parquet file per run in ``.<workspace>.cache/`` next to the workspace,
    named by run id and creation time (a replaced run gets a new id, so a stale file is never
    read). Delete the folder to drop it.
    """
    run_id, created = _run_version(db, run)

    def compute() -> pd.DataFrame:
        folder = _cache_dir(db) if use_disk_cache else None
        tag = hashlib.sha256(created.encode()).hexdigest()[:8]
        path = folder / f"run-{run_id}-{tag}.parquet" if folder else None
        if path is not None and path.exists():
            return pd.read_parquet(path)
        frame = consensus.run_frame(db, run)
        if path is not None:
            _write_parquet(frame, path)
        return frame

    return _HEAVY.get(("run", _workspace(db), run_id, created), compute)


def chunk_documents(db: sqlite_utils.Database) -> pd.Series:
    """chunk id -> document id (the chunk id itself when the chunk has no ``doc_id``)."""
    frame = pd.read_sql_query("SELECT id, coalesce(doc_id, id) AS doc FROM chunks", db.conn)
    return pd.Series(frame["doc"].to_numpy(), index=frame["id"].astype("string"))


def _document_of(chunk_ids: pd.Series, chunk_doc: pd.Series) -> pd.Series:
    """Each chunk's document id (``chunk_documents``; a chunk it does not know is its own)."""
    return chunk_ids.map(chunk_doc).fillna(chunk_ids).astype("string")


def _documents(
    qrels: pd.DataFrame, run: pd.DataFrame, chunk_rows: RankedRows, chunk_doc: pd.Series
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Document-level (qrels, run): best chunk rank and highest chunk grade per document."""
    picked = run.iloc[chunk_rows.doc_row]
    docs = _document_of(picked["doc_id"], chunk_doc)
    doc_run = (
        pd.DataFrame({"query_id": picked["query_id"].to_numpy(), "doc_id": docs.to_numpy(),
                      "rank": chunk_rows.rank})
        .groupby(["query_id", "doc_id"], as_index=False, sort=False)["rank"].min()
    )
    doc_run["score"] = -doc_run["rank"].astype("float64")  # the best chunk's rank orders it
    doc_qrels = (
        qrels.assign(doc_id=_document_of(qrels["doc_id"], chunk_doc))
        .groupby(["query_id", "doc_id"], as_index=False, sort=False)["relevance"].max()
    )
    return doc_qrels, doc_run


def _ranked(db: sqlite_utils.Database, run: str, unit: str, labels: Labels) -> RankedRows:
    if unit not in UNITS:
        raise ScorecardError(f"unknown unit {unit!r} (use chunk or document)")
    chunk_set = run_chunk_set(db, run)  # the run is scored on its chunk set's labels
    key = ("ranked", _workspace(db), _run_version(db, run), labels.key, unit, chunk_set)

    def compute() -> RankedRows:
        frame = load_run(db, run)
        qrels = labels_for_chunk_set(db, chunk_set, labels.qrels)
        chunk_rows = _ranked(db, run, "chunk", labels) if unit == "document" else None
        if chunk_rows is None:
            return rank_rows(qrels, frame)
        doc_qrels, doc_run = _documents(qrels, frame, chunk_rows, chunk_documents(db))
        return rank_rows(doc_qrels, doc_run)

    return _HEAVY.get(key, compute)
