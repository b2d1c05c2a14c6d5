"""How far unjudged results can move a run's per-query values, and how full its top k is.

Conventions
- A *slot* is a rank 1..k of a query's top k. It is *filled* when the run returned a result
  for it and *empty* when the run returned fewer than k results; a filled slot is *judged*
  when its (query, chunk) pair has a label. Empty slots are never unjudged: nothing is there to
  judge. Judged@k over filled slots is judged / filled; the share of empty slots is
  (k - filled) / k. Counts are per query (``Slots``).
- A *filling* gives every unjudged pair of ``U`` a grade; ``U`` is the unjudged pairs in the top
  ``depth`` of either run compared (the deepest cutoff of the measures; the whole lists when a
  measure has none). One filling holds for both runs: a pair has one true grade. Pairs no run
  returned stay unjudged: nobody can bound what nobody retrieved.
- ``low`` and ``high`` bound the value of a measure over *every* filling (grades up to
  ``top_grade``), computed from two evaluations: as scored (``U`` not relevant, the engine's
  convention) and with all of ``U`` at ``top_grade``:
  P, Success, RR, CG and DCG grow with the grade of each retrieved result and have no
  denominator: as scored is the lowest, all at the top grade the highest.
  R@k = found / R: the highest fills only the run's own top k (found_top / (R_0 + found_top -
  found_0)), the lowest fills only the rest (found_0 / R_top).
  nDCG = DCG / IDCG and AP = sum of precisions / denominator: both parts grow with any grade,
  so the value lies between numerator_0 / denominator_top and numerator_top / denominator_0
  (at most 1). Filling a low-ranked result can lower nDCG or AP (it raises the ideal more than
  the gain), so "every unjudged result relevant" is not the highest value: these bounds are.
  Rprec (no cutoff, its rank R moves with the labels) lies between 0 and 1 on a query with any
  unjudged pair; Judged counts labels, not grades, and is not moved.
- The bounds of a *change* (candidate - baseline) follow: at most ``candidate.high -
  baseline.low`` and at least ``candidate.low - baseline.high`` under any filling (a filling
  consistent across both runs cannot do better than the two extremes taken apart).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from labeling.metrics.engine import evaluate_ranked
from labeling.metrics.measures import parse_measure
from labeling.metrics.ranking import rank_rows

__all__ = ["Bounded", "Slots", "bounded_values", "slot_counts"]

# Kinds whose value only grows with the grade of a retrieved result and has no denominator.
_MONOTONE = ("P", "Success", "RR", "CG", "DCG")


@dataclass(frozen=True)
class Slots:
    """Per query (index query_id): ``filled`` and ``judged`` of the top ``k`` (see the module
    docstring). Sums over queries give a group's counts."""

    k: int
    filled: pd.Series
    judged: pd.Series

    def totals(self, queries: pd.Index) -> tuple[int, int, int]:
        """(slots, filled, judged) of ``queries``: k per query, counted over them."""
        filled = int(self.filled.reindex(queries, fill_value=0).sum())
        judged = int(self.judged.reindex(queries, fill_value=0).sum())
        return self.k * len(queries), filled, judged


@dataclass(frozen=True)
class Bounded:
    """One run's per-query values (index query_id, one column per measure): ``scored`` (the
    engine's, unjudged not relevant), ``low`` and ``high`` over every filling of the unjudged
    pairs, and its ``Slots`` per cutoff."""

    scored: pd.DataFrame
    low: pd.DataFrame
    high: pd.DataFrame
    slots: dict[int, Slots]

    @classmethod
    def fully_judged(cls, scored: pd.DataFrame, k: int) -> Bounded:
        """Values with no unjudged pair and every top-``k`` slot filled and judged."""
        full = pd.Series(k, index=scored.index, dtype="int64")
        return cls(scored, scored, scored, {k: Slots(k, full, full)})

    def restricted(self, queries: pd.Index) -> Bounded:
        """The same values on ``queries`` only (in that order)."""
        return Bounded(self.scored.loc[queries], self.low.loc[queries], self.high.loc[queries],
                       self.slots)


def _pairs(qrels: pd.DataFrame, run: pd.DataFrame, depth: int | None) -> pd.DataFrame:
    """The (query_id, doc_id) pairs of ``run``'s top ``depth`` (all when None) with no label
    in ``qrels``, on the queries ``qrels`` labels."""
    rows = rank_rows(qrels, run)
    keep = np.isnan(rows.grade) & (rows.rank <= (depth or np.iinfo(np.int64).max))
    return pd.DataFrame({
        "query_id": rows.query_ids[rows.query[keep]].astype(str),
        "doc_id": run["doc_id"].to_numpy()[rows.doc_row[keep]].astype(str)})


