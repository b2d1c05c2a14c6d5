"""Scores of stored runs: per-query values, scorecards by segment and measure-vs-k curves.

Every function takes a ``labeling.evaluation.score_controls.Controls``: the run, measures, unit,
policy, split, consensus rule and relevance threshold come from it, never from a default.

Conventions
- Scores come from the metric engine (``labeling.metrics.engine.evaluate_ranked``) on the consensus
  labels (``labeling.judging.consensus``); a run is ranked once per (run, label snapshot, unit) with
  ``labeling.metrics.ranking.rank_rows`` and kept in an in-memory cache, so changing a measure, a
  segment, the split or the unjudged policy only re-runs the cheap part.
- Unit ``chunk`` scores the run as stored. Unit ``document`` turns chunks into documents: a
  document takes the rank of its best-ranked chunk and the highest consensus grade of its
  chunks; a chunk without ``doc_id`` is its own document.
- Policy ``nonrelevant`` counts unjudged retrieved items as not relevant (trec_eval's default);
  ``judged_only`` drops them before scoring (``trec_eval -J``). Recall is always measured
  against the labeled set, not the whole corpus.
- The evaluated queries are those with at least one consensus label, filtered by split.
  Segment values come from ``queries.source``, ``queries.split`` or a ``query_attributes``
  name; a query lacking the attribute is in segment ``(missing)``.
- A label snapshot hash is the first 12 hex digits of a SHA-256 over the sorted consensus
  (query, chunk, grade) rows: equal hashes mean equal labels. A split's hash (``split_hash``,
  recorded when the split is locked) also covers the texts those labels describe."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import sqlite_utils

from labeling.evaluation.label_sets import labels_for
from labeling.evaluation.ranked_runs import _ranked
from labeling.evaluation.result_cache import _CACHE, _db_state, _run_version, _workspace
from labeling.evaluation.score_controls import (
    BOOTSTRAP_RESAMPLES,
    CONFIDENCE,
    NO_SEGMENT,
    OVERALL,
    SEED,
    Controls,
)
from labeling.evaluation.segmenting import _segments, query_table
from labeling.metrics import statistics
from labeling.metrics.engine import Evaluation, QueryCount, evaluate_ranked
from labeling.metrics.measures import parse_measure


def stored_run_evaluation(
    db: sqlite_utils.Database, controls: Controls, *, missing: str | None = None
) -> Evaluation:
    """The engine's evaluation of ``controls.run`` (per-query values and the parts they are
    made of) over the evaluated queries of ``controls.split``, uncached: what the CLI prints.
    ``missing`` as in ``labeling.metrics.engine.evaluate`` (default: ``controls.missing``);
    ``unanswered`` holds the split's evaluated queries the run returned nothing for."""
    result = _evaluate(db, controls, missing or controls.missing)
    kept = in_split(db, result.per_query, controls.split).index
    unanswered = in_split(db, pd.DataFrame(index=result.unanswered), controls.split).index
    return Evaluation(result.per_query.loc[kept], result.parts.loc[kept], unanswered)


def _evaluate(db: sqlite_utils.Database, controls: Controls, missing: str) -> Evaluation:
    """Every evaluated query (split ``all``), on the consensus labels under ``controls.rule``."""
    labels = labels_for(db, controls)
    if labels.qrels.empty:  # nothing is evaluated before the first label
        index = pd.Index([], dtype="string", name="query_id")
        return Evaluation(
            per_query=pd.DataFrame({m: pd.Series(dtype="float64") for m in controls.measures},
                                   index=index),
            parts=pd.DataFrame(index=index),
            unanswered=index,
        )
    rows = _ranked(db, controls.run, controls.unit, labels)
    result = evaluate_ranked(rows, controls.measures, judged_only=controls.judged_only,
                             missing=missing)
    for frame in (result.per_query, result.parts):
        frame.index = frame.index.astype("string")
    result.unanswered = result.unanswered.astype("string")
    return result


def per_query(db: sqlite_utils.Database, controls: Controls) -> pd.DataFrame:
    """Per-query values of ``controls.run`` (index query_id, one column per measure of
    ``controls.measures``) over the evaluated queries of ``controls.split``; without the
    queries the run returned nothing for when ``controls.missing`` is ``skip``."""
    labels = labels_for(db, controls)
    key = ("per_query", _workspace(db), _run_version(db, controls.run), labels.key,
           controls.unit, controls.policy, controls.measures, controls.missing)
    values = _CACHE.get(key, lambda: _evaluate(db, controls, controls.missing).per_query)
    return in_split(db, values, controls.split, key)


def unanswered_queries(db: sqlite_utils.Database, controls: Controls) -> pd.Index:
    """The evaluated queries of ``controls.split`` that ``controls.run`` returned nothing for
    (whatever ``controls.missing``), in query id order."""
    return _answers(db, controls)[1]


def query_count(db: sqlite_utils.Database, controls: Controls) -> QueryCount:
    """``QueryCount`` of ``controls.run`` under ``controls`` (split, rule, ``missing``)."""
    evaluated, unanswered = _answers(db, controls)
    return QueryCount(len(evaluated), len(unanswered), controls.skip_missing)


