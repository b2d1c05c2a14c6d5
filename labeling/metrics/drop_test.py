"""The regression gate's test: is a run worse than its baseline by more than an allowed drop?

Conventions
- Inputs are per-query values of one measure on the same queries, ``baseline`` first; the
  change is ``candidate - baseline`` per query, and ``max_drop`` (>= 0) is the drop allowed.
- The null hypothesis is "the true mean change is -max_drop or better"; the alternative is
  "worse than -max_drop". The one-sided paired t statistic is
  ``t = (mean change + max_drop) / (sd / sqrt(n))`` on n - 1 degrees of freedom and
  ``p = P(T <= t)``.
- The interval is the two-sided (1 - 2 alpha) paired t interval of the mean change, so its upper
  end is the one-sided (1 - alpha) upper confidence bound: with 95% confidence (alpha 0.05) the
  run lost at least ``-high`` (the lower bound of the drop). ``p < alpha`` exactly when
  ``high < -max_drop``: the test and the interval always agree.
- Fewer than two queries cannot be tested (p is NaN). When every change is the same (sd 0) the
  change is known exactly: p is 0 if it is worse than allowed, else 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from labeling.errors import ScorecardError

__all__ = ["DropTest", "drop_test"]


@dataclass(frozen=True)
class DropTest:
    """One gate test: means, mean change, its interval (see the module docstring) and p."""

    n: int
    baseline_mean: float
    candidate_mean: float
    change: float
    low: float
    high: float
    p: float
    max_drop: float
    alpha: float

    @property
    def testable(self) -> bool:
        return not math.isnan(self.p)

    @property
    def worse(self) -> bool:
        """Worse than allowed at level ``alpha`` (uncorrected; the gate applies Holm)."""
        return self.testable and self.p < self.alpha


def _values(values: Sequence[float] | np.ndarray) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64).ravel()
    if np.isnan(array).any():
        raise ScorecardError("per-query values contain NaN")
    return array


def drop_test(
    baseline: Sequence[float] | np.ndarray,
    candidate: Sequence[float] | np.ndarray,
    *,
    max_drop: float = 0.0,
    alpha: float = 0.05,
) -> DropTest:
    """The one-sided paired t-test of "candidate worse than baseline by more than ``max_drop``"."""
    if not 0.0 < alpha < 0.5:
        raise ScorecardError(f"the level alpha is between 0 and 0.5, not {alpha}")
    if not max_drop >= 0.0 or math.isinf(max_drop):
        raise ScorecardError(f"the allowed drop is a number of at least 0, not {max_drop}")
    a, b = _values(baseline), _values(candidate)
    if a.shape != b.shape:
        raise ScorecardError(f"paired values differ in length: {len(a)} and {len(b)}")
    n = len(a)
    means = (float(a.mean()), float(b.mean())) if n else (math.nan, math.nan)
    change = b - a
    mean = float(change.mean()) if n else math.nan
    if n < 2:
        return DropTest(n, *means, mean, math.nan, math.nan, math.nan, max_drop, alpha)
    sd = float(change.std(ddof=1))
    if sd <= 1e-12 * max(1.0, float(np.abs(change).max())):  # constant up to rounding
        p = 0.0 if mean < -max_drop - 1e-12 else 1.0
        return DropTest(n, *means, mean, mean, mean, p, max_drop, alpha)
    se = sd / math.sqrt(n)
    t = (mean + max_drop) / se
    p = float(stats.t.cdf(t, n - 1))
    margin = float(stats.t.ppf(1.0 - alpha, n - 1)) * se
    return DropTest(n, *means, mean, mean - margin, mean + margin, p, max_drop, alpha)