def slot_counts(qrels: pd.DataFrame, run: pd.DataFrame, k: int) -> Slots:
    """Filled and judged slots of ``run``'s top ``k`` on the queries ``qrels`` labels."""
    rows = rank_rows(qrels, run)
    index = pd.Index(rows.query_ids.astype(str), dtype="string", name="query_id")
    within = rows.rank <= k
    judged = np.bincount(rows.query[within & ~np.isnan(rows.grade)], minlength=len(index))
    filled = np.minimum(rows.retrieved, k)
    return Slots(k, pd.Series(filled, index=index, dtype="int64"),
                 pd.Series(judged, index=index, dtype="int64"))


def _frame(values: dict[str, np.ndarray], index: pd.Index) -> pd.DataFrame:
    return pd.DataFrame(values, index=index)


def _ratio_high(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator capped at 1; 1 where the denominator is 0 and the numerator
    is not (any positive value may be reached), 0 where both are."""
    out = np.where(numerator > 0, 1.0, 0.0)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return np.minimum(out, 1.0)


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.zeros_like(numerator, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _bounds(name: str, plain, filled) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of measure ``name`` from the evaluation as scored and all-filled."""
    kind = parse_measure(name).kind
    value0 = plain.per_query[name].to_numpy()
    value1 = filled.per_query[name].to_numpy()
    if kind in _MONOTONE:
        return value0, value1
    part0 = {k.split(".", 1)[1]: plain.parts[k].to_numpy() for k in plain.parts
             if k.startswith(f"{name}.")}
    part1 = {k.split(".", 1)[1]: filled.parts[k].to_numpy() for k in filled.parts
             if k.startswith(f"{name}.")}
    if kind == "R":
        found0, found1 = part0["relevant_retrieved"], part1["relevant_retrieved"]
        high = _ratio_high(found1, part0["relevant"] + found1 - found0)
        return _ratio(found0, part1["relevant"]), high
    if kind == "nDCG":
        return (_ratio(part0["dcg"], part1["idcg"]), _ratio_high(part1["dcg"], part0["idcg"]))
    if kind == "AP":
        return (_ratio(part0["sum_precision"], part1["denominator"]),
                _ratio_high(part1["sum_precision"], part0["denominator"]))
    if kind == "Judged":
        return value0, value0
    moved = ~np.isclose(value0, value1) | (part0.get("relevant", 0) != part1.get("relevant", 0))
    return np.where(moved, 0.0, value0), np.where(moved, 1.0, value0)


def bounded_values(
    qrels: pd.DataFrame,
    run: pd.DataFrame,
    other: pd.DataFrame,
    measures: Sequence[str],
    top_grade: int,
    *,
    other_qrels: pd.DataFrame | None = None,
    slot_ks: Sequence[int] = (),
) -> Bounded:
    """``run``'s values of ``measures`` as scored against ``qrels`` and their bounds over every
    filling of the unjudged pairs of ``run`` and ``other`` (the run it is compared with; its
    labels ``other_qrels``, ``qrels`` by default), with slot counts at each of ``slot_ks``.
    Frames as ``labeling.metrics.engine.evaluate`` takes them; queries are those ``qrels``
    labels (a labeled query the run returned nothing for scores 0)."""
    cutoffs = [parse_measure(m).cutoff for m in measures]
    depth = None if any(c is None for c in cutoffs) else max(cutoffs, default=None)
    unjudged = pd.concat([_pairs(qrels, run, depth),
                          _pairs(other_qrels if other_qrels is not None else qrels, other,
                                 depth)])
    keys = pd.MultiIndex.from_frame(qrels[["query_id", "doc_id"]].astype(str))
    unjudged = unjudged.drop_duplicates()
    unjudged = unjudged.loc[~pd.MultiIndex.from_frame(unjudged).isin(keys)]
    labeled = set(qrels["query_id"].astype(str))
    unjudged = unjudged.loc[unjudged["query_id"].isin(labeled)]
    extra = unjudged.assign(relevance=int(top_grade))
    filled_qrels = pd.concat([qrels[["query_id", "doc_id", "relevance"]].astype(
        {"query_id": str, "doc_id": str}), extra], ignore_index=True)
    plain = evaluate_ranked(rank_rows(qrels, run), measures)
    filled = evaluate_ranked(rank_rows(filled_qrels, run), measures)
    index = plain.per_query.index.astype("string")
    filled_index = filled.per_query.index.astype("string")
    order = filled_index.get_indexer(index)
    filled.per_query = filled.per_query.iloc[order]
    filled.parts = filled.parts.iloc[order]
    lows, highs = {}, {}
    for name in measures:
        lows[name], highs[name] = _bounds(name, plain, filled)
    scored = plain.per_query.copy()
    scored.index = index
    return Bounded(scored, _frame(lows, index), _frame(highs, index),
                   {k: slot_counts(qrels, run, k) for k in slot_ks})
