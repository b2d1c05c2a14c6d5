"""Power of the paired t-test and the queries a difference needs (``labeling.metrics.power``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from labeling.errors import ScorecardError
from labeling.metrics import power


@pytest.mark.parametrize(("effect", "sides", "queries"), [
    (0.5, 2, 34), (0.5, 1, 27), (0.2, 2, 199), (0.8, 2, 15),
])
def test_sample_sizes_match_the_published_tables(effect, sides, queries):
    # G*Power 3.1 (Faul, Erdfelder, Lang & Buchner 2007), "Means: difference between two
    # dependent means (matched pairs)", alpha 0.05, power 0.80: n 34 (d 0.5, two tails, actual
    # power 0.8077775), 27 (d 0.5, one tail), 199 (d 0.2) and 15 (d 0.8).
    assert power.queries_for_power(effect, 1.0, power=0.8, alpha=0.05, sides=sides) == queries
    if (effect, sides) == (0.5, 2):
        assert power.paired_t_power(0.5, 1.0, 34) == pytest.approx(0.8077775, abs=1e-6)


@pytest.mark.parametrize("sides", [1, 2])
@pytest.mark.parametrize(("difference", "sd"), [(0.02, 0.15), (0.05, 0.3), (0.1, 0.12)])
def test_the_count_is_the_fewest_that_reaches_the_power(difference, sd, sides):
    n = power.queries_for_power(difference, sd, power=0.8, sides=sides)
    assert power.paired_t_power(difference, sd, n, sides=sides) >= 0.8
    assert power.paired_t_power(difference, sd, n - 1, sides=sides) < 0.8
    # The normal approximation is the starting point, a few queries short.
    z = stats.norm.ppf(1 - 0.05 / sides) + stats.norm.ppf(0.8)
    assert 0 <= n - (z * sd / difference) ** 2 < 4


@pytest.mark.parametrize("sides", [1, 2])
def test_detectable_difference_inverts_the_power(sides):
    for n in (3, 10, 46, 500):
        found = power.detectable_difference(0.2, n, power=0.9, sides=sides)
        assert power.paired_t_power(found, 0.2, n, sides=sides) == pytest.approx(0.9, abs=1e-9)
    assert power.detectable_difference(0.2, 1) == math.inf
    assert power.detectable_difference(0.0, 10) == 0.0


def test_power_without_a_difference_is_the_level():
    assert power.paired_t_power(0.0, 0.3, 40, alpha=0.05) == pytest.approx(0.05, abs=1e-12)
    assert power.paired_t_power(0.0, 0.3, 40, alpha=0.05, sides=1) == pytest.approx(0.05)
    assert power.paired_t_power(0.1, 0.3, 1) == 0.0
    powers = power.paired_t_power(0.05, 0.2, np.arange(2, 300))
    assert np.all(np.diff(powers) > 0)


@pytest.mark.parametrize("sides", [1, 2])
@pytest.mark.parametrize(("difference", "sd"), [(0.03, 0.12), (0.05, 0.25)])
def test_the_planned_count_reaches_its_power_in_simulation(difference, sd, sides):
    """Normal per-query differences: 4,000 seeded experiments of the planned size, each a
    paired t-test (vectorised); the share that detects the difference is the power."""
    n = power.queries_for_power(difference, sd, power=0.8, sides=sides)
    rng = np.random.default_rng(20160)
    trials = 4000
    samples = rng.normal(difference, sd, size=(trials, n))
    t = samples.mean(axis=1) / (samples.std(axis=1, ddof=1) / math.sqrt(n))
    assert t[:5] == pytest.approx(stats.ttest_1samp(samples[:5], 0.0, axis=1).statistic)
    critical = stats.t.ppf(1 - 0.05 / sides, n - 1)
    detected = np.abs(t) > critical if sides == 2 else t > critical
    error = 3 * math.sqrt(0.8 * 0.2 / trials)  # three standard errors of the simulation
    assert abs(detected.mean() - power.paired_t_power(difference, sd, n, sides=sides)) < error
    assert detected.mean() > 0.8 - error


@pytest.mark.parametrize("call", [
    lambda: power.queries_for_power(0.0, 0.1),
    lambda: power.queries_for_power(0.05, 0.1, power=1.0),
    lambda: power.queries_for_power(0.05, 0.1, alpha=0.0),
    lambda: power.queries_for_power(0.05, 0.1, sides=3),
    lambda: power.detectable_difference(0.1, 10, power=0.04),
])
def test_bad_arguments_are_refused(call):
    with pytest.raises(ScorecardError):
        call()


def test_no_spread_needs_two_queries():
    assert power.queries_for_power(0.01, 0.0) == 2
