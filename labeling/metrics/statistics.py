"""Intervals, significance tests and sensitivity for per-query scores.

Conventions
- Inputs are per-query values (one float per query); paired functions take two arrays aligned on
  the same queries, ``baseline`` first, and differences are ``candidate - baseline``.
- Every random procedure takes a ``seed`` and uses ``numpy.random.default_rng(seed)``, so the
  same inputs and seed give the same numbers.
- p-values are two-sided. Levels and powers are fractions (0.05, 0.8), not percentages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from labeling.errors import InputError, ScorecardError

__all__ = [
    "BootstrapInterval", "PairedTest", "bootstrap_ci", "compare_paired", "holm",
    "minimal_detectable_difference", "paired_randomization_test", "paired_t_test",
    "queries_needed", "wins_ties_losses",
]

# Bootstrap paths (see bootstrap_ci): value counts up to this many distinct values; above it,
# exact index resampling up to _MAX_EXACT_QUERIES values, else counts of _BINS bins.
_MAX_DISTINCT_FOR_COUNTS = 256
_MAX_EXACT_QUERIES = 5000
_BINS = 256
_CHUNK_CELLS = 4_000_000  # resample matrices are built in chunks of about this many cells


@dataclass(frozen=True)
class BootstrapInterval:
    """Percentile bootstrap interval of a mean: ``low <= mean <= high`` usually, not always."""

    mean: float
    low: float
    high: float
    n: int


@dataclass(frozen=True)
class PairedTest:
    """One paired comparison: mean difference (candidate - baseline) and two p-values."""

    n: int
    baseline_mean: float
    candidate_mean: float
    difference: float
    p_randomization: float
    p_t: float
    t: float


def _as_array(values: Sequence[float] | np.ndarray) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64).ravel()
    if np.isnan(array).any():
        raise InputError("values contain NaN", source="scores")
    return array


def bootstrap_ci(
    values: Sequence[float] | np.ndarray,
    *,
    confidence: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
) -> BootstrapInterval:
    """Percentile bootstrap interval of the mean of ``values`` (resampling queries).

    Resampling n values with replacement is the same as drawing multinomial counts of the
    distinct values, which is how it is done when there are at most 256 of them (recall, RR and
    hit rate take few values): the cost is ``n_resamples x distinct``, not ``n_resamples x n``.
    Many distinct values and more than 5,000 queries: the values are grouped into 256
    equal-width bins, each standing for the mean of its members, and the bin counts are
    resampled. The resampled means then keep their exact centre and lose only the variance
    within a bin (at most width^2 / 12, about 1e-6 for scores in [0, 1]), so the interval is
    the same to about four decimals at a fraction of the cost.
    Empty input gives NaN bounds; one distinct value gives a zero-width interval.
    """
    array = _as_array(values)
    n = len(array)
    if n == 0:
        return BootstrapInterval(math.nan, math.nan, math.nan, 0)
    mean = float(array.mean())
    rng = np.random.default_rng(seed)
    distinct, counts = np.unique(array, return_counts=True)
    if len(distinct) == 1:
        return BootstrapInterval(mean, mean, mean, n)
    if len(distinct) > _MAX_DISTINCT_FOR_COUNTS and n > _MAX_EXACT_QUERIES:
        edges = np.linspace(distinct[0], distinct[-1], _BINS + 1)
        which = np.clip(np.searchsorted(edges, distinct, side="right") - 1, 0, _BINS - 1)
        sums = np.bincount(which, weights=distinct * counts, minlength=_BINS)
        counts = np.bincount(which, weights=counts, minlength=_BINS)
        used = counts > 0
        distinct, counts = sums[used] / counts[used], counts[used]
    if len(distinct) <= _MAX_DISTINCT_FOR_COUNTS:
        drawn = rng.multinomial(n, counts / counts.sum(), size=n_resamples)
        means = drawn @ distinct / n
    else:
        means = np.empty(n_resamples)
        step = max(1, _CHUNK_CELLS // n)
        for start in range(0, n_resamples, step):
            stop = min(start + step, n_resamples)
            picks = rng.integers(0, n, size=(stop - start, n))
            means[start:stop] = array[picks].mean(axis=1)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return BootstrapInterval(mean, float(low), float(high), n)


def _paired(baseline: Sequence[float], candidate: Sequence[float]) -> np.ndarray:
    a, b = _as_array(baseline), _as_array(candidate)
    if a.shape != b.shape:
        raise InputError(f"paired samples differ in length: {len(a)} and {len(b)}", source="scores")
    return b - a


def paired_randomization_test(
    baseline: Sequence[float] | np.ndarray,
    candidate: Sequence[float] | np.ndarray,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> float:
    """Two-sided p-value of a paired randomization (sign-flip) test of the mean difference.

    Under the null the two runs are exchangeable per query, so each difference keeps or flips
    its sign. With ``2**n <= n_resamples`` every sign pattern is enumerated (exact test);
    otherwise ``n_resamples`` random patterns are drawn and p = (hits + 1) / (n_resamples + 1).
    This matches ``scipy.stats.permutation_test(..., permutation_type="samples")`` on the mean
    difference (exactly when enumerated).
    """
    diff = _paired(baseline, candidate)
    n = len(diff)
    if n == 0:
        return 1.0
    observed = abs(diff.mean())
    # Compare with a relative tolerance: a sign pattern equal to the observed one must count
    # even when floating-point summation order makes it differ in the last bit.
    tolerance = 1e-12 * max(1.0, float(np.abs(diff).max()))
    if n < 63 and 2**n <= n_resamples:
        patterns = (np.arange(2**n)[:, None] >> np.arange(n)[None, :]) & 1
        means = (np.where(patterns == 1, -1.0, 1.0) @ diff) / n
        return float(np.mean(np.abs(means) >= observed - tolerance))
    rng = np.random.default_rng(seed)
    hits = 0
    step = max(1, _CHUNK_CELLS // n)
    for start in range(0, n_resamples, step):
        size = min(step, n_resamples - start)
        signs = rng.integers(0, 2, size=(size, n), dtype=np.int8) * 2 - 1
        means = (signs @ diff) / n
        hits += int(np.count_nonzero(np.abs(means) >= observed - tolerance))
    return (hits + 1) / (n_resamples + 1)


def paired_t_test(
    baseline: Sequence[float] | np.ndarray, candidate: Sequence[float] | np.ndarray
) -> tuple[float, float]:
    """(t, two-sided p) of the paired t-test, as ``scipy.stats.ttest_rel(candidate, baseline)``.

    When every difference is the same the test is undefined in scipy (NaN); here it gives
    t = 0, p = 1 for no difference and t = +-inf, p = 0 for a constant non-zero difference.
    """
    from scipy import stats  # lazy: seconds to import
    diff = _paired(baseline, candidate)
    n = len(diff)
    if n < 2:
        return 0.0, 1.0
    mean = diff.mean()
    sd = diff.std(ddof=1)
    if sd <= 1e-12 * max(1.0, float(np.abs(diff).max())):  # constant up to rounding
        return (0.0, 1.0) if mean == 0.0 else (math.copysign(math.inf, mean), 0.0)
    t = mean / (sd / math.sqrt(n))
    return float(t), float(2.0 * stats.t.sf(abs(t), n - 1))


def compare_paired(
    baseline: Sequence[float] | np.ndarray,
    candidate: Sequence[float] | np.ndarray,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
) -> PairedTest:
    """Both tests and the means of one paired comparison."""
    a, b = _as_array(baseline), _as_array(candidate)
    t, p_t = paired_t_test(a, b)
    p_rand = paired_randomization_test(a, b, n_resamples=n_resamples, seed=seed)
    mean_a = float(a.mean()) if len(a) else math.nan
    mean_b = float(b.mean()) if len(b) else math.nan
    return PairedTest(len(a), mean_a, mean_b, mean_b - mean_a, p_rand, p_t, t)


def holm(pvalues: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error), in the input order.

    The i-th smallest p (0-based) is multiplied by ``m - i``, then a running maximum keeps the
    adjusted values monotone, and values are capped at 1.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    m = len(p)
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    adjusted = np.empty(m)
    adjusted[order] = scaled
    return adjusted


def wins_ties_losses(
    baseline: Sequence[float] | np.ndarray,
    candidate: Sequence[float] | np.ndarray,
    *,
    tolerance: float = 1e-9,
) -> tuple[int, int, int]:
    """Queries where the candidate scores higher, the same (within ``tolerance``), lower."""
    diff = _paired(baseline, candidate)
    wins = int(np.count_nonzero(diff > tolerance))
    losses = int(np.count_nonzero(diff < -tolerance))
    return wins, len(diff) - wins - losses, losses


def _quantiles(alpha: float, power: float, df: float) -> float:
    from scipy import stats  # lazy: seconds to import
    return float(stats.t.ppf(1 - alpha / 2, df) + stats.t.ppf(power, df))


def minimal_detectable_difference(
    sd_difference: float, n_queries: int, *, power: float = 0.8, alpha: float = 0.05
) -> float:
    """Smallest true mean difference a paired t-test on ``n_queries`` detects with ``power``.

    Uses the usual approximation ``(t[1-alpha/2] + t[power]) * sd / sqrt(n)`` with n - 1
    degrees of freedom; ``sd_difference`` is the standard deviation of the paired differences.
    Infinite below two queries.
    """
    if n_queries < 2:
        return math.inf
    return _quantiles(alpha, power, n_queries - 1) * sd_difference / math.sqrt(n_queries)


def queries_needed(
    sd_difference: float, difference: float, *, power: float = 0.8, alpha: float = 0.05
) -> int:
    """Fewest queries whose minimal detectable difference is at most ``difference``.

    Starts from the normal approximation and steps up until the t-based bound holds.
    """
    from scipy import stats  # lazy: seconds to import
    if difference <= 0:
        raise ScorecardError(f"the difference to detect must be positive, not {difference}")
    if sd_difference <= 0:
        return 2
    z = stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power)
    n = max(2, math.ceil((z * sd_difference / difference) ** 2))
    while minimal_detectable_difference(sd_difference, n, power=power, alpha=alpha) > difference:
        n += 1
    return n
