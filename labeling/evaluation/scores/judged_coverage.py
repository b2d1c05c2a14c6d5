"""How much of what runs retrieve is judged, why the rest is not (unjudged chunks, or lists
shorter than k), and sending the unjudged pairs to the queue.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from labeling.evaluation.inputs.label_sets import labels_for
from labeling.evaluation.inputs.ranked_runs import _ranked, load_run
from labeling.evaluation.inputs.score_controls import NO_SEGMENT, OVERALL, Controls
from labeling.evaluation.inputs.segmenting import _segments
from labeling.evaluation.scores.scoring import per_query
from labeling.judging import pooling, queue
from labeling.workspace import provenance, query_store, store

if TYPE_CHECKING:
    import sqlite_utils

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
    split and consensus rule, and why the rest of the top-k slots are not judged: run,
    segment, judged, unjudged, short, slots_filled, slots, n, below (judged < threshold).

    ``judged`` is the engine's Judged@k (judged items in the top k, divided by k), averaged over
    the queries; ``unjudged`` is the share of top-k slots holding an item without a label (the
    part the labeling queue can fix) and ``short`` the share left empty because the run
    returned fewer than k items (no label can fill them): judged + unjudged + short = 1.
    ``slots_filled`` / ``slots`` count the slots (k per query). Always counted with unjudged
    items kept (policy ``nonrelevant``; with them dropped every list would be fully judged) and
    with every evaluated query, those the run returned nothing for included (all short).
    """
    k = controls.k
    measure = f"Judged@{k}"
    counted = replace(controls, measures=(measure,), policy="nonrelevant", missing="zero")
    frames = []
    for run in runs:
        values = per_query(db, counted.for_run(run))
        filled = _filled_slots(db, counted.for_run(run)).reindex(values.index).fillna(0)
        per = pd.DataFrame({"judged": values[measure], "filled": filled / k,
                            "slots_filled": filled}, index=values.index)
        groups = _segments(queries, segment, values.index)
        parts = [(OVERALL, per)]
        if segment != NO_SEGMENT:
            parts += [(str(name), frame) for name, frame in per.groupby(groups, sort=True)]
        frames.append(pd.DataFrame([_coverage_row(run, name, frame, k) for name, frame in parts]))
    columns = ["run", "segment", "judged", "unjudged", "short", "slots_filled", "slots", "n"]
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    for column in ("judged", "unjudged", "short"):
        out[column] = out[column].fillna(0.0).astype("float64")
    out["below"] = out["judged"] < threshold
    return out[[*columns, "below"]]


def _coverage_row(run: str, segment: str, frame: pd.DataFrame, k: int) -> dict:
    """One run and segment: mean shares of the top-k slots and the slot counts."""
    judged = float(frame["judged"].mean()) if len(frame) else 0.0
    filled = float(frame["filled"].mean()) if len(frame) else 0.0
    return {"run": run, "segment": segment, "judged": judged,
            "unjudged": max(filled - judged, 0.0), "short": 1.0 - filled,
            "slots_filled": int(frame["slots_filled"].sum()), "slots": k * len(frame),
            "n": len(frame)}


def _filled_slots(db: sqlite_utils.Database, controls: Controls) -> pd.Series:
    """Per evaluated query (every split): how many of the top ``controls.k`` slots the run
    fills in ``controls.unit``, i.e. min(results, k)."""
    labels = labels_for(db, controls)
    rows = _ranked(db, controls.run, controls.unit, labels)
    index = pd.Index(rows.query_ids, name="query_id").astype("string")
    return pd.Series(np.minimum(rows.retrieved, controls.k), index=index, dtype="int64")


def coverage_sentence(row: pd.Series, k: int) -> str:
    """A coverage row in words: what is judged and why the rest is not."""
    return (f"{row['judged']:.0%} of the top-{k} slots are judged, {row['unjudged']:.0%} hold "
            f"unjudged chunks (the labeling queue can fix those) and {row['short']:.0%} are "
            f"empty because the run returned fewer than {k} results "
            f"({row['slots_filled']} of {row['slots']} slots filled; labels cannot fill the "
            "rest).")


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
        in_split = query_store.split_query_ids(db, controls.split)
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


def send_unjudged_to_queue(
    db: sqlite_utils.Database, pairs: Sequence[tuple[str, str]], *, k: int | None = None,
    runs: Sequence[str] = (),
) -> int:
    """Put ``pairs`` in the labeling queue; returns how many were new. When they are the
    unjudged part of the top ``k`` of ``runs`` (``unjudged_pairs``), each is recorded as
    brought by a pool of depth ``k`` (``pair_sources``), in the same transaction."""
    listed = [(str(q), str(c)) for q, c in pairs]
    with store.write_transaction(db, action="enqueue") as conn:
        new = queue.enqueue_pairs(db, listed, reason="coverage")
        if k is not None and listed:
            provenance.add_pair_sources(conn, listed, "pool", pool_depth=int(k),
                                        detail=pooling.pool_detail(runs, k) + " (coverage)")
    return int(new)
