"""Prediction-powered estimates checked by simulation: 1,000 seeded workspaces at once (numpy).

The world: 500 queries per workspace, each with a pool of 20 judged chunks (grades 0-3, a
query-specific share of relevant chunks, some queries with none) that two runs rank; the second
run leans more on surface similarity. The machine judge over-grades by one level on about 30% of
the pairs, more often where the chunk looks similar on the surface (what fools a retriever fools
the model): its scores are biased, and more for the run that ranks such chunks high. The audit
takes 10% of the pairs, either uniformly (whole queries, every pair with probability 0.1) or
weighted toward the top ranks and the relevance threshold. The true value is the mean human
score of the population the queries come from, estimated by all 500,000 simulated queries.

Scores here come from a vectorised nDCG@10 / P@10 of hybrid label sets (the first ``j`` pairs of
each query's audit order human-graded, the rest machine- or null-graded), checked against the
metric engine on sampled queries. The estimates, weights and intervals are the library's
(``labeling.metrics.prediction_powered``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from labeling.metrics import prediction_powered as ppi
from labeling.metrics.engine import evaluate

WORKSPACES, QUERIES, POOL, K = 1000, 500, 20, 10
AUDIT_SHARE = 0.10
RELEVANT = 1  # P@10 counts grade 1 and above
DISCOUNT = 1.0 / np.log2(np.arange(2, K + 2))
# IDCG@10 of a query with n chunks at or above a grade level, for unit steps of gain.
IDEAL_STEP = np.concatenate([[0.0], np.cumsum(DISCOUNT), np.full(POOL, DISCOUNT.sum())])


@dataclass(frozen=True)
class World:
    """Flattened over workspaces: one row per query, one column per pool chunk."""

    truth: np.ndarray  # grades 0-3 people would give
    machine: np.ndarray  # the machine judge's grades
    rank_a: np.ndarray  # 0-based rank of each chunk in run A
    rank_b: np.ndarray


def _ranks(scores: np.ndarray) -> np.ndarray:
    order = np.argsort(-scores, axis=1)
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(scores.shape[1])[None, :], axis=1)
    return ranks


def simulate(rng: np.random.Generator, queries: int) -> World:
    share = rng.beta(1.2, 2.0, size=(queries, 1))
    relevant = rng.random((queries, POOL)) < share
    level = 1 + np.searchsorted([0.45, 0.8], rng.random((queries, POOL))).astype(np.int8)
    truth = np.where(relevant, level, 0).astype(np.int8)
    surface = rng.normal(size=(queries, POOL))
    rank_a = _ranks(truth + 0.6 * surface + rng.normal(size=(queries, POOL)))
    rank_b = _ranks(truth + 1.2 * surface + rng.normal(size=(queries, POOL)))
    over = rng.random((queries, POOL)) < 0.6 * stats.norm.cdf(surface)  # 30% on average
    return World(truth, np.minimum(truth + over, 3).astype(np.int8), rank_a, rank_b)


def hybrid_scores(
    truth: np.ndarray, prediction: np.ndarray, order: np.ndarray, ranks: dict[str, np.ndarray]
) -> dict[tuple[str, str], np.ndarray]:
    """nDCG@10 and P@10 of every hybrid label set, ``(queries, POOL + 1)`` per (run, measure):
    column ``j`` has the human grade on the first ``j`` chunks of ``order`` and the prediction
    elsewhere. ``ranks``: run name -> 0-based ranks of the chunks."""
    human, guess = (np.take_along_axis(a, order, axis=1).astype(np.int16)
                    for a in (truth, prediction))

    def running(base: np.ndarray, change: np.ndarray) -> np.ndarray:
        start = base.sum(axis=1, keepdims=True, dtype=np.float64)
        return np.concatenate([start, start + np.cumsum(change, axis=1, dtype=np.float64)],
                              axis=1)

    ideal = np.zeros((len(truth), POOL + 1))
    for level in (1, 2, 3):  # linear gain: IDCG sums one discount run per grade level reached
        reached, guessed = human >= level, guess >= level
        count = running(guessed, reached.astype(np.int16) - guessed).astype(np.int64)
        ideal += IDEAL_STEP[count]
    out = {}
    for run, rank in ranks.items():
        where = np.take_along_axis(rank, order, axis=1)
        top = where < K
        discount = np.where(top, 1.0 / np.log2(where + 2.0), 0.0)
        dcg = running(guess * discount, (human - guess) * discount)
        out[run, "nDCG@10"] = np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0)
        hits = running((guess >= RELEVANT) & top,
                       ((human >= RELEVANT).astype(np.int16) - (guess >= RELEVANT)) * top)
        out[run, "P@10"] = hits / K
    return out


def plain_scores(labels: np.ndarray, rank: np.ndarray) -> dict[str, np.ndarray]:
    """nDCG@10 and P@10 of one label set per query (no hybrids)."""
    top = rank < K
    dcg = (labels * np.where(top, 1.0 / np.log2(rank + 2.0), 0.0)).sum(axis=1)
    ideal = sum(IDEAL_STEP[(labels >= level).sum(axis=1)] for level in (1, 2, 3))
    return {"nDCG@10": np.divide(dcg, ideal, out=np.zeros_like(dcg), where=ideal > 0),
            "P@10": ((labels >= RELEVANT) & top).sum(axis=1) / K}


def audit_order(world: World, weighted: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each query's audit order and the sorted weights: the best rank's discount, doubled when
    the machine's grade sits at the relevance threshold or one below (uniform: all 1)."""
    if not weighted:
        weights = np.ones(world.truth.shape)
    else:
        best = np.minimum(world.rank_a, world.rank_b)
        near = np.abs(world.machine - (RELEVANT - 0.5)) < 1
        weights = (1.0 / np.log2(best + 2.0)) * np.where(near, 2.0, 1.0)
    order = np.argsort(-weights, axis=1, kind="stable")
    return order, np.take_along_axis(weights, order, axis=1)


