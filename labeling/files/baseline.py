"""A BM25 baseline run (bm25s) over the workspace's chunks, stored like any imported run.

Conventions: every non-placeholder query is searched against every non-placeholder chunk; the
indexed text is the chosen ``fields`` joined by a blank line; English stopwords, lowercase, no
stemming, bm25s defaults (Lucene variant, k1=1.5, b=0.75). Chunks without a matching term
(score 0) are not listed, so a query may have fewer than ``k`` results.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

import bm25s
import numpy as np

from labeling.errors import ScorecardError
from labeling.files.importers import ImportResult
from labeling.workspace import chunk_sets, chunk_store, query_store, runs
from labeling.workspace.ids import check_run_name
from labeling.workspace.run_parts import write_run_parts
from labeling.workspace.store import utc_now, write_transaction

if TYPE_CHECKING:
    import sqlite_utils

FIELDS = ("title", "text")


def bm25_run(
    db: sqlite_utils.Database,
    run_name: str = "bm25",
    k: int = 100,
    fields: Sequence[str] = ("text",),
    *,
    replace: bool = True,
    chunk_set: str | None = None,
) -> ImportResult:
    """Compute and store a BM25 run named ``run_name`` (replacing one of that name by default).

    ``chunk_set``: search only that chunk set's chunks, and record it (and its size) on the run.
    """
    check_run_name(run_name)
    fields = tuple(fields)
    if not fields or set(fields) - set(FIELDS):
        raise ScorecardError(f"fields must be among {', '.join(FIELDS)}, not {', '.join(fields)}")
    if k < 1:
        raise ScorecardError("k must be at least 1")
    if chunk_set is not None:
        chunk_sets.get_chunk_set(db, chunk_set)
    chunks = chunk_store.search_texts(db.conn, fields, chunk_set)
    queries = query_store.split_query_texts(db.conn, None)
    if not chunks or not queries:
        raise ScorecardError("the workspace needs chunks and queries before a BM25 baseline")
    rows = _ranked(chunks, queries, k)
    meta = {
        "retriever": "bm25s",
        "bm25s_version": bm25s.__version__,
        "fields": list(fields),
        "k": k,
        "k1": 1.5,
        "b": 0.75,
        "method": "lucene",
        "stopwords": "english",
    }
    _store(db, run_name, meta, rows, replace=replace, chunk_set=chunk_set)
    return ImportResult("run", rows=len(rows))


def _ranked(
    chunks: list[tuple[str, str]], queries: list[tuple[str, str]], k: int
) -> list[tuple[str, str, int, float]]:
    """(query_id, chunk_id, rank from 1, score) of each query's top ``k`` chunks by BM25,
    chunks of score 0 left out."""
    chunk_ids = [c[0] for c in chunks]
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize([c[1] for c in chunks], show_progress=False), show_progress=False
    )
    tokens = bm25s.tokenize([q[1] for q in queries], return_ids=False, show_progress=False)
    docs, scores = retriever.retrieve(tokens, k=min(k, len(chunks)), show_progress=False)
    rows = []
    for (query_id, _), found, score in zip(queries, docs, scores, strict=True):
        keep = score > 0
        for rank, (doc, value) in enumerate(zip(found[keep], score[keep], strict=True), start=1):
            rows.append((query_id, chunk_ids[int(doc)], rank, float(np.float64(value))))
    return rows


def _store(
    db: sqlite_utils.Database, run_name: str, meta: dict, rows: list[tuple], *, replace: bool,
    chunk_set: str | None,
) -> None:
    """Store the run ``run_name`` (replacing one of that name when ``replace``) with its rows
    and its columnar copy, in one transaction."""
    with write_transaction(db, action="baseline") as conn:
        if runs.run_id(conn, run_name) is not None:
            if not replace:
                raise ScorecardError(f"a run named {run_name!r} already exists")
            runs.delete_run(conn, run_name)
        run_id = runs.insert_run(conn, {
            "name": run_name,
            "index_build": f"bm25s {bm25s.__version__} over {'+'.join(meta['fields'])}",
            "created_at": utc_now(),
            "notes": "BM25 baseline computed by scorecard",
            "metadata": json.dumps(meta),
        })
        if chunk_set is not None:
            runs.set_run_chunk_set(conn, run_id, chunk_set, with_size=True)
        runs.insert_ranked_results(conn, run_id, rows)
        write_run_parts(conn, run_id)  # the columnar copy the scores read
