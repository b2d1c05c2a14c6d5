"""Agreement between two label sources (people and a machine judge, two machine judges) and
between the run rankings they give.

Conventions
- Cohen's kappa is computed from the confusion matrix as ``sklearn.metrics.cohen_kappa_score``
  computes it: ``1 - sum(w * observed) / sum(w * expected)``, expected from the margins, with
  weights 0/1 (unweighted), ``|i - j|`` (linear) or ``(i - j)**2`` (quadratic) by position on
  ``labels``. NaN when the expected disagreement is 0 (one grade throughout), as there.
- Intervals are percentile bootstraps over pairs. Resampling pairs is drawing multinomial counts
  of the confusion cells, so a resample costs a matrix, not a pass over the pairs. A comparison
  of two judges resamples the pairs all three (people and both judges) graded, so the two kappas
  move together (a paired bootstrap of their difference).
- Kendall's tau is tau-b (ties corrected), as ``scipy.stats.kendalltau`` computes it.
- Design-weighted kappa (``design_kappa_interval``): when the pairs both graded are a sample
  drawn with known inclusion probabilities (an audit), each pair counts ``1 / inclusion``
  (``sample_weight``, as ``cohen_kappa_score(..., sample_weight=...)`` counts it), so the
  weighted confusion matrix estimates the one over every pair the sample stands for and the
  kappa estimates the kappa over all of them (a ratio estimator: consistent, not unbiased).
  Its interval resamples the sample's clusters (the queries, each drawn as a unit).
- Every random procedure takes a ``seed`` (``numpy.random.default_rng``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from labeling.errors import InputError

__all__ = [
    "KappaDifference", "KappaInterval", "WEIGHTS", "confusion", "design_kappa_interval",
    "kappa", "kappa_difference", "kappa_from_confusion", "kappa_interval", "kendall_tau",
    "rank_swaps",
]

WEIGHTS = (None, "linear", "quadratic")


@dataclass(frozen=True)
class KappaInterval:
    """Cohen's kappa of ``n`` pairs with a percentile bootstrap interval."""

    kappa: float
    low: float
    high: float
    n: int


@dataclass(frozen=True)
class KappaDifference:
    """Kappa of two judges against the same reference on the same ``n`` pairs, and the paired
    bootstrap interval of ``second - first``; ``share_second_better`` is the share of resamples
    where the second agrees more."""

    first: float
    second: float
    difference: float
    low: float
    high: float
    n: int
    share_second_better: float


def _codes(values: Sequence[int] | np.ndarray, labels: np.ndarray) -> np.ndarray:
    values = np.asarray(values)
    position = np.searchsorted(labels, values)
    position = np.clip(position, 0, len(labels) - 1)
    if len(values) and not (labels[position] == values).all():
        unknown = sorted(set(values[labels[position] != values].tolist()))
        raise InputError(f"grades {unknown} are not on the scale {labels.tolist()}",
                         source="agreement")
    return position


def _labels(a, b, labels) -> np.ndarray:
    if labels is None:
        return np.unique(np.concatenate([np.asarray(a), np.asarray(b)]))
    return np.unique(np.asarray(labels))


def confusion(
    a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray,
    labels: Sequence[int] | None = None, sample_weight: Sequence[float] | None = None,
) -> np.ndarray:
    """Counts of (a grade, b grade) pairs: rows ``a``, columns ``b``, in ``labels`` order
    (sorted; by default the grades seen). With ``sample_weight`` each pair counts its weight
    (float sums)."""
    if len(a) != len(b):
        raise InputError("the two label sequences differ in length", source="agreement")
    grades = _labels(a, b, labels)
    n = len(grades)
    if sample_weight is None:
        counts = np.zeros((n, n), dtype=np.int64)
        each = 1
    else:
        each = np.asarray(sample_weight, dtype=np.float64)
        if each.shape != (len(a),) or (len(each) and not (np.isfinite(each).all()
                                                         and each.min() >= 0)):
            raise InputError("sample weights are one non-negative number per pair",
                             source="agreement")
        counts = np.zeros((n, n), dtype=np.float64)
    if len(a):
        np.add.at(counts, (_codes(a, grades), _codes(b, grades)), each)
    return counts


