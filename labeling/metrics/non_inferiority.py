"""The regression gate's test: is a run worse than its baseline by more than an allowed drop?

Conventions
- Inputs are per-query values of one measure on the same queries, ``baseline`` first; the
  change is ``candidate - baseline`` per query, and ``max_drop`` (>= 0) is the drop allowed.
- The null hypothesis is "the true mean change is -max_drop or better"; the alternative is
  "worse than -max_drop". The statistic is the paired t statistic
  ``t = (mean change + max_drop) / (sd / sqrt(n))``, read against two reference
  distributions, and the run is called worse only when both agree:
  Student's t with n - 1 degrees of freedom (``p_t``), exact for normal differences; and the
  studentized (bootstrap-t) bootstrap of the queries themselves (``p_bootstrap``):
  ``resamples`` resamples, each giving ``t* = (mean* - mean) / se*``, and
  ``p = (#{t* <= t} + 1) / (resamples + 1)`` (Efron & Tibshirani, "An Introduction to the
  Bootstrap", 1993, ch. 12). Per-query differences of IR measures are lumpy: most queries tie,
  a few move a lot. When they are skewed, Student's t fails far more often than its level (a
  run that loses a little on many queries and gains much on a few); the bootstrap-t keeps its
  level there but fails too often when they are symmetric and heavy-tailed, where Student's t
  is right (both measured in ``benchmarks/bench_gate.py``). ``p = max(p_t, p_bootstrap)``
  rejects only where both do, so its level holds whenever either reference holds.
- The interval is the union of the two (1 - 2 alpha) intervals of the mean change (Student's
  and the bootstrap-t's); its upper end is the one-sided (1 - alpha) upper bound. Each is read
  off the same distribution as its test, so ``p < alpha`` exactly when
  ``high < -max_drop``: the test and the interval always agree. With 95% confidence (alpha
  0.05) the run lost at least ``-high``.
- Resamples draw query indices (in chunks of about ``_CHUNK_CELLS`` cells). The seed is
  fixed: the same values give the same verdict.
- Fewer than two queries cannot be tested (p is NaN). When every change is the same the change
  is known exactly: p is 0 if it is worse than allowed, else 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from labeling.errors import ScorecardError

__all__ = ["NonInferiorityTest", "non_inferiority_test", "studentized_draws"]

RESAMPLES = 1999  # (resamples + 1) * alpha is a whole number for the usual levels
SEED = 0
_CHUNK_CELLS = 4_000_000


@dataclass(frozen=True)
class NonInferiorityTest:
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
    p_t: float = math.nan
    p_bootstrap: float = math.nan

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


def studentized_draws(
    values: np.ndarray, *, resamples: int = RESAMPLES, seed: int = SEED
) -> np.ndarray:
    """Sorted bootstrap-t draws ``(mean* - mean) / se*`` of ``values`` (at least two, not all
    equal). A resample whose values are all equal has se* 0: its draw is 0 when its mean is
    the sample's and +-infinity otherwise."""
    n = len(values)
    mean = values.mean()
    centred = values - mean  # sums of centred values lose less to rounding
    rng = np.random.default_rng(seed)
    sums, squares = np.empty(resamples), np.empty(resamples)
    step = max(1, _CHUNK_CELLS // n)
    for start in range(0, resamples, step):
        stop = min(start + step, resamples)
        picked = centred[rng.integers(0, n, size=(stop - start, n), dtype=np.int32)]
        sums[start:stop] = picked.sum(axis=1)
        squares[start:stop] = np.einsum("ij,ij->i", picked, picked)
    shift = sums / n  # mean* - mean
    spread = squares - n * shift**2
    # A resample of equal values leaves only rounding in ``spread``: call that no spread.
    tiny = spread <= 1e-10 * squares
    se = np.sqrt(np.maximum(spread, 0.0) / (n - 1) / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        draws = np.where(tiny, np.sign(np.round(shift, 12)) * np.inf, shift / se)
    draws = np.nan_to_num(draws, nan=0.0, posinf=np.inf, neginf=-np.inf)
    return np.sort(draws)


def _order_statistic(alpha: float, resamples: int) -> int:
    """K (1-based) such that ``p < alpha`` exactly when ``t < t*_(K)``: with c draws at or
    below t, p < alpha means c + 1 < alpha (resamples + 1), i.e. c <= K - 1."""
    limit = alpha * (resamples + 1)
    if abs(limit - round(limit)) < 1e-9:  # 0.05 * 2000 is 100, not 100.00000000000001
        limit = round(limit)
    return max(1, math.ceil(limit - 1))


def non_inferiority_test(
    baseline: Sequence[float] | np.ndarray,
    candidate: Sequence[float] | np.ndarray,
    *,
    max_drop: float = 0.0,
    alpha: float = 0.05,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> NonInferiorityTest:
    """The one-sided paired test of "candidate worse than baseline by more than ``max_drop``"."""
    from scipy import stats  # lazy: seconds to import
    if not 0.0 < alpha < 0.5:
        raise ScorecardError(f"the level alpha is between 0 and 0.5, not {alpha}")
    if not max_drop >= 0.0 or math.isinf(max_drop):
        raise ScorecardError(f"the allowed drop is a number of at least 0, not {max_drop}")
    if resamples * alpha < 10:
        raise ScorecardError(f"{resamples} resamples are too few for level {alpha}")
    a, b = _values(baseline), _values(candidate)
    if a.shape != b.shape:
        raise ScorecardError(f"paired values differ in length: {len(a)} and {len(b)}")
    n = len(a)
    means = (float(a.mean()), float(b.mean())) if n else (math.nan, math.nan)
    change = b - a
    mean = float(change.mean()) if n else math.nan
    if n < 2:
        return NonInferiorityTest(n, *means, mean, math.nan, math.nan, math.nan, max_drop, alpha)
    sd = float(change.std(ddof=1))
    if sd <= 1e-12 * max(1.0, float(np.abs(change).max())):  # constant up to rounding
        p = 0.0 if mean < -max_drop - 1e-12 else 1.0
        return NonInferiorityTest(n, *means, mean, mean, mean, p, max_drop, alpha, p, p)
    se = sd / math.sqrt(n)
    t = (mean + max_drop) / se
    p_t = float(stats.t.cdf(t, n - 1))
    t_margin = float(stats.t.ppf(1.0 - alpha, n - 1)) * se
    draws = studentized_draws(change, resamples=resamples, seed=seed)
    p_bootstrap = (int(np.searchsorted(draws, t, side="right")) + 1) / (resamples + 1)
    k = _order_statistic(alpha, resamples)
    high = max(mean - float(draws[k - 1]) * se, mean + t_margin)
    low = min(mean - float(draws[resamples - k]) * se, mean - t_margin)
    return NonInferiorityTest(n, *means, mean, low, high, max(p_t, p_bootstrap), max_drop, alpha,
                              p_t, p_bootstrap)


# ---------------------------------------------------------------------------------------------
# The gate's power on a workspace's own differences, by simulation

PLANNING_TRIALS = 300
PLANNING_RESAMPLES = 999
MARGIN_Z = 1.645  # a one-sided 95% margin for the simulation's own noise


def simulated_power(
    differences: Sequence[float] | np.ndarray,
    n: int,
    *,
    true_change: float,
    max_drop: float,
    alpha: float = 0.05,
    trials: int = PLANNING_TRIALS,
    resamples: int = PLANNING_RESAMPLES,
    seed: int = SEED,
) -> float:
    """Share of ``trials`` simulated gates that call the run worse: each draws ``n`` queries
    with replacement from ``differences`` moved to mean ``true_change`` (their shape kept:
    ties, skew, outliers) and runs ``non_inferiority_test``. The same seed draws the same queries,
    so powers at different n are comparable."""
    values = _values(differences)
    if len(values) < 2:
        raise ScorecardError("simulating the gate needs at least two paired differences")
    shifted = values - values.mean() + true_change
    rng = np.random.default_rng(seed)
    zeros = np.zeros(n)
    hits = 0
    for trial in range(trials):
        sample = shifted[rng.integers(0, len(shifted), size=n)]
        hits += non_inferiority_test(zeros, sample, max_drop=max_drop, alpha=alpha,
                                     resamples=resamples, seed=trial).worse
    return hits / trials


def queries_for_simulated_power(
    differences: Sequence[float] | np.ndarray,
    start: int,
    *,
    true_change: float,
    max_drop: float,
    power: float = 0.8,
    alpha: float = 0.05,
    trials: int = PLANNING_TRIALS,
    limit: int = 1_000_000,
    seed: int = SEED,
) -> tuple[int, float]:
    """(n, simulated power at n): the fewest queries from ``start`` up (to within 5%) at
    which ``simulated_power`` reaches ``power`` plus ``MARGIN_Z`` standard errors of its own
    ``trials`` (so that the count reaches ``power`` although the simulation is noisy);
    ``start`` is kept when it already does. Grows n by half until the power is reached, then
    bisects. Stops at ``limit``."""
    goal = min(power + MARGIN_Z * math.sqrt(power * (1 - power) / trials), 1.0)

    def power_at(n: int) -> float:
        return simulated_power(differences, n, true_change=true_change, max_drop=max_drop,
                               alpha=alpha, trials=trials, seed=seed)

    n = max(2, int(start))
    reached = power_at(n)
    if reached >= goal:
        return n, reached
    low = n
    while reached < goal and n < limit:
        low, n = n, min(limit, math.ceil(n * 1.5))
        reached = power_at(n)
    if reached < goal:
        return n, reached
    while n - low > max(1, n // 20):
        middle = (low + n) // 2
        at_middle = power_at(middle)
        if at_middle >= goal:
            n, reached = middle, at_middle
        else:
            low = middle
    return n, reached
