"""The metric engine: every measure of ``labeling.metrics.measures`` over all queries at once.

Conventions are trec_eval's unless a measure parameter says otherwise (see
``labeling.metrics.measures``):

* A query's value is computed on its ranked list (``labeling.metrics.ranking``); the mean is over
the
  evaluated queries: every query with a label. A labeled query the run returned nothing for
  scores 0 (``trec_eval -c``) unless ``missing="skip"``.
* A query whose labels are all below the relevance threshold scores 0 on every binary measure
  and counts in the mean. Negative grades are judged, not relevant, and give gain 0.
* P@k divides by k even when fewer than k items were retrieved; RR is not cut unless written
  ``RR@k``; AP@k divides by all relevant items (``denom=relevant``); nDCG ignores ``rel`` and
  uses log2(rank + 1) discounts; Judged@k divides by k.
* ``judged_only=True`` removes unjudged items before ranking (``trec_eval -J``).

No Python loop runs per query: each measure is a handful of ``np.bincount`` passes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from labeling.metrics.measures import Measure, parse_measure
from labeling.metrics.ranking import RankedRows, rank_rows

__all__ = ["Evaluation", "evaluate", "evaluate_ranked", "ranked_list"]


@dataclass
class Evaluation:
    """Per-query values (one column per measure, as written by the caller) and their means.

    ``parts`` holds, per query, the numbers each value is made of (``AP.sum_precision``,
    ``nDCG@10.idcg`` ...), so that a page can show the arithmetic.
    """

    per_query: pd.DataFrame
    parts: pd.DataFrame

    @property
    def mean(self) -> pd.Series:
        if self.per_query.empty:
            return pd.Series(0.0, index=self.per_query.columns)
        return self.per_query.mean()


class _Context:
    """Arrays shared by the measures of one evaluation, computed once on demand."""

    def __init__(self, rows: RankedRows):
        self.rows = rows
        self.n = rows.n_queries
        self._relevant: dict[int, np.ndarray] = {}
        self._num_relevant: dict[int, np.ndarray] = {}
        self._cumulative: dict[int, np.ndarray] = {}
        max_rank = int(rows.rank.max()) if len(rows.rank) else 0
        max_ideal = int(np.bincount(rows.qrels_query).max()) if len(rows.qrels_query) else 0
        self.discount = 1.0 / np.log2(np.arange(2, max(max_rank, max_ideal) + 2))

    def count(self, mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        query = self.rows.query[mask]
        w = None if weights is None else weights[mask]
        return np.bincount(query, weights=w, minlength=self.n).astype(np.float64)

    def relevant(self, rel: int) -> np.ndarray:
        if rel not in self._relevant:
            self._relevant[rel] = self.rows.grade >= rel  # NaN (unjudged) compares False
        return self._relevant[rel]

    def num_relevant(self, rel: int) -> np.ndarray:
        if rel not in self._num_relevant:
            mask = self.rows.qrels_grade >= rel
            self._num_relevant[rel] = np.bincount(
                self.rows.qrels_query[mask], minlength=self.n
            ).astype(np.float64)
        return self._num_relevant[rel]

    def cumulative_relevant(self, rel: int) -> np.ndarray:
        """Relevant items at or above each row's rank, within its query."""
        if rel not in self._cumulative:
            relevant = self.relevant(rel).astype(np.int64)
            total = np.cumsum(relevant)
            before = np.zeros(self.n, dtype=np.int64)
            ends = np.cumsum(self.rows.retrieved)
            has_prior = ends - self.rows.retrieved > 0
            before[has_prior] = total[(ends - self.rows.retrieved)[has_prior] - 1]
            self._cumulative[rel] = total - before[self.rows.query]
        return self._cumulative[rel]

    def within(self, cutoff: int | None) -> np.ndarray | None:
        """Rows ranked at or above ``cutoff``; None (every row) for no cutoff."""
        return None if cutoff is None else self.rows.rank <= cutoff


def _gain(grade: np.ndarray, kind: object) -> np.ndarray:
    positive = np.where(np.isnan(grade), 0.0, np.maximum(grade, 0.0))
    return positive if kind == "linear" else np.exp2(positive) - 1.0


