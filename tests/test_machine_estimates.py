"""Machine-assisted estimates on a workspace: the label sets the engine scores, the three
estimates side by side, paired comparisons, the audit's progress, and agreement with people."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from labeling.errors import ScorecardError
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import scoring
from labeling.judging import queue
from labeling.machine_judging import audit_sample, machine_agreement, machine_estimates
from labeling.metrics.engine import evaluate

JUDGE, OTHER = "tiny@v1", "big@v2"
QUERIES, POOL = 12, 6
MEASURES = ("nDCG@5", "P@5")


def _world():
    """12 queries with 6 chunks each; people's grades (``truth``), the judge's (one grade too
    high on a third of the pairs), another judge's (right on 80%, far off on the rest), two runs
    and topic segments."""
    rng = np.random.default_rng(8)
    truth, machine, other, runs = {}, {}, {}, {"up": [], "mid": [], "down": []}
    for q in range(QUERIES):
        for c in range(POOL):
            pair = (f"q{q:02d}", f"q{q:02d}-c{c}")
            truth[pair] = int(rng.choice(4, p=[0.4, 0.25, 0.2, 0.15]))
            machine[pair] = min(3, truth[pair] + int(rng.random() < 0.35))
            other[pair] = truth[pair] if rng.random() < 0.8 else 3 - truth[pair]
            runs["up"].append((*pair, float(truth[pair] + rng.normal())))
            runs["mid"].append((*pair, float(truth[pair] + 3 * rng.normal())))
            runs["down"].append((*pair, float(rng.normal())))
    return truth, machine, other, runs


TRUTH, MACHINE, OTHER_GRADES, RUNS = _world()


def _machine(grades: dict, judge: str) -> list[tuple]:
    return [(*pair, grade, judge, {"origin": "machine", "origin_source": judge})
            for pair, grade in grades.items()]


@pytest.fixture
def db(make_workspace):
    queries = [{"id": f"q{q:02d}", "text": f"question {q}", "topic": "even" if q % 2 == 0
                else "odd"} for q in range(QUERIES)]
    chunks = [{"id": c, "text": f"passage {c}"} for _, c in TRUTH]
    known = [(q, c, TRUTH[q, c], "ada") for q, c in TRUTH if c.endswith("-c0")]
    return make_workspace(chunks=chunks, queries=queries, runs=RUNS,
                          judgments=[*known, *_machine(MACHINE, JUDGE),
                                     *_machine(OTHER_GRADES, OTHER)])


def _people_judge_the_audit(db, sample_id: int, only: int | None = None) -> int:
    """A person grades the audited pairs (all, or the first ``only``) with the true grades."""
    pairs = audit_sample.sample_pairs(db, sample_id)
    audited = pairs.loc[pairs["sampled"] & ~pairs["known"]]
    if only is not None:
        audited = audited.iloc[:only]
    for row in audited.itertuples():
        queue.save_judgment(db, row.query_id, row.chunk_id, TRUTH[row.query_id, row.chunk_id],
                            "carol")
    return len(audited)


def _score(labels: dict, run: str = "up") -> pd.DataFrame:
    qrels = pd.DataFrame([(q, c, g) for (q, c), g in labels.items()],
                         columns=["query_id", "doc_id", "relevance"])
    frame = pd.DataFrame(RUNS[run], columns=["query_id", "doc_id", "score"])
    return evaluate(qrels, frame, MEASURES).per_query


def test_a_full_audit_makes_every_estimate_exact(db):
    draw = audit_sample.draw_audit(db, JUDGE, 1000, runs=["up", "down"], relevance=1)
    assert draw.drawn == QUERIES * (POOL - 1)  # every machine-only pair
    _people_judge_the_audit(db, draw.sample_id)
    table, state = machine_estimates.estimates(db, Controls("up", measures=MEASURES),
                                               draw.sample_id)
    assert not state.provisional and state.human_labels == QUERIES * POOL
    human = _score(TRUTH).mean()
    machine_only = _score(MACHINE).mean()
    got = table.set_index(["measure", "estimate"])
    for measure in MEASURES:
        for estimate in ("people only", "prediction-powered"):
            assert got.loc[(measure, estimate), "mean"] == pytest.approx(human[measure])
        assert got.loc[(measure, "machine only"), "mean"] == pytest.approx(machine_only[measure])
    # The machine over-grades: its precision is higher than people's.
    assert machine_only["P@5"] > human["P@5"]


def test_per_query_terms_follow_the_audit_order_and_probabilities(db):
    draw = audit_sample.draw_audit(db, JUDGE, 12, runs=["up"], relevance=1, seed=4)
    _people_judge_the_audit(db, draw.sample_id)
    controls = Controls("up", measures=MEASURES)
    state = machine_estimates.audit_state(db, draw.sample_id, "default")
    terms = machine_estimates._terms(db, controls, state, ("up",))
    pairs = audit_sample.sample_pairs(db, draw.sample_id)
    for query_id, group in pairs.groupby("query_id"):
        # By hand: known pairs human, machine elsewhere; then each audited pair in turn.
        labels = {(r.query_id, r.chunk_id): (TRUTH if r.known else MACHINE)[r.query_id,
                                                                          r.chunk_id]
                  for r in group.itertuples()}
        values = [_score(labels).loc[query_id]]
        inclusion = []
        for r in group.loc[group["sampled"] & ~group["known"]].itertuples():
            labels[r.query_id, r.chunk_id] = TRUTH[r.query_id, r.chunk_id]
            values.append(_score(labels).loc[query_id])
            inclusion.append(r.inclusion)
        expected = values[0] + sum((b - a) / p for a, b, p in
                                   zip(values[:-1], values[1:], inclusion, strict=True))
        for measure in MEASURES:
            assert terms.machine.loc[query_id, measure] == pytest.approx(expected[measure])
        machine_alone = _score({k: MACHINE[k] for k in labels}).loc[query_id]
        assert terms.machine_only.loc[query_id, "P@5"] == pytest.approx(machine_alone["P@5"])


def test_estimates_are_side_by_side_with_segments_and_the_labels_they_are_worth(db):
    draw = audit_sample.draw_audit(db, JUDGE, 20, runs=["up"], relevance=1, segment="topic")
    _people_judge_the_audit(db, draw.sample_id)
    table, _ = machine_estimates.estimates(db, Controls("up", measures=MEASURES),
                                           draw.sample_id, segment="topic")
    assert set(table["segment"]) == {"(all queries)", "even", "odd"}
    assert set(table["estimate"]) == set(machine_estimates.ESTIMATES)
    assert (table["ci_low"] <= table["mean"]).all() and (table["mean"] <= table["ci_high"]).all()
    powered = table.loc[table["estimate"] == "prediction-powered"]
    assert powered["machine_weight"].between(0, 1).all()
    assert (powered["effective_labels"] > 0).all()
    wide = machine_estimates.side_by_side(table)
    assert list(wide.columns[:4]) == ["segment", "measure", "prediction-powered",
                                      "people only"]
    assert len(wide) == 3 * len(MEASURES)


def test_an_unfinished_audit_is_provisional_and_stops_at_the_first_waiting_pair(db):
    draw = audit_sample.draw_audit(db, JUDGE, 30, runs=["up"], relevance=1, seed=1)
    judged = _people_judge_the_audit(db, draw.sample_id, only=5)
    state = machine_estimates.audit_state(db, draw.sample_id, "default")
    assert state.provisional and state.waiting == draw.drawn - judged
    audited = state.pairs.loc[state.pairs["sampled"] & ~state.pairs["known"]]
    for _, group in audited.groupby("query_id"):
        seen = group["observed"].to_numpy()
        assert (np.diff(seen.astype(int)) <= 0).all()  # observed: a prefix of the order
        waiting = group["human"].isna().to_numpy()
        assert not (seen & waiting).any()
    assert audit_sample.audit_progress(db, draw.sample_id).judged == judged


def test_a_paired_comparison_uses_the_same_labels_for_both_runs(db):
    draw = audit_sample.draw_audit(db, JUDGE, 1000, runs=["up", "down"], relevance=1)
    _people_judge_the_audit(db, draw.sample_id)
    table, _ = machine_estimates.estimates(db, Controls("up", measures=MEASURES),
                                           draw.sample_id, baseline="down")
    difference = (_score(TRUTH, "up") - _score(TRUTH, "down")).mean()
    powered = table.loc[table["estimate"] == "prediction-powered"].set_index("measure")
    for measure in MEASURES:
        assert powered.loc[measure, "mean"] == pytest.approx(difference[measure])


def test_document_unit_and_an_empty_split_are_refused(db):
    draw = audit_sample.draw_audit(db, JUDGE, 10, runs=["up"], relevance=1)
    with pytest.raises(ScorecardError, match="per chunk"):
        machine_estimates.estimates(db, Controls("up", unit="document"), draw.sample_id)
    with pytest.raises(ScorecardError, match="no query in this split"):
        machine_estimates.estimates(db, Controls("up", split="test"), draw.sample_id)


def test_agreement_with_people_equals_scikit_learn_on_the_pairs_both_graded(db):
    found = machine_agreement.agreement(db, JUDGE, segment="topic", n_resamples=200)
    known = [(q, c) for q, c in TRUTH if c.endswith("-c0")]
    people = [TRUTH[p] for p in sorted(known)]
    machine = [MACHINE[p] for p in sorted(known)]
    assert found.pairs == QUERIES
    assert found.kappa.kappa == pytest.approx(
        cohen_kappa_score(people, machine, labels=[0, 1, 2, 3]))
    assert found.weighted.kappa == pytest.approx(
        cohen_kappa_score(people, machine, labels=[0, 1, 2, 3], weights="quadratic"))
    assert int(found.confusion.to_numpy().sum()) == QUERIES
    assert found.sample_id is None and found.scope.startswith("audit-sample figure, unweighted")
    assert set(found.by_segment["segment"]) == {"even", "odd"}
    assert found.by_grade["pairs"].sum() == QUERIES


def _people_grade_everything(db) -> None:
    for q in range(QUERIES):
        for c in range(1, POOL):
            pair = (f"q{q:02d}", f"q{q:02d}-c{c}")
            queue.save_judgment(db, *pair, TRUTH[pair], "ada")


def test_ranking_agreement_is_kendalls_tau_of_the_run_means(db):
    audit_sample.draw_audit(db, OTHER, 1000, runs=["up"], relevance=1)  # every pair
    _people_grade_everything(db)
    runs = ["up", "mid", "down"]
    result = machine_agreement.ranking_agreement(db, Controls("up", measures=("nDCG@5",)),
                                                 OTHER, runs)
    people = [scoring.per_query(db, Controls(r, measures=("nDCG@5",)))["nDCG@5"].mean()
              for r in runs]
    machine = [scoring.per_query(db, Controls(r, measures=("nDCG@5",), label_source="machine",
                                              judge=OTHER))["nDCG@5"].mean() for r in runs]
    assert result.tau == pytest.approx(stats.kendalltau(people, machine).statistic)
    assert result.table.set_index("run")["people"].to_dict() == pytest.approx(
        dict(zip(runs, people, strict=True)))
    assert len(result.swaps) == sum(
        (people[i] - people[j]) * (machine[i] - machine[j]) < 0
        for i in range(3) for j in range(i + 1, 3))


def test_disagreements_and_a_judge_comparison(db):
    _people_grade_everything(db)  # so that both judges can be compared on every pair
    far = machine_agreement.disagreements(db, OTHER)
    assert (far["gap"] >= 2).all() and list(far["gap"]) == sorted(far["gap"], reverse=True)
    expected = sum(abs(OTHER_GRADES[p] - TRUTH[p]) >= 2 for p in TRUTH)
    assert len(far) == expected > 0 and far["query"].str.startswith("question").all()
    assert far["reason"].isna().all()  # these labels came without details (no batch)
    result = machine_agreement.compare_judges(db, JUDGE, OTHER, n_resamples=300)
    assert result.n == QUERIES * POOL
    people = [TRUTH[p] for p in sorted(TRUTH)]
    assert result.first == pytest.approx(cohen_kappa_score(
        people, [MACHINE[p] for p in sorted(TRUTH)], labels=[0, 1, 2, 3], weights="quadratic"))
    assert result.low <= result.difference <= result.high



def test_every_interval_stays_inside_the_measures_range(db):
    """Issue 30 (1): small audits make the people-only terms heavy-tailed; their t interval
    used to reach past 1 (and below 0)."""
    outside = 0
    for seed in range(6):
        draw = audit_sample.draw_audit(db, JUDGE, 6, runs=["up"], relevance=1, seed=seed)
        _people_judge_the_audit(db, draw.sample_id)
        for baseline, low in ((None, 0.0), ("down", -1.0)):
            table, _ = machine_estimates.estimates(db, Controls("up", measures=MEASURES),
                                                   draw.sample_id, baseline=baseline)
            assert table["ci_low"].ge(low).all() and table["ci_high"].le(1.0).all()
            assert (table["ci_low"] <= table["mean"]).all()
            assert (table["mean"] <= table["ci_high"]).all()
            outside += int(table["ci_high"].eq(1.0).sum() + table["ci_low"].eq(low).sum())
    assert outside > 0  # the case arose: some bound was clipped


def test_every_interval_names_its_level_and_what_it_covers(db):
    """Issue 30 (2, 3): the machine-only interval is not presented as the others' equal."""
    draw = audit_sample.draw_audit(db, JUDGE, 20, runs=["up"], relevance=1)
    _people_judge_the_audit(db, draw.sample_id)
    table, _ = machine_estimates.estimates(db, Controls("up", measures=MEASURES),
                                           draw.sample_id)
    meaning = table.set_index(["measure", "estimate"])["interval"]
    assert meaning[("P@5", "prediction-powered")] == (
        "95% interval for the mean over all queries like these, correcting for the judge's "
        "error")
    assert meaning[("P@5", "machine only")] == (
        "95% interval — sampling of queries only, ignores the judge's error")
    wide = machine_estimates.side_by_side(table)
    assert "machine only" not in wide.columns
    assert str(wide[machine_estimates.WORTH].dtype) == "Int64"
    apart = machine_estimates.machine_only(table)
    assert list(apart["measure"]) == list(MEASURES)
    assert apart["machine only"].str.match(r"^\d\.\d{3} \[\d\.\d{3}, \d\.\d{3}\]$").all()
    assert any("ignores the judge's error" in line for line in machine_estimates.notes())


