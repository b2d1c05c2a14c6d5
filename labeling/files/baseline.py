"""A BM25 baseline run (bm25s) over the workspace's chunks, stored like any imported run.

Conventions: every non-placeholder query is searched against every non-placeholder chunk; the
indexed text is the chosen ``fields`` joined by a blank line; English stopwords, lowercase, no
stemming, bm25s defaults (Lucene variant, k1=1.5, b=0.75). Chunks without a matching term
(score 0) are not listed, so a query may have fewer than ``k`` results.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import bm25s
import numpy as np
import sqlite_utils

from labeling.errors import ScorecardError
from labeling.files.importers import ImportResult
from labeling.workspace import chunk_sets
from labeling.workspace.ids import check_run_name
from labeling.workspace.run_parts import write_run_parts
from labeling.workspace.store import utc_now, write_transaction

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
    text = " || char(10) || char(10) || ".join(f"coalesce({f}, '')" for f in fields)
    if chunk_set is not None:
        chunk_sets.get_chunk_set(db, chunk_set)
    members = "" if chunk_set is None else (
        " AND id IN (SELECT chunk_id FROM chunk_set_members WHERE chunk_set = :set)")
    chunks = db.conn.execute(
        f"SELECT id, {text} FROM chunks WHERE placeholder = 0{members} ORDER BY rowid",
        {"set": chunk_set},
    ).fetchall()
    queries = db.conn.execute(
        "SELECT id, coalesce(text, '') FROM queries WHERE placeholder = 0 ORDER BY rowid"
    ).fetchall()
    if not chunks or not queries:
        raise ScorecardError("the workspace needs chunks and queries before a BM25 baseline")
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
    with write_transaction(db, action="baseline") as conn:
        old = conn.execute("SELECT id FROM runs WHERE name = ?", [run_name]).fetchone()
        if old is not None:
            if not replace:
                raise ScorecardError(f"a run named {run_name!r} already exists")
            conn.execute("DELETE FROM runs WHERE id = ?", [old[0]])
        run_id = conn.execute(
            "INSERT INTO runs (name, index_build, created_at, notes, metadata)"
            " VALUES (?, ?, ?, ?, ?)",
            [
                run_name,
                f"bm25s {bm25s.__version__} over {'+'.join(fields)}",
                utc_now(),
                "BM25 baseline computed by scorecard",
                json.dumps(meta),
            ],
        ).lastrowid
        if chunk_set is not None:
            conn.execute(
                "UPDATE runs SET chunk_set = ?,"
                " chunk_size = (SELECT size FROM chunk_sets WHERE name = ?) WHERE id = ?",
                [chunk_set, chunk_set, run_id],
            )
        conn.executemany(
            "INSERT INTO run_results (run_id, query_id, chunk_id, rank, score)"
            " VALUES (?, ?, ?, ?, ?)",
            ((run_id, *row) for row in rows),
        )
        write_run_parts(conn, run_id)  # the columnar copy the scores read
    return ImportResult("run", rows=len(rows))
