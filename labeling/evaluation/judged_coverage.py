"""How much of what runs retrieve is judged, and sending the unjudged pairs to the queue.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pandas as pd
import sqlite_utils

from labeling.evaluation.label_sets import label_snapshot
from labeling.evaluation.ranked_runs import _ranked, load_run
from labeling.evaluation.score_controls import NO_SEGMENT, OVERALL
from labeling.evaluation.scoring import per_query
from labeling.evaluation.segmenting import _segments
from labeling.judging import queue

# ---------------------------------------------------------------------------------------------
# Coverage


def coverage(
    db: sqlite_utils.Database,
    runs: Sequence[str],
    k: int,
    queries: pd.DataFrame,
    segment: str = NO_SEGMENT,
    *,
    unit: str = "chunk",
    split: str = "all",
    threshold: float = 0.8,
) -> pd.DataFrame:
    """Judged@k per run and segment: run, segment, judged, n, below (judged < threshold)."""
    measure = f"Judged@{k}"
    frames = []
    for run in runs:
        values = per_query(db, run, [measure], unit=unit, split=split)
        groups = _segments(queries, segment, values.index)
        table = values[measure].groupby(groups).agg(["mean", "size"]).reset_index()
        table.columns = ["segment", "judged", "n"]
        overall = pd.DataFrame({"segment": [OVERALL], "judged": [values[measure].mean()],
                                "n": [len(values)]})
        both = pd.concat([overall, table]) if segment != NO_SEGMENT else overall
        frames.append(both.assign(run=run))
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["segment", "judged", "n", "run"]
    )
    out["judged"] = out["judged"].fillna(0.0).astype("float64")
    out["below"] = out["judged"] < threshold
    return out[["run", "segment", "judged", "n", "below"]]


def unjudged_pairs(
    db: sqlite_utils.Database,
    runs: Sequence[str],
    k: int,
    *,
    split: str = "all",
    query_ids: Iterable[str] | None = None,
) -> list[tuple[str, str]]:
    """(query_id, chunk_id) pairs in the top ``k`` of ``runs`` without a consensus label.

    Queries are the evaluated ones (labeled at least once), filtered by split and ``query_ids``.
    """
    labels = label_snapshot(db)
    judged = pd.MultiIndex.from_frame(labels.qrels[["query_id", "doc_id"]].astype("string"))
    wanted = None if query_ids is None else set(query_ids)
    if split != "all":
        in_split = {r[0] for r in db.conn.execute("SELECT id FROM queries WHERE split = ?",
                                                   [split])}
        wanted = in_split if wanted is None else wanted & in_split
    pairs: dict[tuple[str, str], None] = {}
    for run in runs:
        frame = load_run(db, run)
        rows = _ranked(db, run, "chunk", labels)
        top = rows.rank <= k
        picked = frame.iloc[rows.doc_row[top]][["query_id", "doc_id"]].astype("string")
        if wanted is not None:
            picked = picked.loc[picked["query_id"].isin(wanted)]
        keep = ~pd.MultiIndex.from_frame(picked).isin(judged)
        for q, c in zip(picked["query_id"][keep], picked["doc_id"][keep], strict=True):
            pairs[(str(q), str(c))] = None
    return list(pairs)


def send_unjudged_to_queue(db: sqlite_utils.Database, pairs: Sequence[tuple[str, str]]) -> int:
    """Put ``pairs`` in the labeling queue; returns how many were new."""
    return int(queue.enqueue_pairs(db, pairs, reason="coverage"))
