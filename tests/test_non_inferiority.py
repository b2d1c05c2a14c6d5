"""The regression gate's test (``labeling.metrics.non_inferiority``): the bootstrap-t one-sided
paired test and its interval."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from labeling.errors import ScorecardError
from labeling.metrics.non_inferiority import non_inferiority_test, studentized_draws


def _cases(seed: int, count: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(2, 80))
        baseline = rng.random(n).round(2)
        change = np.where(rng.random(n) < 0.6, 0.0, rng.normal(-0.03, 0.25, n)).round(2)
        yield baseline, baseline + change, float(rng.choice([0.0, 0.01, 0.05]))


def test_the_test_and_the_interval_always_agree():
    agreed = 0
    for baseline, candidate, max_drop in _cases(7, 300):
        result = non_inferiority_test(baseline, candidate, max_drop=max_drop)
        assert result.worse == (result.high < -max_drop)
        assert result.low <= result.high
        agreed += 1
    assert agreed == 300


def test_on_many_normal_queries_it_is_the_t_test():
    """Normal differences, 400 queries: the bootstrap-t agrees with Student's t (scipy)."""
    rng = np.random.default_rng(2008)
    baseline = rng.random(400)
    candidate = baseline + rng.normal(-0.02, 0.2, 400)
    result = non_inferiority_test(baseline, candidate, max_drop=0.01, alpha=0.05)
    scipy_p = stats.ttest_1samp(candidate - baseline, -0.01, alternative="less").pvalue
    assert result.p == pytest.approx(scipy_p, abs=0.03)  # 3 standard errors of 1,999 draws
    interval = stats.ttest_1samp(candidate - baseline, 0.0).confidence_interval(0.90)
    assert result.low == pytest.approx(interval.low, abs=0.003)
    assert result.high == pytest.approx(interval.high, abs=0.003)
    assert result.change == pytest.approx(float(np.mean(candidate - baseline)))
    assert result.n == 400


def test_draws_are_the_studentized_resamples():
    """The draws are (mean* - mean) / se* of resamples of the queries, a resample of equal
    values giving +-infinity (or 0 at the sample's own mean)."""
    values = np.array([0.0, 0.0, 0.0, 0.5, -0.1, 0.0, 0.2, -0.3, 0.0, 0.0])
    draws = studentized_draws(values, resamples=999, seed=3)
    assert np.all(draws[1:] >= draws[:-1])
    picks = np.random.default_rng(3).integers(0, 10, size=(999, 10), dtype=np.int32)
    resampled = values[picks]
    shift = resampled.mean(axis=1) - values.mean()
    se = resampled.std(axis=1, ddof=1) / math.sqrt(10)
    equal = se < 1e-12
    infinite = np.where(shift.round(12) > 0, np.inf, -np.inf)
    expected = np.where(equal, np.where(shift.round(12) == 0, 0.0, infinite),
                        shift / np.where(equal, 1.0, se))
    assert equal.sum() > 0  # the sample is lumpy enough for all-equal resamples
    np.testing.assert_allclose(draws, np.sort(expected), rtol=1e-9, atol=1e-12)


def test_same_values_same_verdict():
    baseline, candidate, _ = next(_cases(11, 1))
    first = non_inferiority_test(baseline, candidate, max_drop=0.01)
    assert non_inferiority_test(baseline, candidate, max_drop=0.01) == first


def test_too_few_queries_and_constant_changes():
    one = non_inferiority_test([0.5], [0.2], max_drop=0.01)
    assert one.n == 1 and not one.testable and not one.worse and math.isnan(one.high)
    assert not non_inferiority_test([], []).testable
    lost = non_inferiority_test([0.5, 0.6, 0.7], [0.4, 0.5, 0.6], max_drop=0.05)
    assert lost.worse and lost.p == 0.0 and lost.low == lost.high == pytest.approx(-0.1)
    within = non_inferiority_test([0.5, 0.6, 0.7], [0.48, 0.58, 0.68], max_drop=0.05)
    assert not within.worse and within.p == 1.0


@pytest.mark.parametrize("call", [
    lambda: non_inferiority_test([0.1, 0.2], [0.1, 0.2], alpha=0.5),
    lambda: non_inferiority_test([0.1, 0.2], [0.1, 0.2], max_drop=-0.01),
    lambda: non_inferiority_test([0.1, 0.2], [0.1, 0.2], max_drop=float("nan")),
    lambda: non_inferiority_test([0.1, 0.2], [0.1]),
    lambda: non_inferiority_test([0.1, float("nan")], [0.1, 0.2]),
    lambda: non_inferiority_test([0.1, 0.2], [0.1, 0.2], resamples=99, alpha=0.05),
])
def test_bad_arguments_are_refused(call):
    with pytest.raises(ScorecardError):
        call()