def _divide(numerator: np.ndarray, denominator: np.ndarray | float) -> np.ndarray:
    denominator = np.broadcast_to(np.asarray(denominator, dtype=np.float64), numerator.shape)
    out = np.zeros_like(numerator)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _mask(ctx: _Context, *masks: np.ndarray | None) -> np.ndarray:
    out = np.ones(len(ctx.rows.rank), dtype=bool)
    for m in masks:
        if m is not None:
            out &= m
    return out


def _precision(ctx: _Context, m: Measure) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    found = ctx.count(_mask(ctx, ctx.relevant(m.rel), ctx.within(m.cutoff)))
    return found / m.cutoff, {"relevant_retrieved": found}


def _recall(ctx: _Context, m: Measure) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    found = ctx.count(_mask(ctx, ctx.relevant(m.rel), ctx.within(m.cutoff)))
    total = ctx.num_relevant(m.rel)
    return _divide(found, total), {"relevant_retrieved": found, "relevant": total}


def _success(ctx: _Context, m: Measure) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    found = ctx.count(_mask(ctx, ctx.relevant(m.rel), ctx.within(m.cutoff)))
    return (found > 0).astype(np.float64), {"relevant_retrieved": found}


def _first_relevant_rank(ctx: _Context, rel: int) -> np.ndarray:
    at = np.flatnonzero(ctx.relevant(rel))
    first = np.zeros(ctx.n, dtype=np.float64)
    if len(at):
        query = ctx.rows.query[at]
        lead = np.ones(len(at), dtype=bool)
        lead[1:] = query[1:] != query[:-1]
        first[query[lead]] = ctx.rows.rank[at[lead]]
    return first


def _reciprocal_rank(ctx: _Context, m: Measure) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    first = _first_relevant_rank(ctx, m.rel)
    if m.cutoff is not None:
        first = np.where(first <= m.cutoff, first, 0.0)
    return _divide(np.ones(ctx.n), first), {"first_relevant_rank": first}


def _average_precision(ctx: _Context, m: Measure) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    hits = _mask(ctx, ctx.relevant(m.rel), ctx.within(m.cutoff))
    precision = ctx.cumulative_relevant(m.rel) / ctx.rows.rank
    summed = ctx.count(hits, precision)
    if m.param("denom") == "retrieved":
        denominator = ctx.count(hits)
    else:
        denominator = ctx.num_relevant(m.rel)
    return _divide(summed, denominator), {"sum_precision": summed, "denominator": denominator}


