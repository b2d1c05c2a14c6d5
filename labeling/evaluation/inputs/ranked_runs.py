"""Stored runs read for scoring, and ranked once per (run, label snapshot, unit).

A run is read from its columnar copy in the workspace (``labeling.workspace.run_parts``:
Arrow IPC blobs written at import, already in trec_eval's order with ranks), so opening it makes
no Python object per row and does not sort. A run stored before the copy existed is read from
its rows once, put in that order, and kept in ``.<workspace>.cache/`` next to the workspace.

Unit ``chunk`` scores the run as stored. Unit ``document`` turns chunks into documents: a
document takes the rank of its best-ranked chunk and the highest consensus grade of its
chunks; a chunk without ``doc_id`` is its own document.
"""

from __future__ import annotations

import bisect
import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa

from labeling.errors import ScorecardError
from labeling.evaluation.inputs.chunk_set_labels import labels_for_chunk_set, run_chunk_set
from labeling.evaluation.inputs.label_sets import Labels
from labeling.evaluation.inputs.result_cache import _HEAVY, _cache_dir, _run_version, _workspace
from labeling.evaluation.inputs.score_controls import UNITS
from labeling.metrics.ranking import OrderedRun, RankedRows, rank_ordered, rank_rows
from labeling.workspace import chunk_store, contents, private_files, run_parts

if TYPE_CHECKING:
    import sqlite_utils


@dataclass
class StoredRun:
    """A stored run in storage order (``labeling.workspace.run_parts``).

    ``ordered``: the rows as the metric engine takes them (``rank_ordered``), whose
    ``query_ids`` and ``starts`` also locate one query's rows without a scan; ``rank`` their
    trec_eval rank. ``frame`` (query_id, doc_id = chunk id, score, rank, one row per result) is
    built the first time it is asked for: scoring and the drill-down never need it whole.
    """

    ordered: OrderedRun
    rank: np.ndarray
    queries: list[str] = field(repr=False)
    query_column: pa.ChunkedArray = field(repr=False)
    _frame: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def frame(self) -> pd.DataFrame:
        if self._frame is None:
            names = pa.chunked_array([c.dictionary_decode() for c in self.query_column.chunks],
                                     type=pa.string())
            self._frame = pd.DataFrame({
                "query_id": pd.Series(names, dtype="string"),
                "doc_id": pd.Series(self.ordered.doc_ids, dtype="string"),
                "score": self.ordered.score,
                "rank": self.rank,
            })
        return self._frame

    def positions(self, query_ids: list[str]) -> np.ndarray:
        """Positions in ``ordered.query_ids`` of those of ``query_ids`` the run answered."""
        found = []
        for query_id in query_ids:
            at = bisect.bisect_left(self.queries, query_id)
            if at < len(self.queries) and self.queries[at] == query_id:
                found.append(at)
        return np.array(sorted(found), dtype=np.int64)

    def rows_for(self, query_ids: list[str]) -> pd.DataFrame:
        """The rows of ``query_ids`` (columns as ``frame``), in storage order; the index is
        their row numbers in ``frame``."""
        positions = self.positions(query_ids)
        rows = self.ordered.rows_of(positions)
        counts = self.ordered.starts[positions + 1] - self.ordered.starts[positions]
        names = np.repeat(np.array([self.queries[p] for p in positions], dtype=object), counts)
        return pd.DataFrame({
            "query_id": pd.Series(names, dtype="string", index=rows),
            "doc_id": pd.Series(self.ordered.doc_ids.take(pa.array(rows)), dtype="string",
                                index=rows),
            "score": pd.Series(self.ordered.score[rows], index=rows),
            "rank": pd.Series(self.rank[rows], index=rows),
        })


def _from_table(table: pa.Table) -> StoredRun:
    """A ``StoredRun`` of parts (``run_parts`` tables, in order)."""
    dictionaries, counts = [], []
    for chunk in table["query_id"].chunks:
        dictionaries.append(chunk.dictionary)
        counts.append(np.bincount(chunk.indices.to_numpy(zero_copy_only=False),
                                  minlength=len(chunk.dictionary)))
    query_ids = (pa.concat_arrays(dictionaries) if dictionaries
                 else pa.array([], pa.string()))
    sizes = np.concatenate(counts) if counts else np.zeros(0, dtype=np.int64)
    starts = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    doc_ids = table["doc_id"].combine_chunks()
    ordered = OrderedRun(query_ids, starts, doc_ids, table["score"].to_numpy())
    return StoredRun(ordered, table["rank"].to_numpy(), query_ids.to_pylist(),
                     table["query_id"])