def test_the_people_ranking_behind_tau_is_the_corrected_estimate(db):
    """Issue 30 (4): the people's side of the ranking is each run's prediction-powered
    estimate, not the audited pairs scored with every other pair counted as not relevant."""
    draw = audit_sample.draw_audit(db, JUDGE, 15, runs=["up"], relevance=1, seed=2)
    _people_judge_the_audit(db, draw.sample_id)
    runs, measure = ["up", "mid", "down"], ("nDCG@5",)
    result = machine_agreement.ranking_agreement(db, Controls("up", measures=measure), JUDGE,
                                                 runs)
    assert result.sample_id == draw.sample_id
    got = result.table.set_index("run")
    for run in runs:
        table, _ = machine_estimates.estimates(db, Controls(run, measures=measure),
                                               draw.sample_id)
        means = table.set_index("estimate")["mean"]
        assert got.loc[run, "people"] == pytest.approx(means["prediction-powered"])
        assert got.loc[run, "machine"] == pytest.approx(means["machine only"])
    assert result.tau == pytest.approx(stats.kendalltau(got["people"], got["machine"]).statistic)
    truth = _score(TRUTH)["nDCG@5"].mean()
    audited_only = scoring.per_query(db, Controls("up", measures=measure))["nDCG@5"].mean()
    assert abs(got.loc["up", "people"] - truth) < abs(audited_only - truth)


