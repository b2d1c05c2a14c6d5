"""The dashboard's data: scorecards by segment, run comparison, coverage, drill-down, reviews.

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

from labeling.errors import ScorecardError
from labeling.evaluation.label_sets import label_snapshot
from labeling.evaluation.ranked_runs import _ranked
from labeling.evaluation.result_cache import _CACHE, _db_state, _run_version, _workspace
from labeling.evaluation.score_controls import (
    NO_SEGMENT,
    OVERALL,
    SPLITS,
    _check_measures,
    _check_policy,
)
from labeling.evaluation.segmenting import _segments, query_table
from labeling.metrics import statistics
from labeling.metrics.engine import evaluate_ranked
from labeling.metrics.measures import parse_measure


def per_query(
    db: sqlite_utils.Database,
    run: str,
    measures: Sequence[str],
    *,
    unit: str = "chunk",
    policy: str = "nonrelevant",
    split: str = "all",
    rule: str = "default",
) -> pd.DataFrame:
    """Per-query values (index query_id, one column per measure) of the evaluated queries."""
    measures = _check_measures(measures)
    _check_policy(policy)
    if split not in SPLITS:
        raise ScorecardError(f"unknown split {split!r} (use all, dev or test)")
    labels = label_snapshot(db, rule)
    key = ("per_query", _workspace(db), _run_version(db, run), labels.version, rule, unit,
           policy, measures)

    def compute() -> pd.DataFrame:
        if labels.qrels.empty:  # nothing is evaluated before the first label
            return pd.DataFrame({m: pd.Series(dtype="float64") for m in measures},
                                index=pd.Index([], dtype="string", name="query_id"))
        rows = _ranked(db, run, unit, labels)
        values = evaluate_ranked(rows, measures, judged_only=policy == "judged_only").per_query
        values.index = values.index.astype("string")
        return values

    values = _CACHE.get(key, compute)
    if split == "all":
        return values

    def in_split() -> pd.DataFrame:
        splits = query_table(db)["split"].reindex(values.index)
        return values.loc[(splits == split).fillna(False).to_numpy(dtype=bool)]

    # Split membership can change without a new label: key on the workspace state too.
    return _CACHE.get((*key, split, _db_state(db)), in_split)


def scorecard(
    values: pd.DataFrame,
    queries: pd.DataFrame,
    segment: str = NO_SEGMENT,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
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
    run: str,
    measures: Sequence[str],
    segment: str = NO_SEGMENT,
    *,
    queries: pd.DataFrame | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    **controls: str,
) -> pd.DataFrame:
    """``scorecard`` of ``per_query(db, run, measures, **controls)``, cached per control set.

    The cache key holds the label version, so a new judgment recomputes it. Pass ``queries``
    (``query_table``) to skip re-reading the segments.
    """
    labels = label_snapshot(db, controls.get("rule", "default"))
    # Segments and splits can change without a new label: key on the workspace state too.
    # ``queries`` given by the caller must be the current query_table (same state).
    key = ("scorecard", _workspace(db), _run_version(db, run), labels.version, tuple(measures),
           segment, _db_state(db), n_resamples, seed, tuple(sorted(controls.items())))

    def compute() -> pd.DataFrame:
        table = query_table(db) if queries is None else queries
        values = per_query(db, run, measures, **controls)
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


def curves(
    db: sqlite_utils.Database,
    runs: Sequence[str],
    measures: Sequence[str],
    *,
    unit: str = "chunk",
    policy: str = "nonrelevant",
    split: str = "all",
) -> pd.DataFrame:
    """Mean of each measure as k goes from 1 to the deepest rank: run, measure, k, mean.

    ``measures`` are names with or without a cutoff (``R@10`` and ``R`` both give the R curve);
    measures without a cutoff (``Rprec``) are left out.
    """
    rows = []
    labels = label_snapshot(db)
    for run in runs:
        ranked = _ranked(db, run, unit, labels)
        depth = int(ranked.rank.max()) if len(ranked.rank) else 1
        ks = curve_ks(depth)
        for measure in measures:
            parsed = parse_measure(measure)
            if parsed.kind in ("Rprec",):
                continue
            base = str(measure).split("@", 1)[0]
            names = [f"{base}@{k}" for k in ks]
            means = per_query(db, run, names, unit=unit, policy=policy, split=split).mean()
            rows += [{"run": run, "measure": base, "k": k, "mean": float(means[name])}
                     for k, name in zip(ks, names, strict=True)]
    return pd.DataFrame(rows, columns=["run", "measure", "k", "mean"])
