"""One ``Controls`` for every score: each evaluation function and the report, under the strict
and the lenient consensus rule, equal the metric engine run directly on that rule's labels.

The workspace is the demo with a third annotator (``tests/three_rules.py``), so the three rules
give three different label sets: a function that fell back to the default rule would show the
default's numbers, which the preconditions below check differ.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from labeling.commands.cli import main
from labeling.evaluation.inputs import label_sets, locked_splits, result_cache, segmenting
from labeling.evaluation.inputs.score_controls import OVERALL, Controls
from labeling.evaluation.scores import judged_coverage, run_comparison, score_history, scoring
from labeling.evaluation.views import drilldown
from labeling.judging.consensus import consensus_qrels, run_frame
from labeling.workspace import store
from tests.three_rules import (
    RULES,
    differ,
    engine,
    expected_split_hash,
    labels_hash,
    same,
    split_the_rules,
    unjudged_in_top,
)

MEASURES = ("R@10", "RR", "P@10", "nDCG@10", "AP")


@pytest.fixture(scope="module")
def template(demo_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rules") / "scorecard.db"
    shutil.copyfile(demo_file, path)
    db = store.open_workspace(path)
    assert split_the_rules(db) > 0
    db.conn.close()
    return path


@pytest.fixture
def db(template: Path, tmp_path: Path):
    path = tmp_path / "scorecard.db"
    shutil.copyfile(template, path)
    result_cache.clear_cache()
    handle = store.open_workspace(path)
    yield handle
    handle.conn.close()
    result_cache.clear_cache()


def test_controls_default_to_the_dashboard_and_resolve_k_and_relevance():
    plain = Controls("bm25")
    assert (plain.measures, plain.k, plain.unit, plain.policy, plain.split, plain.rule,
            plain.relevance) == (("R@10", "RR"), 10, "chunk", "nonrelevant", "all", "default", 1)
    at5 = Controls("bm25", ("R@k", "nDCG@k", "P@3", "R@5", "ndcg@5"), k=5)
    assert at5.measures == ("R@5", "nDCG@5", "P@3", "ndcg@5")  # repeats dropped, as written
    graded = Controls("bm25", ("R@10", "RR", "nDCG@10", "P(rel=3)@5", "Judged@10"), relevance=2)
    assert graded.measures == ("R(rel=2)@10", "RR(rel=2)", "nDCG@10", "P(rel=3)@5", "Judged@10")
    assert graded.with_measures(graded.measures) == graded  # resolving twice changes nothing
    assert graded.for_run("fusion").run == "fusion"
    assert graded.headline().measures == ("R(rel=2)@10", "RR(rel=2)")
    assert hash(graded) == hash(Controls("bm25", graded.measures, relevance=2))


@pytest.mark.parametrize("rule", RULES)
def test_scores_of_every_function_follow_the_rule(db, rule: str) -> None:
    controls = Controls("bm25", MEASURES, rule=rule)
    expected = engine(db, rule, "bm25", MEASURES)
    differ(expected.mean(), engine(db, "default", "bm25", MEASURES).mean())
    values = scoring.per_query(db, controls)
    assert list(values.index) == list(expected.index)
    same(values, expected)
    card = scoring.segment_scorecard(db, controls, "topic")
    overall = card.loc[card["segment"] == OVERALL].set_index("measure")["mean"]
    same(overall[list(MEASURES)], expected.mean()[list(MEASURES)])
    assert label_sets.label_snapshot(db, rule).snapshot == labels_hash(db, rule)


@pytest.mark.parametrize("rule", RULES)
def test_comparison_and_curves_follow_the_rule(db, rule: str) -> None:
    controls = Controls("bm25", MEASURES, rule=rule)
    fusion = engine(db, rule, "fusion", MEASURES)
    bm25 = engine(db, rule, "bm25", MEASURES)
    table = run_comparison.compare_runs(db, controls, ["fusion"], n_resamples=200)
    same(table["baseline"], bm25.mean()[list(table["measure"])])
    same(table["candidate_mean"], fusion.mean()[list(table["measure"])])
    pairs = run_comparison.paired_scores(db, controls, "fusion", "P@10")
    same(pairs["baseline"], bm25.loc[pairs.index, "P@10"])
    same(pairs["candidate"], fusion.loc[pairs.index, "P@10"])
    curve = scoring.curves(db, controls.with_measures(["R@10", "P@10"]), ["bm25", "fusion"])
    names = [f"{m}@{k}" for m, k in zip(curve["measure"], curve["k"], strict=True)]
    for run, rows in curve.groupby("run"):
        at_k = engine(db, rule, str(run), dict.fromkeys(names)).mean()
        same(rows["mean"], at_k[[f"{m}@{k}" for m, k in zip(rows["measure"], rows["k"],
                                                            strict=True)]])
    default_curve = scoring.curves(db, Controls("bm25", ("R@10", "P@10")), ["bm25", "fusion"])
    differ(curve["mean"], default_curve["mean"])


@pytest.mark.parametrize("rule", RULES)
def test_coverage_follows_the_rule(db, rule: str) -> None:
    """Every rule labels the same pairs (they differ in grades), so coverage cannot tell them
    apart; it must still count on the rule's labels."""
    controls = Controls("bm25", rule=rule, k=10)
    queries = segmenting.query_table(db)
    cov = judged_coverage.coverage(db, controls, ["bm25", "fusion"], queries)
    for run in ("bm25", "fusion"):
        judged = cov.loc[(cov["run"] == run) & (cov["segment"] == OVERALL), "judged"]
        same(judged, [engine(db, rule, run, ["Judged@10"])["Judged@10"].mean()])
    assert set(judged_coverage.unjudged_pairs(db, controls, ["bm25"])) == unjudged_in_top(
        db, rule, ["bm25"], 10)


