"""Coverage of the machine-judge intervals, by seeded simulation with known judge error models
(issue 30): 100 seeded workspaces per judge, each of 120 queries drawn from one population, a
pool of 20 chunks per query ranked by a run, an audit of exactly 10% of the pairs (the
library's exact-size nested design, weighted toward the top ranks and the threshold).

Two judges: one *noisy* (one grade off, up or down at random, on 40% of the pairs) and one
*biased* (one grade too high on half the pairs). The target is the population's mean human
nDCG@10 and P@10 (a population of 200,000 simulated queries; its own error, about 0.001, is
small beside the intervals' half-widths of 0.03 and more).

The bound: with ``n`` seeds, a 95% interval's coverage count is binomial, so the observed share
lies within ``3 * sqrt(0.95 * 0.05 / n)`` (0.065 for n = 100) of 0.95 but for a chance of
about 3 in 1,000. The test asks the prediction-powered coverage to be at least 0.95 minus that
(the t interval may be a little conservative, never the other way). The machine-only interval
reflects the sampling of queries only: with the biased judge it covers the human mean almost
never, and it is labelled so.

The per-query terms, power tuning, t intervals and clipping are the library's, as
``labeling.machine_judging.machine_estimates`` uses them; hybrid scores are
``tests.test_prediction_powered``'s (checked there against the metric engine).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from labeling.machine_judging import machine_estimates
from labeling.metrics import prediction_powered as ppi
from tests.test_prediction_powered import (
    POOL,
    World,
    _ranks,
    audit_order,
    hybrid_scores,
    plain_scores,
)

pytestmark = pytest.mark.slow  # seeded coverage simulations of the machine-judge intervals

SEEDS, QUERIES, AUDIT_SHARE = 100, 120, 0.10
MEASURES = ("nDCG@10", "P@10")
BOUND = 3 * math.sqrt(0.95 * 0.05 / SEEDS)


def noisy(rng: np.random.Generator, truth: np.ndarray) -> np.ndarray:
    wrong = rng.random(truth.shape) < 0.4
    return np.clip(truth + wrong * rng.choice([-1, 1], truth.shape), 0, 3)


def biased(rng: np.random.Generator, truth: np.ndarray) -> np.ndarray:
    return np.minimum(truth + (rng.random(truth.shape) < 0.5), 3)


JUDGES = {"noisy": noisy, "biased": biased}


def world(rng: np.random.Generator, queries: int, judge) -> World:
    share = rng.beta(1.2, 2.0, size=(queries, 1))
    relevant = rng.random((queries, POOL)) < share
    level = 1 + np.searchsorted([0.45, 0.8], rng.random((queries, POOL)))
    truth = np.where(relevant, level, 0).astype(np.int16)
    rank = _ranks(truth + 1.5 * rng.normal(size=(queries, POOL)))
    return World(truth, judge(rng, truth).astype(np.int16), rank, rank)


@pytest.fixture(scope="module")
def targets() -> dict[str, float]:
    population = world(np.random.default_rng(2030), 200_000, noisy)
    scores = plain_scores(population.truth, population.rank_a)
    return {measure: float(scores[measure].mean()) for measure in MEASURES}


def one_workspace(seed: int, judge, sim: World | None = None) -> dict[str, dict]:
    """The prediction-powered and machine-only intervals of each measure of one simulated
    workspace (``sim``, else drawn from ``seed``), its audit drawn from ``seed``, and the
    workspace's own human mean."""
    rng = np.random.default_rng(seed)
    sim = world(rng, QUERIES, judge) if sim is None else sim
    order, weights = audit_order(sim, weighted=True)
    first = ppi.inclusion_probabilities(weights.ravel(), AUDIT_SHARE * QUERIES * POOL)
    drawn = ppi.draw_exact(first.reshape(QUERIES, POOL), int(AUDIT_SHARE * QUERIES * POOL),
                           rng)
    assert drawn.sizes.sum() == AUDIT_SHARE * QUERIES * POOL
    sampled = np.arange(POOL) < drawn.sizes[:, None]
    ranks = {"A": sim.rank_a}
    machine = hybrid_scores(sim.truth, sim.machine, order, ranks)
    null = hybrid_scores(sim.truth, np.zeros_like(sim.machine), order, ranks)
    out = {}
    for measure in MEASURES:
        values = machine["A", measure]
        terms = ppi.query_terms(values, drawn.inclusion, sampled)
        people = ppi.query_terms(null["A", measure], drawn.inclusion, sampled)
        tuned, _ = ppi.tuned_terms(terms, people, np.arange(QUERIES) % 2)
        out[measure] = {"prediction-powered": ppi.t_interval(tuned).clipped(0.0, 1.0),
                        "machine only": ppi.t_interval(values[:, 0]).clipped(0.0, 1.0),
                        "own": float(values[:, -1].mean())}
    return out