def _weight_matrix(n: int, weights: str | None) -> np.ndarray:
    if weights not in WEIGHTS:
        raise InputError(f"weights is one of {WEIGHTS}", source="kappa")
    distance = np.abs(np.subtract.outer(np.arange(n), np.arange(n))).astype(np.float64)
    if weights is None:
        return (distance > 0).astype(np.float64)
    return distance if weights == "linear" else distance**2


def kappa_from_confusion(counts: np.ndarray, weights: str | None = None) -> np.ndarray | float:
    """Cohen's kappa of one confusion matrix, or of a stack of them (leading axes)."""
    counts = np.asarray(counts, dtype=np.float64)
    n = counts.shape[-1]
    weight = _weight_matrix(n, weights)
    total = counts.sum(axis=(-2, -1))
    rows, cols = counts.sum(axis=-1), counts.sum(axis=-2)
    safe_total = np.where(total > 0, total, 1.0)
    expected = rows[..., :, None] * cols[..., None, :] / safe_total[..., None, None]
    disagree_expected = (weight * expected).sum(axis=(-2, -1))
    disagree_observed = (weight * counts).sum(axis=(-2, -1))
    ok = (disagree_expected > 0) & (total > 0)
    value = np.where(ok, 1.0 - disagree_observed / np.where(ok, disagree_expected, 1.0), np.nan)
    return float(value) if np.ndim(value) == 0 else value


def kappa(
    a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray,
    labels: Sequence[int] | None = None, weights: str | None = None,
    sample_weight: Sequence[float] | None = None,
) -> float:
    """Cohen's kappa of two aligned grade sequences (``sklearn.metrics.cohen_kappa_score``,
    ``sample_weight`` included)."""
    return float(kappa_from_confusion(confusion(a, b, labels, sample_weight), weights))


def _percentiles(draws: np.ndarray, confidence: float) -> tuple[float, float]:
    finite = draws[np.isfinite(draws)]
    if not len(finite):
        return math.nan, math.nan
    tail = (1.0 - confidence) / 2
    low, high = np.quantile(finite, [tail, 1.0 - tail])
    return float(low), float(high)


def kappa_interval(
    a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray,
    labels: Sequence[int] | None = None, weights: str | None = None, *,
    confidence: float = 0.95, n_resamples: int = 1000, seed: int = 0,
) -> KappaInterval:
    """Kappa with a percentile bootstrap interval over pairs (multinomial cell counts)."""
    counts = confusion(a, b, labels)
    total = int(counts.sum())
    value = float(kappa_from_confusion(counts, weights))
    if total == 0:
        return KappaInterval(math.nan, math.nan, math.nan, 0)
    rng = np.random.default_rng(seed)
    drawn = rng.multinomial(total, counts.ravel() / total, size=n_resamples)
    draws = kappa_from_confusion(drawn.reshape(n_resamples, *counts.shape), weights)
    low, high = _percentiles(np.atleast_1d(draws), confidence)
    return KappaInterval(value, low, high, total)


def design_kappa_interval(
    a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray,
    labels: Sequence[int] | None = None, weights: str | None = None, *,
    sample_weight: Sequence[float], clusters: Sequence[object],
    confidence: float = 0.95, n_resamples: int = 1000, seed: int = 0,
) -> KappaInterval:
    """Design-weighted kappa (see the module conventions) with a percentile bootstrap interval
    over ``clusters`` (one label per pair: the unit the sample was drawn by). ``n`` is the
    number of pairs."""
    grades = _labels(a, b, labels)
    sample_weight = np.asarray(sample_weight, dtype=np.float64)
    value = kappa(a, b, grades, weights, sample_weight)
    if len(a) == 0:
        return KappaInterval(math.nan, math.nan, math.nan, 0)
    names, cluster = np.unique(np.asarray(clusters, dtype=object).astype(str),
                               return_inverse=True)
    if len(cluster) != len(a):
        raise InputError("clusters are one label per pair", source="agreement")
    n = len(grades)
    cells = np.zeros((len(names), n * n))
    np.add.at(cells, (cluster, _codes(a, grades) * n + _codes(b, grades)), sample_weight)
    rng = np.random.default_rng(seed)
    picks = rng.multinomial(len(names), np.full(len(names), 1.0 / len(names)),
                            size=n_resamples)
    draws = kappa_from_confusion((picks @ cells).reshape(n_resamples, n, n), weights)
    low, high = _percentiles(np.atleast_1d(draws), confidence)
    return KappaInterval(value, low, high, len(a))


