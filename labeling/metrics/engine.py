"""The metric engine: every measure of ``labeling.metrics.measures`` over all queries at once.

Conventions are trec_eval's unless a measure parameter says otherwise (see
``labeling.metrics.measures``):

* A query's value is computed on its ranked list (``labeling.metrics.ranking``); the mean is
  over the evaluated queries: every query with a label. A labeled query the run returned nothing for
  scores 0 (``trec_eval -c``) unless ``missing="skip"``.
* A query whose labels are all below the relevance threshold scores 0 on every binary measure
  and counts in the mean. Negative grades are judged, not relevant, and give gain 0.
* P@k divides by k even when fewer than k items were retrieved; RR is not cut unless written
  ``RR@k``; AP@k divides by all relevant items (``denom=relevant``); nDCG ignores ``rel`` and
  uses log2(rank + 1) discounts; Judged@k divides by k.
* ``judged_only=True`` removes unjudged items before ranking (``trec_eval -J``).

No Python loop runs per query: each measure is a handful of ``np.bincount`` passes
(``labeling.metrics.ranked_arrays``). Every error it raises is a ``labeling.errors`` type: bad
input (``InputError``), a bad measure name (``MeasureError``), a bad argument (``ScorecardError``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from labeling.errors import ScorecardError
from labeling.metrics.measures import KINDS, Measure, parse_measure
from labeling.metrics.ranked_arrays import RankedArrays
from labeling.metrics.ranking import RankedRows, rank_rows

__all__ = ["Evaluation", "QueryCount", "evaluate", "evaluate_ranked", "ranked_list"]


@dataclass(frozen=True)
class QueryCount:
    """How many queries a score is made of: ``evaluated`` (the queries with at least one
    label, in the scope scored), of which ``returned_nothing`` got no result from the run;
    they score 0 unless ``skipped``, when the means are over the others."""

    evaluated: int
    returned_nothing: int
    skipped: bool

    @property
    def scored(self) -> int:
        """The n of the means."""
        return self.evaluated - self.returned_nothing if self.skipped else self.evaluated

    def summary(self) -> str:
        """'46 evaluated queries, of which 1 returned nothing' (and whether they are left out)."""
        text = (f"{self.evaluated} evaluated queries, of which {self.returned_nothing} "
                "returned nothing")
        return text + (" (left out)" if self.skipped and self.returned_nothing else "")

    def sentence(self) -> str:
        """'n evaluated, of which m returned nothing', with what that does to the means."""
        text = (f"{self.evaluated} evaluated queries, of which {self.returned_nothing} "
                "returned nothing")
        if not self.returned_nothing:
            return text + "."
        if self.skipped:
            return text + f": they are left out, so the means are over {self.scored} queries."
        return text + (": they score 0 and count in the means (as trec_eval -c); skip them to "
                       "score only the queries the run answered.")


@dataclass
class Evaluation:
    """Per-query values (one column per measure, as written by the caller) and their means.

    ``parts`` holds, per query, the numbers each value is made of (``AP.sum_precision``,
    ``nDCG@10.idcg`` ...), so that a page can show the arithmetic. ``unanswered`` names the
    evaluated queries the run returned nothing for, whether they were scored 0 or skipped.
    """

    per_query: pd.DataFrame
    parts: pd.DataFrame
    unanswered: pd.Index = field(default_factory=lambda: pd.Index([], name="query_id"))

    def query_count(self, missing: str = "zero") -> QueryCount:
        """How many queries the values are made of, when evaluated with ``missing``."""
        skipped = missing == "skip"
        evaluated = len(self.per_query) + (len(self.unanswered) if skipped else 0)
        return QueryCount(evaluated, len(self.unanswered), skipped)

    @property
    def mean(self) -> pd.Series:
        if self.per_query.empty:
            return pd.Series(0.0, index=self.per_query.columns)
        return self.per_query.mean()


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
        raise ScorecardError(f"missing must be 'zero' or 'skip', not {missing!r}")
    answered = rows.retrieved > 0  # before judged_only: "missing" means no results at all
    if judged_only:
        rows = rows.judged_only()
    ctx = RankedArrays(rows)
    values: dict[str, np.ndarray] = {}
    parts: dict[str, np.ndarray] = {}
    for written in measures:
        measure = parse_measure(written)
        value, measure_parts = KINDS[measure.kind].compute(ctx, measure)
        values[str(written)] = value
        for part, array in measure_parts.items():
            parts[f"{written}.{part}"] = array
    index = pd.Index(rows.query_ids, name="query_id")
    per_query = pd.DataFrame(values, index=index)
    part_frame = pd.DataFrame(parts, index=index)
    unanswered = index[~answered]
    if missing == "skip":
        per_query, part_frame = per_query[answered], part_frame[answered]
    return Evaluation(per_query=per_query, parts=part_frame, unanswered=unanswered)


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
    ctx = RankedArrays(rows)
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