@pytest.fixture(scope="module")
def world() -> World:
    return simulate(np.random.default_rng(20240817), WORKSPACES * QUERIES)


@pytest.mark.slow  # the simulated world takes a minute to build on a busy machine
def test_hybrid_scores_equal_the_metric_engine(world: World):
    rng = np.random.default_rng(3)
    picked = rng.choice(len(world.truth), size=40, replace=False)
    order = np.argsort(rng.random((40, POOL)), axis=1)
    truth, machine = world.truth[picked], world.machine[picked]
    scores = hybrid_scores(truth, machine, order, {"A": world.rank_a[picked]})
    ndcg, precision = scores["A", "nDCG@10"], scores["A", "P@10"]
    qrels, runs = [], []
    for row in range(40):
        for j in (0, 7, POOL):
            grades = machine[row].copy()
            grades[order[row, :j]] = truth[row, order[row, :j]]
            query = f"q{row}-{j}"
            qrels += [(query, f"c{c}", int(g)) for c, g in enumerate(grades)]
            runs += [(query, f"c{c}", -float(world.rank_a[picked][row, c]))
                     for c in range(POOL)]
    result = evaluate(pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
                      pd.DataFrame(runs, columns=["query_id", "doc_id", "score"]),
                      ["nDCG@10", "P@10"]).per_query
    for row in range(40):
        for j in (0, 7, POOL):
            assert ndcg[row, j] == pytest.approx(result.loc[f"q{row}-{j}", "nDCG@10"], abs=1e-12)
            assert precision[row, j] == pytest.approx(result.loc[f"q{row}-{j}", "P@10"],
                                                      abs=1e-12)


CHUNK = 25_000  # queries scored at a time (keeps the hybrid tables small)


