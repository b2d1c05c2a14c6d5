"""Power of the paired t-test, and the number of queries a difference needs.

Conventions
- ``sd`` is the standard deviation of the per-query paired differences (candidate - baseline);
  ``difference`` is the true mean difference to detect (positive, in the measure's units).
- ``sides=2``: a two-sided test at level ``alpha`` ("do the runs differ?"); ``sides=1``: a
  one-sided test at level ``alpha`` ("is the candidate worse by more than allowed?", the gate's
  question; there ``difference`` is the distance between the true change and the allowed one).
- Power is exact for normally distributed differences: with n queries the t statistic follows a
  noncentral t distribution with n - 1 degrees of freedom and noncentrality
  ``difference * sqrt(n) / sd``, so

      two-sided: power(n) = 1 - F(t[1 - alpha/2]) + F(-t[1 - alpha/2])
      one-sided: power(n) = 1 - F(t[1 - alpha])

  with F that noncentral t's distribution function and t[q] the central t quantile. This is the
  paired-t design of Sakai's "Topic set size design" (Information Retrieval Journal, 2016). The
  normal approximation ``n = ((z[1 - alpha/sides] + z[power]) * sd / difference) ** 2`` is only
  the starting point of the search: it is a few queries short for small n.
- Levels and powers are fractions (0.05, 0.8).
"""

from __future__ import annotations

import math

import numpy as np

from labeling.errors import ScorecardError

__all__ = ["detectable_difference", "paired_t_power", "queries_for_power"]

MAX_QUERIES = 10_000_000  # beyond this the normal approximation is exact to the query


def _check(alpha: float, power: float | None, sides: int) -> None:
    if not 0.0 < alpha < 1.0:
        raise ScorecardError(f"the level alpha is between 0 and 1, not {alpha}")
    if power is not None and not 0.0 < power < 1.0:
        raise ScorecardError(f"the power is between 0 and 1, not {power}")
    if sides not in (1, 2):
        raise ScorecardError(f"a test has 1 or 2 sides, not {sides}")


def paired_t_power(
    difference: float, sd: float, n: int | np.ndarray, *, alpha: float = 0.05, sides: int = 2
) -> float | np.ndarray:
    """Probability that a paired t-test on ``n`` queries rejects "no difference" when the true
    mean difference is ``difference`` (see the module docstring); ``n`` may be an array.

    Fewer than two queries give power 0 (no test); ``sd == 0`` gives power 1 for any non-zero
    difference.
    """
    from scipy import stats  # lazy: seconds to import
    _check(alpha, None, sides)
    queries = np.asarray(n, dtype=np.float64)
    df = np.maximum(queries - 1.0, 1.0)
    if sd <= 0:
        power = np.where(queries >= 2, 1.0 if difference != 0 else alpha, 0.0)
    else:
        noncentrality = abs(difference) * np.sqrt(queries) / sd
        critical = stats.t.ppf(1.0 - alpha / sides, df)
        # scipy's noncentral t returns NaN far in its tails: there the answer is 0 or 1.
        power = stats.nct.sf(critical, df, noncentrality)
        power = np.where(np.isnan(power), (noncentrality > critical).astype(float), power)
        if sides == 2:
            power = power + np.nan_to_num(stats.nct.cdf(-critical, df, noncentrality), nan=0.0)
        power = np.where(queries >= 2, power, 0.0)
    return float(power) if np.ndim(power) == 0 else power


def queries_for_power(
    difference: float, sd: float, *, power: float = 0.8, alpha: float = 0.05, sides: int = 2
) -> int:
    """Fewest queries (at least 2) whose paired t-test reaches ``power`` for ``difference``."""
    from scipy import stats  # lazy: seconds to import
    _check(alpha, power, sides)
    if not 0 < difference < math.inf:  # also refuses nan
        raise ScorecardError(
            f"the difference to detect must be a positive finite number, not {difference}")
    if sd <= 0:
        return 2
    z = stats.norm.ppf(1.0 - alpha / sides) + stats.norm.ppf(power)
    start = (z * sd / difference) ** 2
    if start >= MAX_QUERIES:
        return math.ceil(start)
    # Search a window above the normal approximation (the t version needs a few more queries).
    low = max(2, math.floor(start) - 2)
    while True:
        window = np.arange(low, low + 64)
        reached = np.flatnonzero(paired_t_power(difference, sd, window, alpha=alpha,
                                                sides=sides) >= power)
        if len(reached):
            return int(window[reached[0]])
        low += 64


def detectable_difference(
    sd: float, n: int, *, power: float = 0.8, alpha: float = 0.05, sides: int = 2
) -> float:
    """Smallest true difference a paired t-test on ``n`` queries detects with ``power``.

    Infinite below two queries, 0 when ``sd`` is 0.
    """
    from scipy import optimize, stats  # lazy: seconds to import
    _check(alpha, power, sides)
    if power <= alpha:
        raise ScorecardError(f"the power must exceed the level alpha ({alpha}), not {power}")
    if n < 2:
        return math.inf
    if sd <= 0:
        return 0.0
    df = n - 1
    guess = (stats.t.ppf(1.0 - alpha / sides, df) + stats.t.ppf(power, df)) * sd / math.sqrt(n)
    high = 2.0 * guess
    while paired_t_power(high, sd, n, alpha=alpha, sides=sides) < power:
        high *= 2.0
    return float(optimize.brentq(
        lambda d: paired_t_power(d, sd, n, alpha=alpha, sides=sides) - power,
        0.0, high, xtol=1e-12 * max(1.0, sd),
    ))
