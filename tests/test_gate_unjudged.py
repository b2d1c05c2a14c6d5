"""The gate with unjudged results: the bounds hold under every filling, and seeded simulations
of ``scorecard gate`` on files (``regression_gate.gate_files``, the whole path: ranking, the
bounds, the tests, Holm) with 30% of the pooled top-ten results unjudged.

The world: each query has 30 chunks with true grades 0-3 (most 0); a run scores a chunk by
its grade plus noise, so it ranks relevant chunks high but not perfectly. The labels are the
true grades of the pool (both runs' top ten) with 30% of the pooled pairs left unjudged at
random. Rates are checked within three standard errors of the simulation.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from labeling.evaluation.planning import gate_values, regression_gate
from labeling.metrics import unjudged_fillings
from labeling.metrics.engine import evaluate, ranked_list
from labeling.metrics.unjudged_fillings import filled_changes

ALPHA = 0.05
TRIALS = 200
QUERIES = 30
DOCS = 30
UNJUDGED = 0.3
MEASURES = ("nDCG@10", "AP@10", "R@10", "P@5", "RR@10", "nDCG(ideal=retrieved)@5",
            "AP(denom=retrieved)@10", "Success@3")


def _world(rng: np.random.Generator, *, drop: bool, queries: int = QUERIES, trials: int = 1):
    """(qrels, baseline run, candidate run) frames of ``trials`` worlds of ``queries`` queries
    each (query ids ``t{trial}-q{query}``). The candidate scores like the baseline
    (independent noise: no true change) or, with ``drop``, by the opposite of the grade (a
    planted large drop)."""
    n = trials * queries
    grades = rng.choice([0, 0, 0, 0, 1, 2, 3], size=(n, DOCS))
    base = grades + rng.normal(0, 1.0, grades.shape)
    candidate = (-grades if drop else grades) + rng.normal(0, 1.0, grades.shape)
    pooled = np.zeros(grades.shape, dtype=bool)
    for scores in (base, candidate):
        np.put_along_axis(pooled, np.argsort(-scores, axis=1)[:, :10], True, axis=1)
    judged = pooled & (rng.random(grades.shape) >= UNJUDGED)
    qid = np.repeat([f"t{t}-q{i:02d}" for t in range(trials) for i in range(queries)], DOCS)
    doc = np.tile([f"d{j:02d}" for j in range(DOCS)], n)
    runs = [pd.DataFrame({"query_id": qid, "doc_id": doc, "score": s.ravel()})
            for s in (base, candidate)]
    keep = judged.ravel()
    qrels = pd.DataFrame({"query_id": qid[keep], "doc_id": doc[keep],
                          "relevance": grades.ravel()[keep]})
    return qrels, runs[0], runs[1]


def _filled(qrels: pd.DataFrame, pairs: set, grade: int = 3) -> pd.DataFrame:
    extra = pd.DataFrame(sorted(pairs), columns=["query_id", "doc_id"]).assign(relevance=grade)
    return pd.concat([qrels, extra], ignore_index=True)


def _unjudged_top(qrels: pd.DataFrame, run: pd.DataFrame, k: int = 10) -> list[tuple]:
    ranked = ranked_list(qrels, run)
    top = ranked.loc[(ranked["rank"] <= k) & ranked["grade"].isna()]
    return list(zip(top["query_id"], top["doc_id"], strict=True))


def test_best_and_worst_cases_are_the_engine_on_filled_labels():
    """Each filling evaluated by the engine on labels written out (the filled pairs added to
    the qrels): the best case is the largest change of the fillings "the run's first j
    unjudged top-ten results relevant, every other not", the worst case the smallest of the
    mirror, for every measure and query; "every unjudged result of the run relevant, none of
    the baseline's" and "as scored" are among them."""
    rng = np.random.default_rng(26)
    for _ in range(2):
        qrels, base, candidate = _world(rng, drop=False, queries=10)
        values = filled_changes(qrels, candidate, qrels, base, MEASURES, 3)
        for run_first, pick in ((True, np.maximum), (False, np.minimum)):
            for k in (3, 5, 10):  # each cutoff fills its own top k
                group = [m for m in MEASURES if m.endswith(f"@{k}")]
                order = _unjudged_top(qrels, candidate if run_first else base, k)
                extreme = None
                for j in range(k + 1):
                    kept = {p for p in order
                            if sum(1 for o in order[:order.index(p)] if o[0] == p[0]) < j}
                    filled = _filled(qrels, kept)
                    change = (evaluate(filled, candidate, group).per_query
                              - evaluate(filled, base, group).per_query)
                    change.index = change.index.astype("string")
                    change = change.loc[values.best.index]
                    extreme = change if extreme is None else pick(extreme, change)
                case = (values.best if run_first else values.worst)[group]
                np.testing.assert_allclose(case.to_numpy(), extreme.to_numpy(), atol=1e-12)
        every = _filled(qrels, set(_unjudged_top(qrels, candidate)))
        change = (evaluate(every, candidate, MEASURES).per_query
                  - evaluate(every, base, MEASURES).per_query)
        change.index = change.index.astype("string")
        assert (values.best >= change.loc[values.best.index] - 1e-12).all().all()
        scored = values.run - values.baseline
        assert (values.best >= scored - 1e-12).all().all()
        assert (values.worst <= scored + 1e-12).all().all()


