"""Pooling: the pairs worth judging are the union of the top k results of the chosen runs.

Ranks follow the metric engine's convention (score descending, ties by chunk id descending in
byte order), so "top k" here is the top k the metrics will score. The pool keeps no run name,
rank or score in the queue: judging stays blind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from labeling.errors import InputError
from labeling.judging import queue
from labeling.workspace import contents, label_queue, provenance, store

if TYPE_CHECKING:
    import sqlite_utils

DEFAULT_K = 10
POOL_REASON = "pool"


@dataclass(frozen=True)
class PoolResult:
    """``pooled``: distinct (query, chunk) pairs in the pool (the union of the runs' top
    ``k``); ``new``: of those, how many were not in the labeling queue before and were added
    (``already`` the rest). Both count pairs, not queue slots or judgments."""

    pooled: int
    new: int
    runs: tuple[str, ...] = ()
    k: int = DEFAULT_K

    @property
    def already(self) -> int:
        return self.pooled - self.new

    def sentence(self) -> str:
        """What the pool did, saying what each number counts."""
        return (f"Pooled {self.pooled} (query, chunk) pairs from the top {self.k} of "
                f"{', '.join(self.runs)}: {self.new} of them were not in the labeling queue and "
                f"are added; {self.already} were queued already.")


def pool_pairs(
    db: sqlite_utils.Database,
    runs: Sequence[str],
    k: int = DEFAULT_K,
    *,
    segment: tuple[str, Sequence[str]] | None = None,
    split: str | None = None,
) -> pd.DataFrame:
    """The union of the top ``k`` of each run in ``runs``: query_id, chunk_id, sorted.

    ``segment=(attribute, values)`` keeps queries whose attribute is one of ``values``;
    ``split`` (``dev`` / ``test``) keeps that split's queries.
    """
    if k < 1:
        raise InputError("k must be at least 1", source="pool")
    if not runs:
        raise InputError("choose at least one run to pool", source="pool")
    run_ids = [contents.get_run(db, name)["id"] for name in runs]  # raises for an unknown run
    if segment is not None:
        segment = (segment[0], list(segment[1]))
        if not segment[1]:
            raise InputError("choose at least one segment value", source="pool")
    frame = contents.top_results(db, run_ids, k, split=split, segment=segment)
    return frame.astype({"query_id": "string", "chunk_id": "string"})


def build_pool(
    db: sqlite_utils.Database,
    runs: Sequence[str],
    k: int = DEFAULT_K,
    *,
    segment: tuple[str, Sequence[str]] | None = None,
    split: str | None = None,
) -> PoolResult:
    """Pool the runs (see ``pool_pairs``) and put the pairs in the labeling queue, recording
    for each pair that a pool of depth ``k`` brought it (``pair_sources``), in one
    transaction."""
    pairs = pool_pairs(db, runs, k, segment=segment, split=split)
    listed = list(zip(pairs["query_id"], pairs["chunk_id"], strict=True))
    with store.write_transaction(db, action="enqueue") as conn:
        new = queue.enqueue_pairs(db, listed, reason=POOL_REASON)
        provenance.add_pair_sources(conn, listed, "pool", pool_depth=int(k),
                                    detail=pool_detail(runs, k))
    return PoolResult(pooled=len(pairs), new=new, runs=tuple(runs), k=int(k))


def pool_detail(runs: Sequence[str], k: int) -> str:
    """How a pool is described in ``pair_sources.detail``: "top 10 of bm25, fusion"."""
    return f"top {int(k)} of {', '.join(runs)}"


def pairs_of_query(db: sqlite_utils.Database, query_id: str, annotator: str,
                   queue_name: str = queue.SHARED) -> pd.DataFrame:
    """The pairs of one query queued in ``queue_name`` for the "judge by query" view, in the
    chunk-id order (not a run's order: judging stays blind): chunk_id, title, text, my_grade
    (Int64, NA when not judged by ``annotator``), judged, needed."""
    frame = label_queue.query_pairs(db, query_id, (annotator or "").strip(),
                                    queue.is_audit(queue_name))
    frame["text"] = [contents.shown_text(t, c) for c, t in zip(frame["chunk_id"], frame["text"],
                                                               strict=True)]
    return frame.astype({"chunk_id": "string", "my_grade": "Int64"})


def queries_to_judge(db: sqlite_utils.Database, queue_name: str = queue.SHARED) -> pd.DataFrame:
    """Every query with text, as ``queued_queries``: those with queued pairs first, then the
    rest (pairs 0: nothing queued, e.g. a new query no run has returned results for yet, which
    is judged from a corpus search), each part by query id. The audit lists its own queries
    only: nothing outside it is audited."""
    queued = queued_queries(db, queue_name)
    if queue_name != queue.SHARED:
        return queued
    rest = label_queue.unqueued_queries(db)
    rest = rest.assign(pairs=0, complete=0).astype(
        {"query_id": "string", "pairs": "int64", "complete": "int64"})
    return pd.concat([queued, rest], ignore_index=True) if len(rest) else queued


def queued_queries(db: sqlite_utils.Database, queue_name: str = queue.SHARED) -> pd.DataFrame:
    """Queries with pairs queued in ``queue_name``: query_id, text, pairs, complete (sorted
    by query id)."""
    frame = label_queue.queue_queries(db, queue.is_audit(queue_name))
    return frame.astype({"query_id": "string", "pairs": "int64", "complete": "int64"})