def kappa_difference(
    reference: Sequence[int] | np.ndarray, first: Sequence[int] | np.ndarray,
    second: Sequence[int] | np.ndarray, labels: Sequence[int] | None = None,
    weights: str | None = None, *, confidence: float = 0.95, n_resamples: int = 1000,
    seed: int = 0,
) -> KappaDifference:
    """Which of two judges agrees better with ``reference`` on the same pairs: both kappas and
    a paired bootstrap interval of ``second - first`` (resampling the pairs all three graded)."""
    if not len(reference) == len(first) == len(second):
        raise InputError("the three label sequences differ in length", source="agreement")
    grades = np.unique(np.concatenate([np.asarray(reference), np.asarray(first),
                                       np.asarray(second)])) if labels is None \
        else np.unique(np.asarray(labels))
    n = len(grades)
    total = len(reference)
    if total == 0:
        return KappaDifference(math.nan, math.nan, math.nan, math.nan, math.nan, 0, math.nan)
    cells = np.zeros((n, n, n), dtype=np.int64)
    np.add.at(cells, (_codes(reference, grades), _codes(first, grades),
                      _codes(second, grades)), 1)
    kappa_first = float(kappa_from_confusion(cells.sum(axis=2), weights))
    kappa_second = float(kappa_from_confusion(cells.sum(axis=1), weights))
    rng = np.random.default_rng(seed)
    drawn = rng.multinomial(total, cells.ravel() / total, size=n_resamples)
    drawn = drawn.reshape(n_resamples, n, n, n)
    # drawn[r, reference, first, second]: summing out ``first`` leaves (reference, second).
    differences = (kappa_from_confusion(drawn.sum(axis=2), weights)
                   - kappa_from_confusion(drawn.sum(axis=3), weights))
    differences = np.atleast_1d(differences)
    low, high = _percentiles(differences, confidence)
    finite = differences[np.isfinite(differences)]
    better = float((finite > 0).mean()) if len(finite) else math.nan
    return KappaDifference(kappa_first, kappa_second, kappa_second - kappa_first, low, high,
                           total, better)


def _signs(values: np.ndarray) -> np.ndarray:
    """sign(v_i - v_j) for i < j, as a flat vector."""
    upper = np.triu_indices(len(values), k=1)
    return np.sign(np.subtract.outer(values, values)[upper])


def kendall_tau(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Kendall's tau-b of two aligned score lists (``scipy.stats.kendalltau``); NaN with fewer
    than two items or when either list is constant."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape != y.shape:
        raise InputError("the two score lists differ in length", source="kendall tau")
    if len(x) < 2 or np.isnan(x).any() or np.isnan(y).any():
        return math.nan
    sx, sy = _signs(x), _signs(y)
    untied_x, untied_y = np.count_nonzero(sx), np.count_nonzero(sy)
    if untied_x == 0 or untied_y == 0:
        return math.nan
    return float((sx * sy).sum() / math.sqrt(untied_x * untied_y))


def rank_swaps(
    names: Sequence[str], x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray
) -> list[tuple[str, str, float]]:
    """The pairs of items ``x`` and ``y`` order oppositely: (above in ``x``, above in ``y``,
    size), the size being the smaller of the two gaps (how clearly both disagree), largest
    first."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    swaps = []
    for i in range(len(names)):
        for j in range(len(names)):
            if x[i] > x[j] and y[j] > y[i]:
                swaps.append((str(names[i]), str(names[j]),
                              float(min(x[i] - x[j], y[j] - y[i]))))
    return sorted(swaps, key=lambda swap: (-swap[2], swap[0], swap[1]))