def _error(rate: float, trials: int = TRIALS) -> float:
    return 3 * math.sqrt(rate * (1 - rate) / trials)


@pytest.fixture(scope="module")
def simulated() -> dict[str, list]:
    """Results of ``TRIALS`` gates on each world. ``gate_files`` is ``file_pair`` (per-query
    values and their best and worst cases, each query on its own) then ``decide``: the trials
    are worlds of their own queries, so one ``file_pair`` serves them all and each trial is
    decided on its queries."""
    rng = np.random.default_rng(2026)
    settings = regression_gate.GateSettings(("nDCG@10",), 0.0, alpha=ALPHA)
    results: dict[str, list] = {}
    for name in ("drop", "same"):
        qrels, base, candidate = _world(rng, drop=name == "drop", trials=TRIALS)
        values = gate_values.file_pair(qrels, candidate, base, settings.measures,
                                       settings.cutoffs)
        trial_of = np.array([q.split("-")[0] for q in values.run.index])
        results[name] = [
            regression_gate.decide("new", "old", values.restricted(
                values.run.index[trial_of == f"t{t}"]), settings)
            for t in range(TRIALS)]
    return results


@pytest.mark.slow  # a seeded simulation of the gate
def test_a_planted_large_drop_with_30_percent_unjudged_exits_1(simulated):
    results = simulated["drop"]
    unjudged = np.mean([r.checks[0].unjudged / r.checks[0].filled for r in results])
    assert 0.2 <= unjudged <= 0.4  # about 30% of the candidate's filled slots
    assert np.mean([r.checks[0].change for r in results]) < -0.3  # a large drop as scored
    worse = np.mean([r.exit_code == 1 for r in results])
    assert worse >= 0.95


@pytest.mark.slow  # a seeded simulation of the gate
def test_no_change_with_30_percent_unjudged_does_not_exit_1_beyond_alpha(simulated):
    results = simulated["same"]
    assert np.mean([r.checks[0].unjudged / r.checks[0].filled for r in results]) >= 0.2
    worse = np.mean([r.exit_code == 1 for r in results])
    assert worse <= ALPHA + _error(ALPHA)


def test_the_best_case_test_is_students_t_on_the_best_case_changes():
    """The t half of the gate's test on the best-case changes equals scipy's one-sided
    one-sample t test of those changes against -max_drop."""
    qrels, base, candidate = _world(np.random.default_rng(7), drop=False)
    settings = regression_gate.GateSettings(("nDCG@10",), 0.02, alpha=ALPHA)
    result = regression_gate.gate_files(qrels, candidate, base, settings)
    best = filled_changes(qrels, candidate, qrels, base, ["nDCG@10"], 3).best["nDCG@10"]
    scipy_p = stats.ttest_1samp(best.to_numpy(), -0.02, alternative="less").pvalue
    assert result.checks[0].p_t == pytest.approx(scipy_p, rel=1e-9)
    assert result.checks[0].change_best == pytest.approx(float(best.mean()), rel=1e-12)


def test_fillings_a_block_at_a_time_give_the_same_cases(monkeypatch):
    """A long line of fillings (RR and AP have no cutoff: every unjudged result of the list)
    is evaluated a block at a time on a large run; the cases do not depend on the block."""
    qrels, base, candidate = _world(np.random.default_rng(3), drop=False, queries=20)
    measures = ["nDCG@10", "RR", "AP"]
    whole = filled_changes(qrels, candidate, qrels, base, measures, 3)
    monkeypatch.setattr(unjudged_fillings, "BLOCK_ROWS", 500)
    blocks = filled_changes(qrels, candidate, qrels, base, measures, 3)
    pd.testing.assert_frame_equal(whole.best, blocks.best)
    pd.testing.assert_frame_equal(whole.worst, blocks.worst)