def _design(world: World, weighted: bool, rng: np.random.Generator) -> dict:
    """Per (run, measure, part), arrays (workspaces, queries): ``machine`` and ``people`` are
    the per-query terms with the machine's and the null prediction, ``alone`` the machine-only
    score, ``truth`` the all-human score; ``audited``: pairs audited per workspace."""
    shape = (WORKSPACES, QUERIES)
    order, weights = audit_order(world, weighted)
    if weighted:
        weights = weights.reshape(*shape, POOL)
        inclusion = np.stack([
            ppi.inclusion_probabilities(weights[w].ravel(), AUDIT_SHARE * QUERIES * POOL)
            .reshape(QUERIES, POOL) for w in range(WORKSPACES)
        ]).reshape(-1, POOL)
    else:  # every pair with the same probability: whole queries
        inclusion = np.full((len(world.truth), POOL), AUDIT_SHARE)
    sampled = ppi.draw_nested(inclusion, rng.random(len(world.truth)))
    parts: dict = {}
    ranks = {"A": world.rank_a, "B": world.rank_b}
    if not weighted:  # whole queries: one step, from the prediction to the human grades
        for run, rank in ranks.items():
            human = plain_scores(world.truth, rank)
            machine = plain_scores(world.machine, rank)
            for measure in ("nDCG@10", "P@10"):
                def terms(start: np.ndarray, end: np.ndarray) -> np.ndarray:
                    values = np.stack([start, end], axis=1)
                    return ppi.query_terms(values, inclusion[:, :1], sampled[:, :1])

                got = {"machine": terms(machine[measure], human[measure]),
                       "people": terms(np.zeros(len(world.truth)), human[measure]),
                       "alone": machine[measure], "truth": human[measure]}
                for part, array in got.items():
                    parts[run, measure, part] = [array]
        order = order[:0]  # nothing left to score position by position
    for start in range(0, len(order), CHUNK):
        rows = slice(start, start + CHUNK)
        scores = {
            prediction: hybrid_scores(world.truth[rows], labels[rows], order[rows],
                                      {run: rank[rows] for run, rank in ranks.items()})
            for prediction, labels in (("machine", world.machine),
                                       ("people", np.zeros_like(world.machine)))
        }
        for (run, measure), values in scores["machine"].items():
            got = {
                "machine": ppi.query_terms(values, inclusion[rows], sampled[rows]),
                "people": ppi.query_terms(scores["people"][run, measure], inclusion[rows],
                                          sampled[rows]),
                "alone": values[:, 0], "truth": values[:, -1],
            }
            for part, array in got.items():
                parts.setdefault((run, measure, part), []).append(array)
    out = {key: np.concatenate(chunks).reshape(shape) for key, chunks in parts.items()}
    out["audited"] = sampled.reshape(*shape, POOL).sum(axis=(1, 2))
    return out


@dataclass(frozen=True)
class Check:
    prediction_powered: float  # coverage of the true mean
    machine_only: float
    people_only: float
    narrower_share: float  # workspaces where the prediction-powered interval is narrower
    width_ratio: float  # mean half-width, prediction-powered / people only
    own_workspace: float  # coverage of each workspace's own all-human mean


def _check(parts: dict, measure: str, paired: bool) -> Check:
    def get(part: str) -> np.ndarray:
        a = parts["A", measure, part]
        return a - parts["B", measure, part] if paired else a  # the terms are linear

    truth = get("truth")
    target = truth.mean()
    tuned, _ = ppi.tuned_terms(get("machine"), get("people"), np.arange(QUERIES) % 2)
    powered = ppi.t_interval(tuned)
    people = ppi.t_interval(get("people"))
    alone = ppi.t_interval(get("alone"))

    def covers(interval, value) -> float:
        return float(np.mean((interval.low <= value) & (value <= interval.high)))

    return Check(
        prediction_powered=covers(powered, target), machine_only=covers(alone, target),
        people_only=covers(people, target),
        narrower_share=float(np.mean(powered.half_width < people.half_width)),
        width_ratio=float(powered.half_width.mean() / people.half_width.mean()),
        own_workspace=covers(powered, truth.mean(axis=1)),
    )