def test_kappa_is_design_weighted_by_the_audit(db):
    """Issue 30 (5): with an audit sample, each pair people graded counts 1 / inclusion:
    scikit-learn's kappa with those sample weights, over the judge's labels in the sample."""
    draw = audit_sample.draw_audit(db, JUDGE, 15, runs=["up"], relevance=1, seed=3)
    _people_judge_the_audit(db, draw.sample_id)
    found = machine_agreement.agreement(db, JUDGE, n_resamples=50)
    pairs = audit_sample.sample_pairs(db, draw.sample_id)
    used = pairs.loc[pairs["known"] | pairs["sampled"]]
    people = [TRUTH[q, c] for q, c in zip(used["query_id"], used["chunk_id"], strict=True)]
    machine, weight = used["machine_grade"].astype(int), 1.0 / used["inclusion"]
    assert weight.nunique() > 1
    assert found.kappa.kappa == pytest.approx(cohen_kappa_score(
        people, machine, labels=[0, 1, 2, 3], sample_weight=weight))
    assert found.weighted.kappa == pytest.approx(cohen_kappa_score(
        people, machine, labels=[0, 1, 2, 3], weights="quadratic", sample_weight=weight))
    assert found.weighted.low <= found.weighted.kappa <= found.weighted.high
    assert (found.sample_id, found.population, found.pairs) == (
        draw.sample_id, QUERIES * POOL, len(used))
    assert found.scope.startswith(f"design-weighted estimate over all {QUERIES * POOL} of")
    [line] = machine_agreement.describe_assistance(machine_agreement.assistance(
        db, Controls("up", label_source="machine", judge=JUDGE)))
    assert "design-weighted estimate over all" in line
