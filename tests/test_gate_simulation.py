"""The regression gate and the planner checked by seeded simulation on real per-query values.

The world here is the demo workspace's own per-query values of two runs (``bm25`` and its
rank fusion ``fusion``), the kind of data the gate sees: most queries tie, a few move a lot.
Each trial draws queries with replacement and runs the gate's decision
(``regression_gate.decide``, as ``scorecard gate`` does after scoring). Rates are checked
within three standard errors of the simulation (``_error``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.planning import judging_budget, regression_gate
from labeling.evaluation.scores.run_comparison import paired_scores
from labeling.metrics.unjudged_fillings import GateValues
from labeling.workspace import store

# Seeded simulations of a thousand trials each: the slowest tests of the suite. The ceiling is
# raised for them so a busy machine makes them slow, not red.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
ALPHA = 0.05
TRIALS = 1000


def _error(rate: float, trials: int = TRIALS) -> float:
    return 3 * math.sqrt(rate * (1 - rate) / trials)


@pytest.fixture(scope="module")
def demo(build_workspace):
    db = store.open_workspace(build_workspace.path("demo"), create=False)
    yield db
    db.close()


def _pairs(db, measure: str, baseline: str = "bm25", candidate: str = "fusion") -> pd.DataFrame:
    return paired_scores(db, Controls(baseline), candidate, measure)


def _gate(baseline: np.ndarray, run: np.ndarray, settings, segments=None):
    index = pd.Index([f"q{i}" for i in range(len(run))], dtype="string")
    run_values = pd.DataFrame(run, index=index, columns=list(settings.measures))
    base_values = pd.DataFrame(baseline, index=index, columns=list(settings.measures))
    if segments is not None:
        segments = pd.Series(segments, index=index)
    return regression_gate.decide("new", "old",
                                  GateValues.fully_judged(run_values, base_values, 10), settings,
                                  segments)


def test_no_true_difference_fails_at_most_alpha(demo):
    """Runs with no true difference: per query, the two runs' values are swapped at random
    (so either run is as likely to be the better), 60 queries per trial."""
    pairs = _pairs(demo, "nDCG@10")
    a, b = pairs["baseline"].to_numpy(), pairs["candidate"].to_numpy()
    rng = np.random.default_rng(2009)
    strict = regression_gate.GateSettings(("nDCG@10",), 0.0, alpha=ALPHA, min_judged=0.0)
    allowed = regression_gate.GateSettings(("nDCG@10",), 0.01, alpha=ALPHA, min_judged=0.0)
    failed = {0.0: 0, 0.01: 0}
    for _ in range(TRIALS):
        picked = rng.integers(0, len(a), size=60)
        swap = rng.random(60) < 0.5
        old = np.where(swap, b[picked], a[picked])[:, None]
        new = np.where(swap, a[picked], b[picked])[:, None]
        if _gate(old, new, strict).outcome == regression_gate.WORSE:
            failed[0.0] += 1
            # p grows with the allowed drop: only a gate that fails with none can fail here.
            failed[0.01] += _gate(old, new, allowed).outcome == regression_gate.WORSE
    assert abs(failed[0.0] / TRIALS - ALPHA) <= _error(ALPHA)
    assert failed[0.01] / TRIALS <= ALPHA + _error(ALPHA)


def test_skewed_differences_at_the_allowed_drop_do_not_cry_wolf(demo):
    """The hard case for a t table: the run loses exactly the allowed drop on average, most
    queries tie and a few gain a lot (the demo's nDCG@10 differences, skewness about 4.5).
    The gate still fails at most at its level; Student's t table on the same samples fails
    about twice as often (``benchmarks/bench_gate.py``)."""
    pairs = _pairs(demo, "nDCG@10")
    difference = (pairs["candidate"] - pairs["baseline"]).to_numpy()
    centred = difference - difference.mean()
    rng = np.random.default_rng(4)
    settings = regression_gate.GateSettings(("nDCG@10",), 0.02, alpha=ALPHA, min_judged=0.0)
    n, trials = 150, 600
    failed = 0
    for _ in range(trials):
        change = centred[rng.integers(0, len(centred), size=n)] - 0.02
        failed += _gate(np.zeros((n, 1)), change[:, None], settings).outcome == "worse"
    assert failed / trials <= ALPHA + _error(ALPHA, trials)


def test_holm_keeps_the_family_at_alpha_across_measures_and_segments(demo):
    """Two measures, all queries and two segments: six tests per gate, no true difference."""
    measures = ("nDCG@10", "RR")
    frames = [_pairs(demo, m) for m in measures]
    a = np.column_stack([f["baseline"].to_numpy() for f in frames])
    b = np.column_stack([f["candidate"].to_numpy() for f in frames])
    settings = regression_gate.GateSettings(measures, 0.0, alpha=ALPHA, min_judged=0.0,
                                            segment="topic")
    rng = np.random.default_rng(2016)
    trials, n = 500, 40
    segments = np.where(np.arange(n) % 2 == 0, "a", "b")
    failed = 0
    for _ in range(trials):
        picked = rng.integers(0, len(a), size=n)
        swap = (rng.random(n) < 0.5)[:, None]
        old, new = np.where(swap, b[picked], a[picked]), np.where(swap, a[picked], b[picked])
        result = _gate(old, new, settings, segments)
        assert result.tests == 6
        failed += result.outcome == regression_gate.WORSE
    assert failed / trials <= ALPHA + _error(ALPHA, trials)


@pytest.mark.parametrize(("baseline", "candidate"), [("bm25", "fusion"), ("fusion", "bm25")])
def test_a_true_drop_of_twice_the_allowed_fails_in_the_planned_power(demo, baseline,
                                                                     candidate):
    """The planner's query count for ``scorecard gate --max-drop 0.05`` (80% power against a
    true drop of 0.10), then 1,000 gates of that many queries whose true change is -0.10, the
    per-query differences shaped like the candidate's own. Both directions: a run that loses
    a little often and wins big rarely (right-skewed), and one that breaks a few queries
    badly (left-skewed)."""
    max_drop, target = 0.05, 0.8
    plan = judging_budget.plan(demo, Controls(baseline), "nDCG@10",
                               judging_budget.gate_difference(max_drop), candidate=candidate,
                               power=target, max_drop=max_drop)
    n = plan.queries_needed
    assert n >= plan.formula_queries
    difference = (_pairs(demo, "nDCG@10", baseline, candidate)["difference"]).to_numpy()
    shifted = difference - difference.mean() - 2 * max_drop
    rng = np.random.default_rng(1000 + n)
    settings = regression_gate.GateSettings(("nDCG@10",), max_drop, alpha=ALPHA,
                                            min_judged=0.0)
    failed = 0
    for _ in range(TRIALS):
        change = shifted[rng.integers(0, len(shifted), size=n)]
        failed += _gate(np.zeros((n, 1)), change[:, None], settings).outcome == "worse"
    rate = failed / TRIALS
    assert rate >= target - _error(target)
    if n > plan.formula_queries:  # the simulation set the count: it lands near the target
        assert rate <= target + 0.06
