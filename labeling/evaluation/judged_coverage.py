"""How much of what runs retrieve is judged, and sending the unjudged pairs to the queue.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

import pandas as pd
import sqlite_utils

from labeling.evaluation.label_sets import labels_for
from labeling.evaluation.ranked_runs import _ranked, load_run
from labeling.evaluation.score_controls import NO_SEGMENT, OVERALL, Controls
from labeling.evaluation.scoring import per_query
from labeling.evaluation.segmenting import _segments
from labeling.judging import queue

COVERAGE_WARNING = 0.8  # Judged@k below this share is flagged

# ---------------------------------------------------------------------------------------------
# Coverage


def coverage(
    db: sqlite_utils.Database,
    controls: Controls,
    runs: Sequence[str],
    queries: pd.DataFrame,
    segment: str = NO_SEGMENT,
    *,
    threshold: float = COVERAGE_WARNING,
) -> pd.DataFrame:
    """Judged@k (k = ``controls.k``) of each of ``runs`` per segment, under ``controls``' unit,
    split and consensus rule: run, segment, judged, n, below (judged < threshold).

    Always counted with unjudged items kept (policy ``nonrelevant``): with them dropped
    (``judged_only``) every list would be fully judged.
    """
    measure = f"Judged@{controls.k}"
    counted = replace(controls, measures=(measure,), policy="nonrelevant")
    frames = []
    for run in runs:
        values = per_query(db, counted.for_run(run))
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
    controls: Controls,
    runs: Sequence[str],
    *,
    query_ids: Iterable[str] | None = None,
) -> list[tuple[str, str]]:
    """(query_id, chunk_id) pairs in the top ``controls.k`` chunks of ``runs`` without a
    consensus label under ``controls.rule``.

    Queries are the evaluated ones (labeled at least once), filtered by ``controls.split`` and
    ``query_ids``. Pairs are chunks whatever the unit: a chunk is what gets judged.
    """
    labels = labels_for(db, controls)
    judged = pd.MultiIndex.from_frame(labels.qrels[["query_id", "doc_id"]].astype("string"))
    wanted = None if query_ids is None else set(query_ids)
    if controls.split != "all":
        in_split = {r[0] for r in db.conn.execute("SELECT id FROM queries WHERE split = ?",
                                                   [controls.split])}
        wanted = in_split if wanted is None else wanted & in_split
    pairs: dict[tuple[str, str], None] = {}
    for run in runs:
        frame = load_run(db, run)
        rows = _ranked(db, run, "chunk", labels)
        top = rows.rank <= controls.k
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
