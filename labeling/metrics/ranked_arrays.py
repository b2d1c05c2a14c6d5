"""Arrays the measures of one evaluation share, each computed once, on demand.

Every array is indexed like ``labeling.metrics.ranking.RankedRows``: per row (sorted by query then
rank) or per query (``n`` entries). Counting is ``np.bincount`` over the row's query, so no
Python loop runs per query.
"""

from __future__ import annotations

import numpy as np

from labeling.metrics.ranking import RankedRows


class RankedArrays:
    """The ranked rows of one evaluation and the counts the measures ask for repeatedly."""

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
        """Per query: the rows under ``mask`` (summing ``weights`` when given)."""
        query = self.rows.query[mask]
        w = None if weights is None else weights[mask]
        return np.bincount(query, weights=w, minlength=self.n).astype(np.float64)

    def relevant(self, rel: int) -> np.ndarray:
        """Per row: graded ``rel`` or higher (an unjudged row, NaN, is not)."""
        if rel not in self._relevant:
            self._relevant[rel] = self.rows.grade >= rel  # NaN (unjudged) compares False
        return self._relevant[rel]

    def num_relevant(self, rel: int) -> np.ndarray:
        """Per query: labels graded ``rel`` or higher, retrieved or not."""
        if rel not in self._num_relevant:
            mask = self.rows.qrels_grade >= rel
            self._num_relevant[rel] = np.bincount(
                self.rows.qrels_query[mask], minlength=self.n
            ).astype(np.float64)
        return self._num_relevant[rel]

    def cumulative_relevant(self, rel: int) -> np.ndarray:
        """Per row: relevant items at or above the row's rank, within its query."""
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

    def rows_where(self, *masks: np.ndarray | None) -> np.ndarray:
        """Rows under every mask given (a None mask keeps every row)."""
        out = np.ones(len(self.rows.rank), dtype=bool)
        for mask in masks:
            if mask is not None:
                out &= mask
        return out


def gain_of(grade: np.ndarray, kind: object) -> np.ndarray:
    """The gain of each grade: ``linear`` (the grade) or ``exp`` (``2**grade - 1``); negative
    and unjudged grades gain 0."""
    positive = np.where(np.isnan(grade), 0.0, np.maximum(grade, 0.0))
    return positive if kind == "linear" else np.exp2(positive) - 1.0


def divide(numerator: np.ndarray, denominator: np.ndarray | float) -> np.ndarray:
    """``numerator / denominator``, 0 where the denominator is 0."""
    denominator = np.broadcast_to(np.asarray(denominator, dtype=np.float64), numerator.shape)
    out = np.zeros_like(numerator)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out
