"""Scores of stored runs: per-query values, scorecards by segment and measure-vs-k curves.

Every function takes a ``labeling.evaluation.inputs.score_controls.Controls``: the run,
measures, unit, policy, split, consensus rule and relevance threshold come from it, never
from a default.

Conventions
- Scores come from the metric engine (``labeling.metrics.engine.evaluate_ranked``) on the consensus
  labels (``labeling.judging.consensus``); a run is ranked once per (run, label snapshot, unit)
  (``labeling.metrics.ranking.rank_ordered`` on the stored order) and kept in an in-memory
  cache, so changing a measure, a segment, the split or the unjudged policy only re-runs the
  cheap part. After new judgments, per-query values are patched: only the queries whose labels
  changed are scored again (``per_query``); means, segments and intervals follow from them.
- A run scored outside the workspace (``labeling.evaluation.inputs.outside_values``) has imported
  per-query values, used as they are.
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

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from labeling.evaluation.inputs.chunk_set_labels import labels_for_chunk_set, run_chunk_set
from labeling.evaluation.inputs.label_sets import Kept, Labels, labels_for
from labeling.evaluation.inputs.outside_values import outside_values
from labeling.evaluation.inputs.ranked_runs import _ranked, rank_subset, stored_run
from labeling.evaluation.inputs.result_cache import (
    _CACHE,
    _FORGETTERS,
    _LRU,
    _run_version,
    _workspace,
    queries_state,
)
from labeling.evaluation.inputs.score_controls import (
    BOOTSTRAP_RESAMPLES,
    CONFIDENCE,
    NO_SEGMENT,
    OVERALL,
    SEED,
    Controls,
)
from labeling.evaluation.inputs.segmenting import _segments, query_table
from labeling.metrics import statistics
from labeling.metrics.engine import Evaluation, QueryCount, evaluate_ranked
from labeling.metrics.measures import parse_measure

if TYPE_CHECKING:
    import sqlite_utils


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
    """Every evaluated query (split ``all``), on the labels ``controls`` chooses."""
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


# ---------------------------------------------------------------------------------------------
# Per-query values, kept per controls and brought up to date query by query

# Beyond this many changed queries, one evaluation of the whole run is cheaper than patching.
PATCH_QUERIES = 2_000
KEPT_VALUES = 64  # (run, labels, unit, policy, measures, missing) combinations kept


_VALUES = Kept(KEPT_VALUES)
_FORGETTERS.append(_VALUES.clear)


def _patched(
    db: sqlite_utils.Database, controls: Controls, labels: Labels, values: pd.DataFrame,
    changed: frozenset[str],
) -> pd.DataFrame:
    """``values`` with the queries in ``changed`` evaluated again on ``labels``: the same
    engine on those queries' rows and labels alone gives the same numbers as on the whole run
    (every measure is per query)."""
    queries = sorted(changed)
    qrels = labels.rows_of(queries)
    at = values.index.get_indexer(pd.Index(queries, dtype="string"))
    if qrels.empty:
        fresh = values.iloc[0:0]
    else:
        rows, _ = rank_subset(db, controls.run, controls.unit, qrels, queries)
        fresh = evaluate_ranked(rows, controls.measures, judged_only=controls.judged_only,
                                missing=controls.missing).per_query
        fresh.index = fresh.index.astype("string")
    if (at >= 0).all() and len(fresh) == len(queries):
        # The same queries before and after: values change in place, order and index kept.
        where = values.index.get_indexer(fresh.index)
        columns = {}
        for column in values.columns:
            array = values[column].to_numpy(copy=True)
            array[where] = fresh[column].to_numpy()
            columns[column] = array
        return pd.DataFrame(columns, index=values.index)
    kept = values.drop(index=values.index[at[at >= 0]])
    return pd.concat([kept, fresh]).sort_index()


def per_query(db: sqlite_utils.Database, controls: Controls) -> pd.DataFrame:
    """Per-query values of ``controls.run`` (index query_id, one column per measure of
    ``controls.measures``) over the evaluated queries of ``controls.split``; without the
    queries the run returned nothing for when ``controls.missing`` is ``skip``.

    Kept between calls: after new judgments only the queries they changed are evaluated again
    (``label_sets.changes_since``); anything else evaluates the whole run. A run scored
    outside the workspace gives its imported values (``outside_values``).
    """
    outside = outside_values(db, controls.run)
    if outside is not None:
        key = ("outside", _workspace(db), _run_version(db, controls.run), outside.created_at,
               controls.measures)
        values = outside.pick(controls)
        if controls.skip_missing:
            values = values.drop(index=unanswered_queries(db, controls))
        return in_split(db, values, controls.split, (*key, controls.missing))
    labels = labels_for(db, controls)
    state = (_workspace(db), _run_version(db, controls.run), labels.key[1:], controls.unit,
             controls.policy, controls.measures, controls.missing)
    values = _VALUES.up_to_date(
        db, state, labels, lambda: _evaluate(db, controls, controls.missing).per_query,
        lambda known, changed: _patched(db, controls, labels, known, changed), PATCH_QUERIES)
    key = ("per_query", *state, labels.version)
    return in_split(db, values, controls.split, key)


def unanswered_queries(db: sqlite_utils.Database, controls: Controls) -> pd.Index:
    """The evaluated queries of ``controls.split`` that ``controls.run`` returned nothing for
    (whatever ``controls.missing``), in query id order."""
    return _answers(db, controls)[1]


def query_count(db: sqlite_utils.Database, controls: Controls) -> QueryCount:
    """``QueryCount`` of ``controls.run`` under ``controls`` (split, labels, ``missing``)."""
    evaluated, unanswered = _answers(db, controls)
    return QueryCount(len(evaluated), len(unanswered), controls.skip_missing)


def _answers(db: sqlite_utils.Database, controls: Controls) -> tuple[pd.Index, pd.Index]:
    """(evaluated queries, those without a result) of ``controls.run`` in ``controls.split``.

    The evaluated queries are those with a label the run is scored on (its chunk set's); a
    query is answered when the run holds a row for it: no ranking needed, so a new judgment
    costs a lookup, not a re-rank of the run."""
    labels = labels_for(db, controls)
    chunk_set = run_chunk_set(db, controls.run)
    key = ("answers", _workspace(db), _run_version(db, controls.run), labels.key, chunk_set)

    def compute() -> pd.DataFrame:
        outside = outside_values(db, controls.run)
        if outside is not None:  # the queries its values cover; answered: those with rows
            evaluated = [str(q) for q in outside.values.index]
        elif chunk_set is None:
            evaluated = labels.queries
        else:
            qrels = labels_for_chunk_set(db, chunk_set, labels.qrels)
            evaluated = [str(q) for q in qrels["query_id"].unique()]
        returned = set(stored_run(db, controls.run).queries)  # 40x faster than Index.isin
        answered = [q in returned for q in evaluated]
        index = pd.Index(evaluated, dtype="string", name="query_id")
        return pd.DataFrame({"answered": answered}, index=index).sort_index()

    frame = in_split(db, _CACHE.get(key, compute), controls.split, key)
    return frame.index, frame.index[~frame["answered"].to_numpy(dtype=bool)]


def values_note(db: sqlite_utils.Database, run: str) -> str | None:
    """For a run scored outside the workspace, the sentence saying what its values are made
    of and that they do not follow new judgments; None for a run scored here."""
    outside = outside_values(db, run)
    return None if outside is None else outside.describe()


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
    # Split membership can change without a new label: key on the queries' state too.
    return _CACHE.get((*key, split, queries_state(db)), compute)


# After a judgment only its query's segment has new values: the other cells' intervals are
# found again by the values' digest instead of resampled.
_INTERVALS = _LRU(4_096)
_SEGMENTS = _LRU(16)


def _interval(
    values: np.ndarray, confidence: float, n_resamples: int, seed: int
) -> statistics.BootstrapInterval:
    """``statistics.bootstrap_ci`` of ``values``, remembered by their digest."""
    digest = hashlib.sha1(np.ascontiguousarray(values, dtype=np.float64).tobytes()).digest()
    return _INTERVALS.get(
        (digest, len(values), confidence, n_resamples, seed),
        lambda: statistics.bootstrap_ci(values, confidence=confidence,
                                        n_resamples=n_resamples, seed=seed),
    )


def _kept_segments(queries: pd.DataFrame, segment: str, index: pd.Index) -> pd.Series:
    """``_segments``, remembered for the same query table and index objects (a patched set of
    per-query values keeps its index)."""
    key = (id(queries), id(index), segment)
    found = _SEGMENTS.get(key, lambda: (queries, index, _segments(queries, segment, index)))
    if found[0] is queries and found[1] is index:
        return found[2]
    return _segments(queries, segment, index)


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
    groups = _kept_segments(queries, segment, values.index)
    rows = []
    parts: list[tuple[str, pd.DataFrame]] = [(OVERALL, values)]
    if segment != NO_SEGMENT:
        parts += [(str(name), frame) for name, frame in values.groupby(groups, sort=True)]
    for name, frame in parts:
        for measure in values.columns:
            ci = _interval(frame[measure].to_numpy(), confidence, n_resamples, seed)
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
    outside = outside_values(db, controls.run)
    if outside is not None:  # fixed values: the label version does not matter
        labels = replace(labels, version=(0, outside.created_at))
    # Segments and splits can change without a new label: key on the queries' state too.
    # ``queries`` given by the caller must be the current query_table (same state).
    key = ("scorecard", _workspace(db), _run_version(db, controls.run), labels.version,
           controls, segment, queries_state(db), n_resamples, seed)

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
        if outside_values(db, run) is not None:
            continue  # scored elsewhere on fixed cutoffs: no curve to draw
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