def coverage(judge, targets: dict[str, float]) -> dict[tuple[str, str], float]:
    hits: dict[tuple[str, str], int] = {}
    for seed in range(SEEDS):
        for measure, got in one_workspace(seed, judge).items():
            for name in ("prediction-powered", "machine only"):
                interval = got[name]
                hit = interval.low <= targets[measure] <= interval.high
                hits[measure, name] = hits.get((measure, name), 0) + hit
            powered = got["prediction-powered"]
            own = powered.low <= got["own"] <= powered.high
            hits[measure, "own queries"] = hits.get((measure, "own queries"), 0) + own
    return {key: count / SEEDS for key, count in hits.items()}


@pytest.mark.parametrize("name", list(JUDGES))
def test_prediction_powered_intervals_cover_the_human_mean_with_either_judge(name, targets):
    found = coverage(JUDGES[name], targets)
    print(name, {f"{m} {e}": c for (m, e), c in found.items()})
    for measure in MEASURES:
        assert found[measure, "prediction-powered"] >= 0.95 - BOUND, found
    if name == "biased":  # the machine-only interval ignores the judge's error
        assert all(found[m, "machine only"] <= 0.2 for m in MEASURES), found


def test_the_machine_only_interval_says_it_ignores_the_judges_error():
    assert machine_estimates.interval_meaning("machine only") == (
        "95% interval — sampling of queries only, ignores the judge's error")
    assert machine_estimates.interval_meaning("prediction-powered") == (
        "95% interval for the mean over all queries like these, correcting for the judge's "
        "error")


@pytest.mark.parametrize("name", list(JUDGES))
def test_own_queries_coverage_when_only_the_audit_is_redrawn(name):
    """The README's statement on a workspace's own queries: one workspace fixed, its audit
    redrawn 100 times, the share of intervals covering its own all-human mean. Here it is at
    least 0.95 minus the bound; that is a property of this world, not a guarantee (the README
    quotes an independent check where a strongly biased judge gave 0.91 for P@10)."""
    sim = world(np.random.default_rng(1000), QUERIES, JUDGES[name])
    hits = dict.fromkeys(MEASURES, 0)
    for seed in range(SEEDS):
        for measure, got in one_workspace(seed, None, sim).items():
            interval = got["prediction-powered"]
            hits[measure] += interval.low <= got["own"] <= interval.high
    print(name, {m: h / SEEDS for m, h in hits.items()})
    assert all(h / SEEDS >= 0.95 - BOUND for h in hits.values()), hits


def test_the_docs_do_not_call_the_intervals_conservative_for_your_own_queries():
    """Issue 30 (7): the README said so; the simulation above and an independent check say it
    is not guaranteed (0.91 for P@10 with a strongly biased judge)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    text = " ".join(" ".join(p.read_text(encoding="utf-8").split())
                    for p in [root / "README.md", *sorted(root.glob("docs/**/*.md"))])
    assert "for your own queries they are conservative" not in text
    assert "not a guaranteed bound" in text and "tests/test_judge_coverage.py" in text