@pytest.mark.parametrize("rule", RULES)
def test_drill_down_and_worst_queries_follow_the_rule(db, rule: str) -> None:
    controls = Controls("bm25", MEASURES, rule=rule)
    qrels = consensus_qrels(db, rule)
    default = consensus_qrels(db, "default").set_index(["query_id", "doc_id"])["relevance"]
    grades = qrels.set_index(["query_id", "doc_id"])["relevance"]
    moved = grades.index[grades != default.reindex(grades.index)]
    assert len(moved)  # precondition: the rule changes some grade
    retrieved = run_frame(db, "bm25")
    for query_id in sorted({q for q, _ in moved}):
        ranked, missed = drilldown.drill_down(db, controls, query_id)
        mine = grades.loc[query_id]
        same(ranked["grade"].astype("Float64").fillna(-99),
             ranked["chunk_id"].map(mine).astype("Float64").fillna(-99))
        assert ranked["relevant"].tolist() == (ranked["chunk_id"].map(mine).fillna(-1) >= 1
                                               ).tolist()
        listed = set(retrieved.loc[retrieved["query_id"] == query_id, "doc_id"])
        assert set(missed["chunk_id"]) == {c for c, g in mine.items() if g >= 1} - listed
    values = scoring.per_query(db, controls)
    worst = drilldown.worst_queries(values, segmenting.query_table(db), "P@10")
    expected = engine(db, rule, "bm25", MEASURES)["P@10"]
    same(worst["value"], expected.loc[worst["query_id"]])


@pytest.mark.parametrize("rule", RULES)
def test_history_and_hashes_follow_the_rule(db, rule: str) -> None:
    controls = Controls("bm25", ("R@10", "P@10"), rule=rule)
    digest = score_history.save_snapshot(db, controls)
    assert digest == labels_hash(db, rule)
    frame, warnings = score_history.history(db, controls, "demo-1")
    assert not warnings
    for row in frame.to_dict("records"):
        now = engine(db, rule, row["run"], [row["measure"]])[row["measure"]].mean()
        same([row["now"]], [now])
        if row["run"] == "bm25":
            same([row["saved"]], [now])
            assert row["saved_snapshot"] == digest
        else:
            assert np.isnan(row["saved"])
    under_default, _ = score_history.history(db, Controls("bm25", controls.measures), "demo-1")
    assert under_default["saved"].isna().all()  # saved under the rule, not the default
    split = expected_split_hash(db, rule)
    assert locked_splits.split_hash(db, rule=rule) == split
    assert split != locked_splits.split_hash(db, rule="default")
    assert locked_splits.lock_split(db, "lead", rule=rule) == split
    assert locked_splits.split_lock(db)["rule"] == rule


def test_relevance_threshold_reaches_the_measures_and_the_drill_down(db) -> None:
    controls = Controls("bm25", ("R@10", "RR", "nDCG@10"), relevance=2)
    written = ["R(rel=2)@10", "RR(rel=2)", "nDCG@10"]
    values = scoring.per_query(db, controls)
    assert list(values.columns) == written
    expected = engine(db, "default", "bm25", written)
    same(values, expected)
    assert not np.allclose(expected["RR(rel=2)"], engine(db, "default", "bm25", ["RR"])["RR"])
    query_id = expected.index[0]
    ranked, missed = drilldown.drill_down(db, controls, query_id)
    assert ranked["relevant"].tolist() == (ranked["grade"].fillna(-1) >= 2).tolist()
    assert (missed["grade"] >= 2).all()


@pytest.mark.parametrize("rule", RULES)
def test_report_command_follows_the_rule(db, rule: str, tmp_path: Path, capsys) -> None:
    out = tmp_path / "card.json"
    argv = ["report", str(tmp_path / "scorecard.db"), "--run", "bm25", "--baseline", "fusion",
            "--out", str(out), "--consensus", rule, *[arg for m in MEASURES for arg in ("-m", m)]]
    assert main(argv) == 0, capsys.readouterr().err
    card = json.loads(out.read_text(encoding="utf-8"))
    bm25, fusion = (engine(db, rule, run, MEASURES) for run in ("bm25", "fusion"))
    assert card["consensus_rule"] == rule and card["queries"] == len(bm25)
    assert card["label_snapshot"] == labels_hash(db, rule)
    overall = {r["measure"]: r["mean"] for r in card["scorecard"] if r["segment"] == OVERALL}
    same([overall[m] for m in MEASURES], bm25.mean()[list(MEASURES)])
    baseline = {r["measure"]: r["mean"] for r in card["baseline_scorecard"]}
    same([baseline[m] for m in MEASURES], fusion.mean()[list(MEASURES)])
    comparison = {r["measure"]: r for r in card["comparison"]}
    same([comparison[m]["candidate_mean"] for m in MEASURES], bm25.mean()[list(MEASURES)])
    same([w["value"] for w in card["worst_queries"]],
         bm25.loc[[w["query_id"] for w in card["worst_queries"]], MEASURES[0]])
    assert f"--consensus {rule}" in card["gate_example"]
    differ(bm25.mean(), engine(db, "default", "bm25", MEASURES).mean())