def _rows_in_order(db: sqlite_utils.Database, run_id: int) -> pa.Table:
    """A run without parts, read from its rows and put in storage order."""
    frame = contents.run_rows(db, run_id)
    return run_parts.order_run(
        pa.array(frame["query_id"].astype(str), pa.string()),
        pa.array(frame["doc_id"].astype(str), pa.string()),
        pa.array(frame["score"].astype("float64")),
    )


def _read_table(db: sqlite_utils.Database, run_id: int, created: str) -> pa.Table:
    parts = run_parts.read_run_parts(db.conn, run_id)
    if parts is not None:
        return pa.concat_tables(parts)
    folder = _cache_dir(db)
    tag = hashlib.sha256(created.encode()).hexdigest()[:8]
    path = folder / f"run-{run_id}-{tag}.arrow" if folder else None
    if path is not None and path.exists():
        return run_parts.from_blob(path.read_bytes())
    table = _rows_in_order(db, run_id)
    if path is not None:
        partial = path.with_name(path.name + ".partial")
        try:
            private_files.private_folder(path.parent)
            partial.write_bytes(run_parts.to_blob(table))
            private_files.keep_private(partial)
            partial.replace(path)
        except OSError:  # a read-only folder: work without the disk cache
            partial.unlink(missing_ok=True)
    return table


def stored_run(db: sqlite_utils.Database, run: str) -> StoredRun:
    """The run named ``run`` in storage order; cached in memory per (run id, creation time)
    (a replaced run gets a new id, so a stale copy is never read)."""
    run_id, created, _ = _run_version(db, run)
    return _HEAVY.get(("run", _workspace(db), run_id, created),
                      lambda: _from_table(_read_table(db, run_id, created)))


def load_run(db: sqlite_utils.Database, run: str) -> pd.DataFrame:
    """A run as query_id, doc_id (chunk id), score, rank: rows by query id, then in trec_eval's
    order (score descending, doc id descending) with that rank. Treat it as read-only."""
    return stored_run(db, run).frame


def chunk_documents(db: sqlite_utils.Database) -> pd.Series:
    """chunk id -> document id (the chunk id itself when the chunk has no ``doc_id``)."""
    frame = chunk_store.chunk_document_ids(db)
    return pd.Series(frame["doc"].to_numpy(), index=frame["id"].astype("string"))


def documents_of_chunks(db: sqlite_utils.Database, chunk_ids: list[str]) -> pd.Series:
    """``chunk_documents`` for ``chunk_ids`` only (one indexed lookup, not the whole table)."""
    frame = chunk_store.chunk_document_ids(db, chunk_ids)
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


def rank_subset(
    db: sqlite_utils.Database, run: str, unit: str, qrels: pd.DataFrame, query_ids: list[str]
) -> tuple[RankedRows, pd.DataFrame]:
    """The ranked rows of ``query_ids`` alone (their labels ``qrels``), as ``_ranked`` ranks
    them within the whole run: what a new judgment on those queries changes."""
    rows = stored_run(db, run).rows_for(query_ids)[["query_id", "doc_id", "score"]]
    qrels = labels_for_chunk_set(db, run_chunk_set(db, run), qrels)
    chunk_rows = rank_rows(qrels, rows)
    if unit == "chunk":
        return chunk_rows, rows
    chunks = sorted(set(rows["doc_id"].astype(str)) | set(qrels["doc_id"].astype(str)))
    doc_qrels, doc_run = _documents(qrels, rows, chunk_rows, documents_of_chunks(db, chunks))
    return rank_rows(doc_qrels, doc_run), doc_run


def _ranked(db: sqlite_utils.Database, run: str, unit: str, labels: Labels) -> RankedRows:
    if unit not in UNITS:
        raise ScorecardError(f"unknown unit {unit!r} (use chunk or document)")
    chunk_set = run_chunk_set(db, run)  # the run is scored on its chunk set's labels
    key = ("ranked", _workspace(db), _run_version(db, run), labels.key, unit, chunk_set)

    def compute() -> RankedRows:
        stored = stored_run(db, run)
        qrels = labels_for_chunk_set(db, chunk_set, labels.qrels)
        if unit == "chunk":
            return rank_ordered(qrels, stored.ordered)
        chunk_rows = _ranked(db, run, "chunk", labels)
        doc_qrels, doc_run = _documents(qrels, stored.frame, chunk_rows, chunk_documents(db))
        return rank_rows(doc_qrels, doc_run)

    return _HEAVY.get(key, compute)