def _answers(db: sqlite_utils.Database, controls: Controls) -> tuple[pd.Index, pd.Index]:
    """(evaluated queries, those without a result) of ``controls.run`` in ``controls.split``."""
    labels = labels_for(db, controls)
    key = ("answers", _workspace(db), _run_version(db, controls.run), labels.key,
           controls.unit)

    def compute() -> pd.DataFrame:
        if labels.qrels.empty:
            return pd.DataFrame({"answered": pd.Series(dtype=bool)},
                                index=pd.Index([], dtype="string", name="query_id"))
        rows = _ranked(db, controls.run, controls.unit, labels)
        index = pd.Index(rows.query_ids, name="query_id").astype("string")
        return pd.DataFrame({"answered": rows.retrieved > 0}, index=index).sort_index()

    frame = in_split(db, _CACHE.get(key, compute), controls.split, key)
    return frame.index, frame.index[~frame["answered"].to_numpy(dtype=bool)]


def in_split(
    db: sqlite_utils.Database, values: pd.DataFrame, split: str, key: tuple | None = None
) -> pd.DataFrame:
    """The rows of ``values`` (indexed by query id) whose query is in ``split`` (all for
    ``all``); cached under ``key`` when given."""
    if split == "all":
        return values

    def compute() -> pd.DataFrame:
        splits = query_table(db)["split"].reindex(values.index)
        return values.loc[(splits == split).fillna(False).to_numpy(dtype=bool)]

    if key is None:
        return compute()
    # Split membership can change without a new label: key on the workspace state too.
    return _CACHE.get((*key, split, _db_state(db)), compute)


def scorecard(
    values: pd.DataFrame,
    queries: pd.DataFrame,
    segment: str = NO_SEGMENT,
    *,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = SEED,
    confidence: float = CONFIDENCE,
) -> pd.DataFrame:
    """Per segment and overall: each measure's mean, bootstrap interval and query count.

    Columns: segment, measure, mean, ci_low, ci_high, n. The overall rows come first
    (segment ``(all queries)``), then segments by name. Bootstrap seeds are fixed per cell
    (``seed``), so the table is reproducible.
    """
    groups = _segments(queries, segment, values.index)
    rows = []
    parts: list[tuple[str, pd.DataFrame]] = [(OVERALL, values)]
    if segment != NO_SEGMENT:
        parts += [(str(name), frame) for name, frame in values.groupby(groups, sort=True)]
    for name, frame in parts:
        for measure in values.columns:
            ci = statistics.bootstrap_ci(
                frame[measure].to_numpy(), confidence=confidence, n_resamples=n_resamples,
                seed=seed,
            )
            rows.append({"segment": name, "measure": measure, "mean": ci.mean,
                         "ci_low": ci.low, "ci_high": ci.high, "n": ci.n})
    return pd.DataFrame(rows, columns=["segment", "measure", "mean", "ci_low", "ci_high", "n"])


def segment_scorecard(
    db: sqlite_utils.Database,
    controls: Controls,
    segment: str = NO_SEGMENT,
    *,
    queries: pd.DataFrame | None = None,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = SEED,
) -> pd.DataFrame:
    """``scorecard`` of ``per_query(db, controls)``, cached per controls and segment.

    The cache key holds the label version, so a new judgment recomputes it. Pass ``queries``
    (``query_table``) to skip re-reading the segments.
    """
    labels = labels_for(db, controls)
    # Segments and splits can change without a new label: key on the workspace state too.
    # ``queries`` given by the caller must be the current query_table (same state).
    key = ("scorecard", _workspace(db), _run_version(db, controls.run), labels.version,
           controls, segment, _db_state(db), n_resamples, seed)

    def compute() -> pd.DataFrame:
        table = query_table(db) if queries is None else queries
        values = per_query(db, controls)
        return scorecard(values, table, segment, n_resamples=n_resamples, seed=seed)

    return _CACHE.get(key, compute)


def with_error_bars(card: pd.DataFrame) -> pd.DataFrame:
    """The scorecard plus err_plus / err_minus: distances from the mean to the interval ends."""
    return card.assign(err_plus=card["ci_high"] - card["mean"],
                       err_minus=card["mean"] - card["ci_low"])


def scorecard_matrix(card: pd.DataFrame) -> pd.DataFrame:
    """The scorecard's means as a segment x measure table (for the heatmap)."""
    return card.pivot(index="segment", columns="measure", values="mean")


def curve_ks(depth: int) -> list[int]:
    """Cutoffs for measure-vs-k curves: every k up to 20, then a coarser grid to ``depth``."""
    grid = set(range(1, min(depth, 20) + 1))
    grid.update(k for k in (25, 30, 40, 50, 75, 100, 150, 200, 300, 500, 1000) if k <= depth)
    grid.add(max(depth, 1))
    return sorted(grid)


def curves(db: sqlite_utils.Database, controls: Controls, runs: Sequence[str]) -> pd.DataFrame:
    """Mean of each of ``controls.measures`` as k goes from 1 to the deepest rank, for each of
    ``runs`` under the same controls: run, measure, k, mean.

    Measures are taken without their cutoff (``R@10`` gives the R curve); measures without a
    cutoff (``Rprec``) are left out.
    """
    rows = []
    labels = labels_for(db, controls)
    for run in runs:
        ranked = _ranked(db, run, controls.unit, labels)
        depth = int(ranked.rank.max()) if len(ranked.rank) else 1
        ks = curve_ks(depth)
        for measure in controls.measures:
            if parse_measure(measure).kind == "Rprec":
                continue
            base = str(measure).split("@", 1)[0]
            at_k = controls.for_run(run).with_measures(f"{base}@{k}" for k in ks)
            means = per_query(db, at_k).mean()
            rows += [{"run": run, "measure": base, "k": k, "mean": float(means[name])}
                     for k, name in zip(ks, at_k.measures, strict=True)]
    return pd.DataFrame(rows, columns=["run", "measure", "k", "mean"])