def _ideal_dcg(ctx: _Context, m: Measure, gain_kind: object) -> np.ndarray:
    rows = ctx.rows
    if m.param("ideal") == "retrieved":
        keep = _mask(ctx, ctx.within(m.cutoff))
        query, gain = rows.query[keep], _gain(rows.grade[keep], gain_kind)
    else:
        query = rows.qrels_query
        gain = _gain(rows.qrels_grade.astype(np.float64), gain_kind)
    order = np.lexsort((-gain, query))
    query, gain = query[order], gain[order]
    counts = np.bincount(query, minlength=ctx.n)
    starts = np.zeros(ctx.n, dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    rank = np.arange(1, len(query) + 1) - starts[query]
    keep = slice(None) if m.cutoff is None else rank <= m.cutoff
    return np.bincount(
        query[keep], weights=gain[keep] * ctx.discount[rank[keep] - 1], minlength=ctx.n
    ).astype(np.float64)


def _dcg_parts(ctx: _Context, m: Measure) -> np.ndarray:
    gain = _gain(ctx.rows.grade, m.param("gain"))
    return ctx.count(_mask(ctx, ctx.within(m.cutoff)), gain * ctx.discount[ctx.rows.rank - 1])


def _ndcg(ctx: _Context, m: Measure) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    dcg = _dcg_parts(ctx, m)
    idcg = _ideal_dcg(ctx, m, m.param("gain"))
    return _divide(dcg, idcg), {"dcg": dcg, "idcg": idcg}


def _dcg(ctx: _Context, m: Measure) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    return _dcg_parts(ctx, m), {}


def _cg(ctx: _Context, m: Measure) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    gain = _gain(ctx.rows.grade, m.param("gain"))
    return ctx.count(_mask(ctx, ctx.within(m.cutoff)), gain), {}


def _r_precision(ctx: _Context, m: Measure) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    total = ctx.num_relevant(m.rel)
    found = ctx.count(ctx.relevant(m.rel) & (ctx.rows.rank <= total[ctx.rows.query]))
    return _divide(found, total), {"relevant_retrieved": found, "relevant": total}


def _judged(ctx: _Context, m: Measure) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    found = ctx.count(_mask(ctx, ~np.isnan(ctx.rows.grade), ctx.within(m.cutoff)))
    return found / m.cutoff, {"judged": found}


_COMPUTE = {
    "P": _precision, "R": _recall, "Success": _success, "RR": _reciprocal_rank,
    "AP": _average_precision, "nDCG": _ndcg, "DCG": _dcg, "CG": _cg, "Rprec": _r_precision,
    "Judged": _judged,
}


def evaluate_ranked(
    rows: RankedRows,
    measures: Iterable[str | Measure],
    *,
    judged_only: bool = False,
    missing: str = "zero",
) -> Evaluation:
    """Evaluate rows already ranked by ``labeling.metrics.ranking.rank_rows`` (to reuse one
    ranking)."""
    if missing not in ("zero", "skip"):
        raise ValueError("missing must be 'zero' or 'skip'")
    answered = rows.retrieved > 0  # before judged_only: "missing" means no results at all
    if judged_only:
        rows = rows.judged_only()
    ctx = _Context(rows)
    values: dict[str, np.ndarray] = {}
    parts: dict[str, np.ndarray] = {}
    for written in measures:
        measure = parse_measure(written)
        value, measure_parts = _COMPUTE[measure.kind](ctx, measure)
        values[str(written)] = value
        for part, array in measure_parts.items():
            parts[f"{written}.{part}"] = array
    index = pd.Index(rows.query_ids, name="query_id")
    per_query = pd.DataFrame(values, index=index)
    part_frame = pd.DataFrame(parts, index=index)
    if missing == "skip":
        per_query, part_frame = per_query[answered], part_frame[answered]
    return Evaluation(per_query=per_query, parts=part_frame)


def evaluate(
    qrels: pd.DataFrame,
    run: pd.DataFrame,
    measures: Iterable[str | Measure],
    *,
    judged_only: bool = False,
    missing: str = "zero",
) -> Evaluation:
    """Evaluate ``run`` against ``qrels`` on ``measures`` (names such as ``"nDCG@10"``).

    ``qrels``: columns query_id, doc_id, relevance (integer grade). ``run``: query_id, doc_id
    and score, or rank only. ``missing="skip"`` leaves out labeled queries without results
    instead of scoring them 0. Returns per-query values, their parts and the means.
    """
    return evaluate_ranked(
        rank_rows(qrels, run), measures, judged_only=judged_only, missing=missing
    )


def ranked_list(
    qrels: pd.DataFrame, run: pd.DataFrame, *, rel: int = 1, judged_only: bool = False
) -> pd.DataFrame:
    """The ranked rows behind the measures, for showing the arithmetic of a query.

    Columns: query_id, rank, doc_id, score, grade (NaN when unjudged), relevant,
    relevant_so_far, precision (at this rank), discount (1 / log2(rank + 1)).
    """
    rows = rank_rows(qrels, run)
    if judged_only:
        rows = rows.judged_only()
    ctx = _Context(rows)
    source = run.iloc[rows.doc_row]
    return pd.DataFrame({
        "query_id": rows.query_ids[rows.query],
        "rank": rows.rank,
        "doc_id": source["doc_id"].to_numpy(),
        "score": source["score"].to_numpy() if "score" in run.columns else -rows.rank,
        "grade": rows.grade,
        "relevant": ctx.relevant(rel),
        "relevant_so_far": ctx.cumulative_relevant(rel),
        "precision": ctx.cumulative_relevant(rel) / np.maximum(rows.rank, 1),
        "discount": ctx.discount[rows.rank - 1] if len(rows.rank) else np.zeros(0),
    })
