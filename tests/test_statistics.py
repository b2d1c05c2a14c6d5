"""labeling.metrics.statistics against scipy.stats: paired t-test, randomization test, bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from labeling.metrics import statistics


def _mean_difference(x, y, axis=-1):
    return np.mean(y - x, axis=axis)


def _paired(n: int, seed: int, shift: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    return a, np.clip(a + rng.normal(shift, 0.2, n), 0, 1)


def test_t_test_matches_scipy_ttest_rel():
    a, b = _paired(40, 1)
    t, p = statistics.paired_t_test(a, b)
    expected = stats.ttest_rel(b, a)
    assert t == pytest.approx(expected.statistic, rel=1e-12)
    assert p == pytest.approx(expected.pvalue, rel=1e-10)


def test_t_test_degenerate_differences():
    assert statistics.paired_t_test([0.5, 0.5], [0.5, 0.5]) == (0.0, 1.0)
    t, p = statistics.paired_t_test([0.1, 0.2], [0.3, 0.4])
    assert math.isinf(t) and p == 0.0


def test_randomization_test_is_exact_like_scipy_on_a_tiny_example():
    a = np.array([0.1, 0.5, 0.25, 1.0, 0.0, 0.33, 0.5, 0.2])
    b = np.array([0.3, 0.5, 0.5, 1.0, 0.2, 0.25, 1.0, 0.1])
    ours = statistics.paired_randomization_test(a, b, n_resamples=10_000)
    theirs = stats.permutation_test(
        (a, b), _mean_difference, permutation_type="samples", vectorized=True,
        n_resamples=np.inf, alternative="two-sided",
    )
    assert ours == pytest.approx(theirs.pvalue, abs=1e-12)


def test_randomization_test_agrees_with_scipy_on_a_seeded_example():
    a, b = _paired(60, 7, shift=0.04)
    ours = statistics.paired_randomization_test(a, b, n_resamples=20_000, seed=3)
    theirs = stats.permutation_test(
        (a, b), _mean_difference, permutation_type="samples", vectorized=True,
        n_resamples=20_000, alternative="two-sided", rng=np.random.default_rng(3),
    )
    # Both are Monte Carlo estimates of the same p (about 0.1 here); 20k draws: sd < 0.003.
    assert ours == pytest.approx(theirs.pvalue, abs=0.01)
    assert statistics.paired_randomization_test(a, b, n_resamples=20_000, seed=3) == ours


def test_bootstrap_is_seeded_and_close_to_scipy():
    values = np.random.default_rng(5).random(200)
    first = statistics.bootstrap_ci(values, seed=11, n_resamples=4000)
    assert first == statistics.bootstrap_ci(values, seed=11, n_resamples=4000)
    assert first != statistics.bootstrap_ci(values, seed=12, n_resamples=4000)
    ref = stats.bootstrap((values,), np.mean, method="percentile", n_resamples=4000,
                          rng=np.random.default_rng(11)).confidence_interval
    assert first.low == pytest.approx(ref.low, abs=0.01)
    assert first.high == pytest.approx(ref.high, abs=0.01)
    assert first.mean == pytest.approx(values.mean())


def test_bootstrap_by_value_counts_matches_resampling_indices():
    # Few distinct values take the multinomial path; many take index resampling: same law.
    values = np.random.default_rng(2).integers(0, 4, 500) / 4
    few = statistics.bootstrap_ci(values, n_resamples=4000, seed=1)
    jitter = values + np.random.default_rng(3).normal(0, 1e-9, len(values))
    many = statistics.bootstrap_ci(jitter, n_resamples=4000, seed=1)
    assert few.low == pytest.approx(many.low, abs=0.01)
    assert few.high == pytest.approx(many.high, abs=0.01)


def test_binned_bootstrap_matches_resampling_indices_for_many_queries(monkeypatch):
    values = np.random.default_rng(4).random(20_000) ** 3  # skewed, all values distinct
    binned = statistics.bootstrap_ci(values, n_resamples=2000, seed=1)
    monkeypatch.setattr(statistics, "_MAX_EXACT_QUERIES", 10**9)
    exact = statistics.bootstrap_ci(values, n_resamples=2000, seed=1)
    assert binned.mean == exact.mean == pytest.approx(values.mean())
    # Different random streams: agreement within Monte Carlo noise (sd ~ 1e-4 here).
    assert binned.low == pytest.approx(exact.low, abs=6e-4)
    assert binned.high == pytest.approx(exact.high, abs=6e-4)


def test_bootstrap_edge_cases():
    assert statistics.bootstrap_ci([]).n == 0
    one = statistics.bootstrap_ci([0.4])
    assert (one.low, one.high, one.n) == (0.4, 0.4, 1)


def test_holm_known_values():
    adjusted = statistics.holm([0.01, 0.04, 0.03, 0.5])
    np.testing.assert_allclose(adjusted, [0.04, 0.09, 0.09, 0.5])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=12))
def test_holm_is_monotone_and_never_below_raw(pvalues):
    adjusted = statistics.holm(pvalues)
    assert np.all(adjusted >= np.asarray(pvalues) - 1e-15)
    assert np.all(adjusted <= 1.0)
    order = np.argsort(pvalues, kind="stable")
    assert np.all(np.diff(adjusted[order]) >= -1e-15)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=2, max_size=40),
       st.integers(0, 2**16))
def test_bootstrap_interval_within_range(values, seed):
    ci = statistics.bootstrap_ci(values, n_resamples=200, seed=seed)
    assert min(values) - 1e-12 <= ci.low <= ci.high <= max(values) + 1e-12


def test_sensitivity_inverts():
    sd = 0.25
    mdd = statistics.minimal_detectable_difference(sd, 50)
    # (t_.975 + t_.8) * sd / sqrt(n), with 49 degrees of freedom.
    assert mdd == pytest.approx((stats.t.ppf(0.975, 49) + stats.t.ppf(0.8, 49)) * sd / 50**0.5)
    n = statistics.queries_needed(sd, 0.05)
    assert statistics.minimal_detectable_difference(sd, n) <= 0.05
    assert statistics.minimal_detectable_difference(sd, n - 1) > 0.05
    assert 190 < n < 210  # the normal approximation says 196.2


def test_wins_ties_losses():
    assert statistics.wins_ties_losses([0, 0.5, 1], [1, 0.5, 0.5]) == (1, 1, 1)