@pytest.mark.slow  # a seeded simulation of many audits
@pytest.mark.parametrize("weighted", [False, True], ids=["uniform audit", "weighted audit"])
def test_prediction_powered_intervals_cover_the_human_mean(world: World, weighted: bool):
    parts = _design(world, weighted, np.random.default_rng(17 + weighted))
    assert parts["audited"].mean() == pytest.approx(AUDIT_SHARE * QUERIES * POOL, rel=0.02)
    for measure in ("nDCG@10", "P@10"):
        for paired in (False, True):
            check = _check(parts, measure, paired)
            what = f"{measure} {'A - B' if paired else 'A'}: {check}"
            assert 0.93 <= check.prediction_powered <= 0.97, what
            assert check.machine_only <= 0.5, what  # biased: it misses the human mean
            assert check.width_ratio < 1 and check.narrower_share >= 0.9, what
            assert 0.9 <= check.people_only, what  # the unbiased baseline is valid too


def test_power_tuning_falls_back_to_people_when_the_machine_is_noise():
    rng = np.random.default_rng(5)
    people = rng.normal(size=(200, 400))
    machine = people + rng.normal(scale=30.0, size=people.shape)  # a useless prediction
    _, weights = ppi.tuned_terms(machine, people, np.arange(400) % 2)
    assert weights.max() < 0.05
    terms, weights = ppi.tuned_terms(people + 1e-3 * rng.normal(size=people.shape), people,
                                     np.arange(400) % 2)
    assert np.allclose(terms, people, atol=0.01)


def test_inclusion_probabilities_meet_the_budget_and_respect_strata():
    rng = np.random.default_rng(1)
    weights = rng.uniform(0.1, 3.0, size=1000)
    for budget in (0, 1, 37.5, 400, 999, 1000, 5000):
        probs = ppi.inclusion_probabilities(weights, budget)
        assert probs.sum() == pytest.approx(min(budget, 1000))
        assert ((0 <= probs) & (probs <= 1)).all()
        uncapped = probs < 1
        if uncapped.sum() > 1:  # proportional to the weight below the cap
            ratio = probs[uncapped] / weights[uncapped]
            assert ratio == pytest.approx(np.full(uncapped.sum(), ratio[0]))
    strata = np.repeat(["a", "b"], [800, 200])
    probs = ppi.inclusion_probabilities(weights, 100, strata)
    assert probs[strata == "a"].sum() == pytest.approx(80)
    assert probs[strata == "b"].sum() == pytest.approx(20)


def test_nested_draw_takes_a_prefix_with_the_stated_probabilities():
    inclusion = np.tile([1.0, 0.6, 0.6, 0.25, 0.1], (200_000, 1))
    sampled = ppi.draw_nested(inclusion, np.random.default_rng(2).random(200_000))
    assert (np.diff(sampled.astype(int), axis=1) <= 0).all()  # a prefix
    assert sampled.mean(axis=0) == pytest.approx([1.0, 0.6, 0.6, 0.25, 0.1], abs=0.005)
    with pytest.raises(Exception, match="must not increase"):
        ppi.draw_nested(np.array([[0.2, 0.5]]), np.array([0.3]))


def test_query_terms_are_exact_when_everything_is_audited():
    values = np.array([[0.9, 0.8, 0.5], [0.2, 0.2, 0.4]])
    terms = ppi.query_terms(values, np.ones((2, 2)), np.ones((2, 2), dtype=bool))
    assert terms == pytest.approx([0.5, 0.4])
    terms = ppi.query_terms(values, np.full((2, 2), 0.5), np.array([[True, False], [False, False]]))
    assert terms == pytest.approx([0.9 - 0.1 / 0.5, 0.2])


def test_t_interval_of_normal_terms_is_the_student_interval():
    terms = np.random.default_rng(4).normal(size=50)
    interval = ppi.t_interval(terms)
    low, high = stats.t.interval(0.95, 49, loc=terms.mean(), scale=stats.sem(terms))
    assert interval.df == pytest.approx(49, rel=0.35)  # normal terms: little excess kurtosis
    heavy = ppi.t_interval(np.r_[np.zeros(45), 10.0 * np.ones(5)])
    assert heavy.df < 20  # few large terms: fewer effective degrees of freedom
    assert (interval.low, interval.high) == pytest.approx((low, high), abs=0.02)
