"""Scores across chunkings: one retriever before and after re-chunking, and runs of different
chunk sets on one footing.

Side by side (``side_by_side``): each run is scored at the chunk unit against its own chunk
set's labels (``labeling.evaluation.inputs.chunk_set_labels``), on the queries given (those whose
labels carried over), under the same controls; the difference is new minus old, with the
paired randomization test.

One footing (``one_footing``): both runs are scored against the labels of one *reference*
chunk set, so their different chunkings do not change what counts as relevant:

- unit ``document``: a retrieved chunk stands for its document (its span's, else its
  ``doc_id``); a document takes the rank of its first chunk and the highest reference grade of
  its chunks (as the dashboard's document unit does).
- unit ``span``: a retrieved chunk stands for the reference chunks (judged texts) it *covers*:
  those of which it holds at least ``SPAN_SHARE`` of the text, or which make up at least
  ``SPAN_SHARE`` of it. A chunk covering several stands for each, in its rank's place, the
  highest graded first; a judged text counts once, at the first rank that covers it; a chunk
  that covers none stands for itself (unjudged). A run of the reference chunk set whose chunks
  do not overlap scores exactly as at the chunk unit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from labeling.evaluation.inputs.chunk_set_labels import labels_for_chunk_set
from labeling.evaluation.inputs.label_sets import label_snapshot
from labeling.evaluation.inputs.ranked_runs import load_run
from labeling.evaluation.inputs.result_cache import _CACHE, _run_version, _workspace
from labeling.evaluation.inputs.score_controls import (
    BOOTSTRAP_RESAMPLES,
    SEED,
    TEST_RESAMPLES,
    Controls,
)
from labeling.evaluation.scores.scoring import in_split, per_query
from labeling.metrics import statistics
from labeling.metrics.engine import evaluate
from labeling.rechunking.mapping import chunk_overlaps
from labeling.workspace import chunk_sets, chunk_store

if TYPE_CHECKING:
    import sqlite_utils

SPAN_SHARE = 0.5
FOOTING_UNITS = ("document", "span")


# ---------------------------------------------------------------------------------------------
# Before and after re-chunking


def side_by_side(
    db: sqlite_utils.Database, controls: Controls, old_run: str, new_run: str,
    query_ids: Iterable[str],
) -> pd.DataFrame:
    """``old_run`` and ``new_run`` on the queries of ``query_ids`` both score, per measure of
    ``controls``: measure, n, old, old_low, old_high, new, new_low, new_high, difference,
    p_randomization (bootstrap intervals at the controls' confidence)."""
    wanted = pd.Index(list(query_ids), dtype="string")
    rows = []
    old_values = per_query(db, controls.for_run(old_run))
    new_values = per_query(db, controls.for_run(new_run))
    common = old_values.index.intersection(new_values.index).intersection(wanted)
    for measure in controls.measures:
        a = old_values.loc[common, measure].to_numpy(float)
        b = new_values.loc[common, measure].to_numpy(float)
        before, after = (statistics.bootstrap_ci(v, n_resamples=BOOTSTRAP_RESAMPLES, seed=SEED)
                         for v in (a, b))
        test = statistics.compare_paired(a, b, n_resamples=TEST_RESAMPLES, seed=SEED)
        rows.append({"measure": measure, "n": len(common), "old": before.mean,
                     "old_low": before.low, "old_high": before.high, "new": after.mean,
                     "new_low": after.low, "new_high": after.high,
                     "difference": test.difference, "p_randomization": test.p_randomization})
    return pd.DataFrame(rows, columns=["measure", "n", "old", "old_low", "old_high", "new",
                                       "new_low", "new_high", "difference", "p_randomization"])


# ---------------------------------------------------------------------------------------------
# One footing


def reference_qrels(db: sqlite_utils.Database, controls: Controls, reference: str) -> pd.DataFrame:
    """Consensus labels (controls' rule) of the chunks of chunk set ``reference``."""
    qrels = labels_for_chunk_set(db, reference, label_snapshot(db, controls.rule).qrels)
    members = chunk_sets.member_ids(db, reference)
    return qrels.loc[qrels["doc_id"].astype("string").isin(members)].reset_index(drop=True)


def footing_per_query(
    db: sqlite_utils.Database, controls: Controls, run: str, reference: str, unit: str,
    *, share: float = SPAN_SHARE,
) -> pd.DataFrame:
    """Per-query values of ``controls.measures`` for ``run`` at ``unit`` (document or span)
    against the labels of chunk set ``reference``, over the controls' split."""
    if unit not in FOOTING_UNITS:
        raise ValueError(f"unit must be one of {', '.join(FOOTING_UNITS)}, not {unit!r}")
    labels = label_snapshot(db, controls.rule)
    # Chunk sets never change once imported: the labels and the run decide the values.
    key = ("footing", _workspace(db), _run_version(db, run), labels.version, controls,
           reference, unit, share)
    values = _CACHE.get(key, lambda: _footing_values(db, controls, run, reference, unit, share))
    return in_split(db, values, controls.split)


def _footing_values(
    db: sqlite_utils.Database, controls: Controls, run: str, reference: str, unit: str,
    share: float,
) -> pd.DataFrame:
    """``footing_per_query`` over every evaluated query (split ``all``), uncached."""
    qrels = reference_qrels(db, controls, reference)
    rows = load_run(db, run)
    spans = _run_spans(db, run)
    if unit == "document":
        ranked, qrels = _as_documents(db, rows, spans, qrels)
    else:
        ranked = _as_spans(db, rows, spans, reference, qrels, share)
    if qrels.empty:
        index = pd.Index([], dtype="string", name="query_id")
        return pd.DataFrame({m: pd.Series(dtype="float64") for m in controls.measures},
                            index=index)
    values = evaluate(qrels, ranked, controls.measures, judged_only=controls.judged_only).per_query
    values.index = values.index.astype("string")
    return values


def one_footing(
    db: sqlite_utils.Database, controls: Controls, runs: Sequence[str], reference: str,
    query_ids: Iterable[str] | None = None, *, share: float = SPAN_SHARE,
) -> pd.DataFrame:
    """Mean of each measure per run and unit against chunk set ``reference``'s labels, on the
    queries every run scores (and in ``query_ids`` when given): run, unit, measure, mean, n."""
    values = {(run, unit): footing_per_query(db, controls, run, reference, unit, share=share)
              for run in runs for unit in FOOTING_UNITS}
    common = None
    for frame in values.values():
        common = frame.index if common is None else common.intersection(frame.index)
    if query_ids is not None and common is not None:
        common = common.intersection(pd.Index(list(query_ids), dtype="string"))
    rows = [{"run": run, "unit": unit, "measure": measure,
             "mean": float(frame.loc[common, measure].mean()) if len(common) else 0.0,
             "n": len(common)}
            for (run, unit), frame in values.items() for measure in controls.measures]
    return pd.DataFrame(rows, columns=["run", "unit", "measure", "mean", "n"])


def footing_table(footing: pd.DataFrame) -> pd.DataFrame:
    """``one_footing``'s rows as a table: unit, measure, then one column of means per run."""
    if footing.empty:
        return pd.DataFrame(columns=["unit", "measure"])
    table = footing.pivot(index=["unit", "measure"], columns="run", values="mean")
    table.columns.name = None
    return table.reset_index()


def _run_spans(db: sqlite_utils.Database, run: str) -> pd.DataFrame:
    """Spans of the chunks ``run`` retrieved (chunk_id, doc_id, doc_version, start, end)."""
    frame = chunk_sets.run_chunk_spans(db, run)
    return frame.astype({"chunk_id": "string", "doc_id": "string", "doc_version": "string",
                         "start": "int64", "end": "int64"})


def _as_documents(
    db: sqlite_utils.Database, rows: pd.DataFrame, spans: pd.DataFrame, qrels: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(run of documents ranked by their first chunk, qrels of documents by highest grade)."""
    stored = chunk_store.chunk_documents_known(db)
    document = pd.concat([
        pd.Series(stored["doc_id"].to_numpy(), index=stored["id"].astype("string")),
        pd.Series(spans["doc_id"].to_numpy(), index=spans["chunk_id"]),
    ])
    document = document[~document.index.duplicated(keep="last")]

    def of(ids: pd.Series) -> pd.Series:
        ids = ids.astype("string")
        return ids.map(document).fillna(ids).astype("string")

    ranked = rows.assign(doc_id=of(rows["doc_id"])).sort_values(["query_id", "rank"])
    ranked = ranked.drop_duplicates(["query_id", "doc_id"])
    ranked = ranked.assign(score=-ranked["rank"].astype("float64"))[["query_id", "doc_id",
                                                                     "score"]]
    doc_qrels = (qrels.assign(doc_id=of(qrels["doc_id"]))
                 .groupby(["query_id", "doc_id"], as_index=False)["relevance"].max())
    return ranked, doc_qrels


def _as_spans(
    db: sqlite_utils.Database, rows: pd.DataFrame, spans: pd.DataFrame, reference: str,
    qrels: pd.DataFrame, share: float,
) -> pd.DataFrame:
    """The run with each retrieved chunk replaced by the judged texts it covers (see above)."""
    judged = chunk_sets.chunk_spans(db, reference).reset_index(drop=True)
    spans = spans.reset_index(drop=True)
    overlaps = chunk_overlaps(judged, spans, lambda keys: chunk_sets.document_texts(db, keys))
    covers = overlaps.loc[(overlaps["share_of_judged"] >= share)
                          | (overlaps["share_of_chunk"] >= share)]
    link = pd.DataFrame({"doc_id": spans["chunk_id"].to_numpy()[covers["new"].to_numpy()],
                         "covered": judged["chunk_id"].to_numpy()[covers["old"].to_numpy()]})
    ordered = rows.sort_values(["query_id", "rank"])[["query_id", "doc_id", "rank"]]
    ordered = ordered.astype({"query_id": "string", "doc_id": "string"})
    expanded = ordered.merge(link.astype("string"), on="doc_id", how="left")
    expanded["covered"] = expanded["covered"].fillna(expanded["doc_id"])
    grades = qrels.astype({"query_id": "string", "doc_id": "string"}).rename(
        columns={"doc_id": "covered", "relevance": "grade"})
    expanded = expanded.merge(grades, on=["query_id", "covered"], how="left")
    expanded["grade"] = expanded["grade"].fillna(-np.inf)
    expanded = expanded.sort_values(["query_id", "rank", "grade", "covered"],
                                    ascending=[True, True, False, True], kind="stable")
    expanded = expanded.drop_duplicates(["query_id", "covered"])
    position = expanded.groupby("query_id").cumcount() + 1
    return pd.DataFrame({"query_id": expanded["query_id"].to_numpy(),
                         "doc_id": expanded["covered"].to_numpy(),
                         "score": -position.to_numpy(dtype="float64")})
