"""labeling.evaluation.scores.scoring on the demo workspace and on a tiny hand-made one."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from labeling.errors import ScorecardError
from labeling.evaluation.inputs import (
    label_sets,
    locked_splits,
    result_cache,
    score_controls,
    segmenting,
)
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import judged_coverage, run_comparison, score_history, scoring
from labeling.evaluation.views import drilldown, failure_tags
from labeling.judging import consensus
from labeling.metrics.engine import evaluate
from labeling.workspace import judgments

MEASURES = ["R@10", "RR", "nDCG@5"]


@pytest.fixture
def db(make_workspace):
    result_cache.clear_cache()
    yield make_workspace("demo")
    result_cache.clear_cache()


@pytest.fixture
def tiny(make_workspace):
    """Two documents of two chunks each; one query; one run ranking c2, a1, d1, a2."""
    db = make_workspace(
        chunks=[
            {"id": "a1", "doc_id": "A", "text": "alpha one"},
            {"id": "a2", "doc_id": "A", "text": "alpha two"},
            {"id": "c2", "doc_id": "C", "text": "gamma two"},
            {"id": "d1", "doc_id": None, "text": "lonely chunk"},
        ],
        queries=[{"id": "q1", "text": "alpha?", "source": "real", "split": "test"}],
        runs={"r": [("q1", c, 4.0 - i, i + 1) for i, c in enumerate(["c2", "a1", "d1", "a2"])]},
        judgments=[("q1", "a1", 1, "ann"), ("q1", "a2", 3, "ann"), ("q1", "c2", 0, "ann")],
    )
    result_cache.clear_cache()
    yield db
    result_cache.clear_cache()


def test_chunk_scores_equal_the_engine_on_consensus_labels(db):
    ours = scoring.per_query(db, Controls("bm25", MEASURES))
    qrels = consensus.consensus_qrels(db)
    expected = evaluate(qrels, consensus.run_frame(db, "bm25"), MEASURES).per_query
    pd.testing.assert_frame_equal(ours, expected.set_axis(expected.index.astype("string")),
                                  check_names=False)
    judged = scoring.per_query(db, Controls("bm25", MEASURES, policy="judged_only"))
    expected = evaluate(qrels, consensus.run_frame(db, "bm25"), MEASURES, judged_only=True)
    np.testing.assert_allclose(judged.to_numpy(), expected.per_query.to_numpy())


def test_document_unit_takes_best_rank_and_highest_grade(tiny):
    chunk = scoring.per_query(tiny, Controls("r", ("RR", "P@1", "nDCG@4")))
    doc = scoring.per_query(tiny, Controls("r", ("RR", "P@1", "R@2"), unit="document"))
    assert chunk.loc["q1", "RR"] == pytest.approx(1 / 2)  # a1 at rank 2
    # Documents: C (rank 1, grade 0), A (rank 2 via a1, grade max(1, 3) = 3), d1 (rank 3).
    assert doc.loc["q1", "RR"] == pytest.approx(1 / 2)
    assert doc.loc["q1", "P@1"] == 0.0
    assert doc.loc["q1", "R@2"] == 1.0  # A is the only relevant document
    ranked, missed = drilldown.drill_down(tiny, Controls("r"), "q1")
    assert ranked["chunk_id"].tolist() == ["c2", "a1", "d1", "a2"]
    assert ranked["grade_name"].tolist()[2] == "unjudged"
    assert missed.empty


def test_scorecard_segments_sum_to_overall(db):
    values = scoring.per_query(db, Controls("bm25", MEASURES))
    queries = segmenting.query_table(db)
    card = scoring.scorecard(values, queries, "topic")
    overall = card.loc[card["segment"] == score_controls.OVERALL]
    assert set(overall["n"]) == {46}
    parts = card.loc[(card["segment"] != score_controls.OVERALL) & (card["measure"] == "RR")]
    assert parts["n"].sum() == 46
    assert (parts["n"] * parts["mean"]).sum() / 46 == pytest.approx(values["RR"].mean())
    assert (card["ci_low"] <= card["mean"] + 1e-12).all()
    assert (card["mean"] <= card["ci_high"] + 1e-12).all()
    pd.testing.assert_frame_equal(card, scoring.scorecard(values, queries, "topic"))
    source = scoring.scorecard(values, queries, "source")
    assert set(source["segment"]) == {score_controls.OVERALL, "real", "synthetic"}


def test_split_filter(db):
    test = scoring.per_query(db, Controls("bm25", MEASURES, split="test"))
    dev = scoring.per_query(db, Controls("bm25", MEASURES, split="dev"))
    assert len(test) + len(dev) == 46
    splits = segmenting.query_table(db)["split"]
    assert set(splits[test.index]) == {"test"}


def test_new_label_changes_the_numbers(db):
    controls = Controls("bm25", ("P@10",))
    before = scoring.per_query(db, controls)
    ranked, _ = drilldown.drill_down(db, controls, "q01")
    chunk = ranked.loc[ranked["grade"].isna() & (ranked["rank"] <= 10), "chunk_id"].iloc[0]
    snapshot = label_sets.label_snapshot(db, "default").snapshot
    drilldown.judge(db, "q01", chunk, 3, "carol")
    after = scoring.per_query(db, controls)
    assert after.loc["q01", "P@10"] == pytest.approx(before.loc["q01", "P@10"] + 0.1)
    assert label_sets.label_snapshot(db, "default").snapshot != snapshot


def test_test_split_lock_blocks_every_label_change(db):
    digest = locked_splits.lock_split(db, "lead", rule="default")
    assert locked_splits.split_lock(db)["snapshot_hash"] == digest == locked_splits.split_hash(
        db, rule="default")
    assert locked_splits.split_lock(db)["rule"] == "default"
    with pytest.raises(ScorecardError, match=r"query 'q02' is in the test split, which is locked"):
        judgments.add_judgment(db, "q02", "remote-work-01", 2, "alice")
    with pytest.raises(Exception, match="locked"):  # the trigger covers direct writes too
        db.conn.execute("UPDATE queries SET split = 'dev' WHERE id = 'q02'")
    with pytest.raises(ScorecardError, match="already locked"):
        locked_splits.lock_split(db, "lead", rule="default")
    judgments.add_judgment(db, "q01", "remote-work-01", 2, "alice")  # dev stays open
    assert locked_splits.split_hash(db, rule="default") == digest
    locked_splits.unlock_split(db)
    judgments.add_judgment(db, "q02", "remote-work-01", 2, "alice")
    assert locked_splits.split_lock(db) is None


def test_coverage_and_unjudged_pairs(db):
    queries = segmenting.query_table(db)
    controls = Controls("bm25", k=10)
    cov = judged_coverage.coverage(db, controls, ["bm25", "fusion"], queries, "topic",
                                   threshold=0.8)
    assert set(cov["run"]) == {"bm25", "fusion"}
    judged = scoring.per_query(db, controls.with_measures(["Judged@10"]))["Judged@10"].mean()
    overall = cov.loc[(cov["run"] == "bm25") & (cov["segment"] == score_controls.OVERALL)]
    assert overall["judged"].iloc[0] == pytest.approx(judged)
    assert (cov["below"] == (cov["judged"] < 0.8)).all()
    pairs = judged_coverage.unjudged_pairs(db, controls, ["bm25"])
    labeled = set(map(tuple, consensus.consensus_qrels(db)[["query_id", "doc_id"]].to_numpy()))
    assert pairs and not set(pairs) & labeled
    # Judged@10 * 10 per query = judged rows in the top 10; the rest are the unjudged pairs.
    assert len(pairs) == pytest.approx(46 * 10 * (1 - judged) - _short_lists(db, "bm25", 10))


def _short_lists(db, run: str, k: int) -> int:
    frame = consensus.run_frame(db, run)
    sizes = frame.groupby("query_id").size().reindex(segmenting.query_table(db).index).fillna(0)
    return int((k - sizes.clip(upper=k)).sum())


def test_send_unjudged_to_queue(db):
    pairs = judged_coverage.unjudged_pairs(db, Controls("bm25", k=5), ["bm25"])
    assert judged_coverage.send_unjudged_to_queue(db, pairs) == len(pairs)
    assert judged_coverage.send_unjudged_to_queue(db, pairs) == 0


def test_compare_runs(db):
    controls = Controls("bm25", ("RR",))
    table = run_comparison.compare_runs(db, controls, ["bm25-title", "fusion"], n_resamples=2000)
    assert list(table["candidate"]) == ["bm25-title", "fusion"]
    raw = table["p_randomization"].to_numpy()
    np.testing.assert_allclose(np.sort(table["p_holm"]), np.sort(
        np.minimum(1, np.maximum.accumulate(np.sort(raw) * [2, 1]))))
    assert (table["wins"] + table["ties"] + table["losses"] == table["n"]).all()
    pairs = run_comparison.paired_scores(db, controls, "fusion", "RR")
    assert table.loc[1, "difference"] == pytest.approx(pairs["difference"].mean())


def test_worst_query_shows_missed_relevant_chunk(db):
    controls = Controls("bm25", ("RR",))
    values = scoring.per_query(db, controls)
    worst = drilldown.worst_queries(values, segmenting.query_table(db), "RR")
    assert worst["value"].is_monotonic_increasing
    query = worst["query_id"].iloc[0]
    ranked, missed = drilldown.drill_down(db, controls, query)
    assert not missed.empty and (missed["grade"] >= 1).all()
    assert not set(missed["chunk_id"]) & set(ranked["chunk_id"])
    drop = drilldown.worst_queries(values, segmenting.query_table(db), "RR",
                                   baseline=scoring.per_query(db, controls.for_run("fusion")))
    assert drop["drop"].is_monotonic_decreasing


def test_failure_tags_and_counts(db):
    assert failure_tags.failure_tag_names(db)[:2] == list(failure_tags.FAILURE_TAGS)[:2]
    failure_tags.add_failure_tag(db, "  date   format ", created_by="lead")
    assert failure_tags.failure_tag_names(db)[-1] == "date format"
    failure_tags.tag_failure(db, "q01", "bm25", ["acronym", "date format"], "rev", "RTO")
    failure_tags.tag_failure(db, "q02", "bm25", ["acronym"], "rev")
    counts = failure_tags.tag_counts(db, segmenting.query_table(db), "topic")
    row = counts.loc[(counts["tag"] == "acronym")]
    assert row["queries"].tolist() == [2] and row["segment"].tolist() == ["hr"]
    with pytest.raises(ScorecardError, match="unknown failure tag"):
        failure_tags.tag_failure(db, "q01", "bm25", ["nope"], "rev")


def test_history_warns_on_different_snapshots(db):
    controls = Controls("bm25", ("RR",))
    frame, warnings = score_history.history(db, controls, "demo-1")
    assert frame["run"].tolist() == ["bm25", "bm25-title", "fusion"] and not warnings
    first = score_history.save_snapshot(db, controls)
    judgments.add_judgment(db, "q01", "remote-work-01", 3, "carol")
    second = score_history.save_snapshot(db, controls.for_run("fusion"))
    assert first != second
    frame, warnings = score_history.history(db, controls, "demo-1")
    assert len(warnings) == 1 and first in warnings[0] and second in warnings[0]
    assert frame.set_index("run").loc["bm25", "saved_snapshot"] == first


def test_curves_reach_the_cutoff_value(db):
    controls = Controls("bm25", ("R@10",))
    curve = scoring.curves(db, controls, ["bm25"])
    at10 = curve.loc[curve["k"] == 10, "mean"].iloc[0]
    assert at10 == pytest.approx(scoring.per_query(db, controls)["R@10"].mean())
    assert curve["mean"].is_monotonic_increasing


def test_bad_controls_raise():
    with pytest.raises(ScorecardError, match="unknown measure 'nope'"):
        Controls("bm25", ("nope@3",))
    with pytest.raises(ScorecardError, match="unknown policy 'sometimes'"):
        Controls("bm25", ("RR",), policy="sometimes")
    with pytest.raises(ScorecardError, match="at least one measure"):
        Controls("bm25", ())
    for field, value in (("unit", "page"), ("split", "train"), ("rule", "median")):
        with pytest.raises(ScorecardError, match=f"unknown .*{value!r}"):
            Controls("bm25", **{field: value})
    for field, value in (("k", 0), ("k", 2.5), ("relevance", 0), ("relevance", True)):
        with pytest.raises(ScorecardError, match=field if field == "k" else "relevance"):
            Controls("bm25", **{field: value})
    with pytest.raises(ScorecardError, match="choose a run"):
        Controls(" ")


def test_workspace_without_labels(make_workspace):
    db = make_workspace(queries=[{"id": "q1", "text": "x"}], chunks=[{"id": "c1", "text": "y"}],
                        runs={"r": [("q1", "c1", 1.0)]})
    values = scoring.per_query(db, Controls("r", ("RR",)))
    assert values.empty and list(values.columns) == ["RR"]
    card = scoring.scorecard(values, segmenting.query_table(db))
    assert card["n"].tolist() == [0]


def test_document_drill_down_agrees_with_the_document_scores(db):
    controls = Controls("bm25", ("P@5", "RR", "R@1000"), unit="document")
    values = scoring.per_query(db, controls)
    several_chunks = 0
    for query_id in values.index:
        ranked, missed = drilldown.drill_down_documents(db, controls, query_id)
        assert ranked["doc_id"].is_unique
        assert ranked["rank"].tolist() == list(range(1, len(ranked) + 1))
        assert ranked["chunk_rank"].is_monotonic_increasing
        assert not set(missed["doc_id"]) & set(ranked["doc_id"])
        relevant = ranked["relevant"]
        assert values.loc[query_id, "P@5"] == pytest.approx(relevant.head(5).sum() / 5)
        first = ranked.loc[relevant, "rank"]
        assert values.loc[query_id, "RR"] == pytest.approx(1 / first.iloc[0] if len(first) else 0)
        total = relevant.sum() + len(missed)
        assert values.loc[query_id, "R@1000"] == pytest.approx(
            relevant.sum() / total if total else 0
        )
        several_chunks += int((ranked["chunks"] > 1).any())
    assert several_chunks > 5  # the demo has documents of several chunks in one list


def test_consensus_rules_bracket_the_default(db):
    values = {
        rule: scoring.per_query(db, Controls("bm25", ("P@10", "nDCG@10"), rule=rule))
        for rule in score_controls.CONSENSUS_RULES
    }
    strict, default, lenient = values["strict"], values["default"], values["lenient"]
    assert (strict["P@10"] <= default["P@10"] + 1e-12).all()
    assert (default["P@10"] <= lenient["P@10"] + 1e-12).all()
    # The demo's two annotators disagree, so the rules must move some query.
    assert (strict["P@10"] < lenient["P@10"]).any()
    snapshot = {rule: label_sets.label_snapshot(db, rule).snapshot for rule in values}
    assert snapshot["strict"] != snapshot["lenient"]
