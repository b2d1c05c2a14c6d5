"""Numbers that say what they are made of: queries a run never answered, runs older than the
query set, coverage by cause, how deep the labels go, the relevance threshold, the missed list,
placeholders and the report's first sentence (the library and the command line; the pages are
tests/app/test_dashboard_honest.py)."""

from __future__ import annotations

import json
import re
import sqlite3

import numpy as np
import pandas as pd
import pytest

from labeling.commands.cli import main
from labeling.errors import ScorecardError
from labeling.evaluation.inputs import result_cache, run_freshness, segmenting
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import judged_coverage, label_depth, score_history, scoring
from labeling.evaluation.views import drilldown
from labeling.files import importers
from labeling.judging import consensus, pooling, queue
from labeling.metrics import statistics
from labeling.metrics.engine import evaluate
from labeling.report import scorecard_report as report
from labeling.synthetic import review
from labeling.synthetic.candidate import Candidate
from labeling.workspace import file_identity, grading, store
from labeling.workspace.migrations import MIGRATIONS
from tests.partial_runs import (
    ANSWERED,
    EVALUATED,
    PARTIAL,
    RETURNED_NOTHING,
    ROWS,
    engine_evaluation,
    engine_means,
)
from tests.workspaces import add_rows

pytestmark = pytest.mark.usefixtures("fresh_result_cache")


@pytest.fixture
def partial(make_workspace):
    """The demo with three later queries and a five-query run (tests/partial_runs.py)."""
    return make_workspace("demo", **ROWS)


# --- queries a run never answered ---------------------------------------------------------------


def test_engine_names_the_queries_a_run_never_answered() -> None:
    qrels = pd.DataFrame({"query_id": ["a", "b", "c"], "doc_id": "d1", "relevance": 1})
    run = pd.DataFrame({"query_id": ["a", "a"], "doc_id": ["d1", "d2"], "score": [2.0, 1.0]})
    zero = evaluate(qrels, run, ["R@10"])
    skip = evaluate(qrels, run, ["R@10"], missing="skip")
    assert list(zero.unanswered) == list(skip.unanswered) == ["b", "c"]
    assert zero.mean["R@10"] == pytest.approx(1 / 3) and skip.mean["R@10"] == 1.0
    assert zero.query_count("zero").summary() == "3 evaluated queries, of which 2 returned nothing"
    counted = skip.query_count("skip")
    assert (counted.evaluated, counted.returned_nothing, counted.scored) == (3, 2, 1)
    assert "left out, so the means are over 1 queries" in counted.sentence()


def test_scoring_counts_and_skips_as_the_engine(partial) -> None:
    zero = Controls(PARTIAL, ("R@10", "nDCG@10"))
    count = scoring.query_count(partial, zero)
    assert (count.evaluated, count.returned_nothing) == (EVALUATED, RETURNED_NOTHING)
    assert set(scoring.unanswered_queries(partial, zero)).isdisjoint(ANSWERED)
    for missing, n in (("zero", EVALUATED), ("skip", len(ANSWERED))):
        controls = Controls(PARTIAL, ("R@10", "nDCG@10"), missing=missing)
        values = scoring.per_query(partial, controls)
        means, engine_n = engine_means(partial, PARTIAL, ["R@10", "nDCG@10"], missing=missing)
        assert len(values) == engine_n == n
        np.testing.assert_allclose(values.mean().to_numpy(), means.to_numpy(), atol=1e-12)
    card = scoring.segment_scorecard(partial, Controls(PARTIAL, missing="skip"))
    assert set(card["n"]) == {len(ANSWERED)}


def test_cli_states_how_many_queries_returned_nothing(partial, capsys) -> None:
    path = str(file_identity.database_file(partial))
    assert main(["evaluate", "--db", path, "--run", PARTIAL, "-m", "R@10"]) == 0
    table = capsys.readouterr().out
    assert f"{EVALUATED} evaluated queries, of which {RETURNED_NOTHING} returned nothing" in table
    assert f"(over {EVALUATED} queries)" in table
    assert main(["evaluate", "--db", path, "--run", PARTIAL, "-m", "R@10", "--skip-missing",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    means, n = engine_means(partial, PARTIAL, ["R@10"], missing="skip")
    assert (data["queries"], data["evaluated"], data["returned_nothing"]) == (
        n, EVALUATED, RETURNED_NOTHING)
    assert data["mean"]["R@10"] == pytest.approx(means["R@10"], abs=1e-12)
    assert main(["evaluate", "--db", path, "--run", PARTIAL, "-m", "R@10", "--format",
                 "trec"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("R@10\tall\t") and f"of which {RETURNED_NOTHING} returned" in err


def test_report_counts_skips_and_lists_unanswered_queries_apart(partial) -> None:
    zero = report.build_scorecard(partial, report.report_controls(PARTIAL), n_resamples=100)
    assert zero.counts.summary() == (f"{EVALUATED} evaluated queries, of which "
                                     f"{RETURNED_NOTHING} returned nothing")
    assert len(zero.not_retrieved) == report.N_WORST  # the first ten of the 44, by id
    assert [w["query_id"] for w in zero.not_retrieved] == sorted(
        set(scoring.unanswered_queries(partial, Controls(PARTIAL))))[:report.N_WORST]
    assert f"Not retrieved at all ({RETURNED_NOTHING} queries; the first 10)" in \
        report.to_html(zero)
    assert {w["query_id"] for w in zero.worst} <= set(ANSWERED)
    assert any(f"of which {RETURNED_NOTHING} returned nothing" in w for w in zero.warnings)
    data = json.loads(report.to_json(zero))
    assert (data["evaluated_queries"], data["returned_nothing"], data["missing"]) == (
        EVALUATED, RETURNED_NOTHING, "zero")
    assert f"of which {RETURNED_NOTHING} returned nothing" in report.to_markdown(zero)
    skip = report.build_scorecard(partial, report.report_controls(PARTIAL, missing="skip"),
                                  n_resamples=100)
    overall = skip.card.loc[skip.card["segment"] == "(all queries)"].set_index("measure")
    means, n = engine_means(partial, PARTIAL, list(overall.index), missing="skip")
    assert set(overall["n"]) == {n} == {len(ANSWERED)}
    np.testing.assert_allclose(overall["mean"].to_numpy(), means[overall.index].to_numpy(),
                               atol=1e-12)
    assert "left out" in skip.counts.summary()


def test_report_command_offers_skip_missing(partial, tmp_path, capsys) -> None:
    path = str(file_identity.database_file(partial))
    out = tmp_path / "card.json"
    assert main(["report", path, "--run", PARTIAL, "--skip-missing", "--out", str(out)]) == 0
    assert f"of which {RETURNED_NOTHING} returned nothing (left out)" in capsys.readouterr().out
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["missing"] == "skip" and data["queries"] == len(ANSWERED)
    assert "--skip-missing" in data["gate_example"]  # the CI gate scores the same way


def test_report_help_shows_a_plain_percent(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    text = capsys.readouterr().out
    assert "95% bootstrap" in " ".join(text.split()) and "%%" not in text


# --- runs older than the query set --------------------------------------------------------------


def test_runs_made_before_labeled_queries_arrived_are_stale(partial) -> None:
    ages = run_freshness.run_ages(partial)
    assert ages[PARTIAL].newer == 0 and not ages[PARTIAL].stale
    for run in ("bm25", "bm25-title", "fusion"):
        assert ages[run].newer == 3 and ages[run].label() == f"{run} (stale: 3 newer queries)"
    sentence = ages["fusion"].sentence(scoring.query_count(partial, Controls("fusion")))
    assert "3 labeled queries were added after it was made" in sentence
    assert f"It covers 46 of the {EVALUATED} evaluated queries" in sentence


def test_a_new_unlabeled_query_or_a_runs_own_placeholder_is_not_staleness(make_workspace) -> None:
    db = make_workspace(
        chunks=[{"id": "c1", "text": "one"}, {"id": "c2", "text": "two"}],
        queries=[{"id": "q1", "text": "first"}],
        runs={"old": [("q1", "c1", 1.0), ("q9", "c2", 0.5)]},  # q9: a placeholder it made
        judgments=[("q1", "c1", 1, "ann"), ("q9", "c2", 1, "ann")],
    )
    assert run_freshness.run_age(db, "old").newer == 0
    add_rows(db, queries=[{"id": "q2", "text": "second"}])
    assert run_freshness.run_age(db, "old").newer == 0  # q2 has no label yet
    add_rows(db, judgments=[("q2", "c2", 1, "ann")])
    assert run_freshness.run_age(db, "old").newer == 1


def test_accepting_a_synthetic_question_makes_the_older_runs_stale(make_workspace) -> None:
    db = make_workspace("demo")
    assert not any(age.stale for age in run_freshness.run_ages(db).values())
    [candidate] = review.add_candidates(
        db, [Candidate("leave-01", "How many days of annual leave does a new starter get?",
                       "offline")])
    question = review.accept(db, candidate, "alice")
    ages = run_freshness.run_ages(db)
    assert {run: age.newer for run, age in ages.items()} == dict.fromkeys(ages, 1)
    before = scoring.query_count(db, Controls("bm25"))
    assert question in set(scoring.unanswered_queries(db, Controls("bm25")))
    assert (before.evaluated, before.returned_nothing) == (47, 2)  # q44 and the new question


def test_runs_stored_before_the_record_are_never_called_stale(tmp_path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for migrate in MIGRATIONS[:8]:
        migrate(conn)
    conn.execute(f"PRAGMA user_version = {8}")
    conn.execute("INSERT INTO scale (grade, name) VALUES (0, 'no'), (1, 'yes')")
    conn.executemany("INSERT INTO queries (id, text) VALUES (?, ?)", [("q1", "a"), ("q2", "b")])
    conn.execute("INSERT INTO chunks (id, text) VALUES ('c1', 'x')")
    conn.execute("INSERT INTO runs (name, created_at) VALUES ('r', '2025-01-01T00:00:00+00:00')")
    conn.execute("INSERT INTO run_results (run_id, query_id, chunk_id, score) VALUES (1, 'q1', "
                 "'c1', 1.0)")
    conn.execute("INSERT INTO judgments (query_id, chunk_id, grade, annotator, created_at) "
                 "VALUES ('q2', 'c1', 1, 'a', '2025-01-01T00:00:00+00:00')")
    conn.commit()
    conn.close()
    db = store.open_workspace(path, create=False)
    arrivals = db.conn.execute("SELECT query_id FROM query_arrivals ORDER BY seq").fetchall()
    assert [r[0] for r in arrivals] == ["q1", "q2"]
    assert run_freshness.run_age(db, "r").newer is None  # unknown, not stale
    assert scoring.query_count(db, Controls("r")).returned_nothing == 1  # still counted
    db.close()


# --- coverage by cause, pair sources and label depth ---------------------------------------------


def test_coverage_splits_unjudged_chunks_from_short_lists(make_workspace) -> None:
    db = make_workspace("demo")
    runs = ["bm25", "bm25-title", "fusion"]
    cov = judged_coverage.coverage(db, Controls("bm25", k=10), runs, segmenting.query_table(db),
                                   "topic").set_index(["run", "segment"])
    parts = cov[["judged", "unjudged", "short"]].sum(axis=1)
    np.testing.assert_allclose(parts.to_numpy(), 1.0, atol=1e-12)
    labels = consensus.consensus_qrels(db, "default")
    for run in runs:
        frame = consensus.run_frame(db, run)
        listed = frame.groupby("query_id").size().reindex(labels["query_id"].unique()).fillna(0)
        filled = int(np.minimum(listed, 10).sum())
        row = cov.loc[(run, "(all queries)")]
        assert (row["slots_filled"], row["slots"]) == (filled, 10 * 46)
        judged = evaluate(labels, frame, ["Judged@10"]).mean["Judged@10"]
        assert row["judged"] == pytest.approx(judged, abs=1e-12)
        assert row["short"] == pytest.approx(1 - filled / 460, abs=1e-12)
    assert cov.loc[("bm25", "(all queries)"), "slots_filled"] == 371  # the demo's short lists
    sentence = judged_coverage.coverage_sentence(cov.loc[("bm25", "(all queries)")], 10)
    assert "371 of 460 slots filled" in sentence and "labels cannot fill the rest" in sentence


def test_only_unjudged_pairs_are_queued_and_recorded_as_a_pool(make_workspace) -> None:
    db = make_workspace("demo")
    controls = Controls("bm25", k=10)
    pairs = judged_coverage.unjudged_pairs(db, controls, ["bm25"])
    labeled = set(zip(*[consensus.consensus_qrels(db, "default")[c] for c in
                        ("query_id", "doc_id")], strict=True))
    assert pairs and not set(pairs) & labeled
    assert judged_coverage.send_unjudged_to_queue(db, pairs, k=10, runs=["bm25"]) == len(pairs)
    queued = set(db.conn.execute("SELECT query_id, chunk_id FROM label_queue "
                                 "WHERE reason = 'coverage'").fetchall())
    assert queued == set(pairs)
    sources = db.conn.execute("SELECT DISTINCT source, pool_depth, detail FROM pair_sources "
                              "WHERE detail LIKE '%coverage%'").fetchall()
    assert sources == [("pool", 10, "top 10 of bm25 (coverage)")]


def test_pools_imports_and_the_demo_record_where_pairs_came_from(make_workspace, tmp_path):
    db = make_workspace("demo")
    rows = dict(db.conn.execute("SELECT source, count(*) FROM pair_sources GROUP BY source"))
    judged = db.conn.execute("SELECT count(*) FROM (SELECT DISTINCT query_id, chunk_id FROM "
                             "judgments)").fetchone()[0]
    assert rows["pool"] == judged  # the demo's annotators judged the runs' top 10
    assert rows["import"] == db.conn.execute("SELECT count(*) FROM judgments").fetchone()[0]
    pooled = pooling.build_pool(db, ["fusion"], 3)
    depth3 = db.conn.execute("SELECT count(*), min(detail) FROM pair_sources WHERE pool_depth = 3"
                             ).fetchone()
    assert depth3 == (pooled.pooled, "top 3 of fusion")


def test_label_depth_warns_when_k_reaches_the_depth_of_most_labels(make_workspace) -> None:
    db = make_workspace("demo")
    depth = label_depth.label_depth(db, Controls("bm25"))
    relevant = int((consensus.consensus_qrels(db, "default")["relevance"] >= 1).sum())
    assert depth.relevant == relevant and depth.pools == {10: relevant}
    assert depth.warning("R@10") and depth.warning("R@20")
    assert depth.warning("R@5") is None and depth.warning("nDCG@10") is None
    assert "pools of depth 10" in depth.sentence()
    # Labels found beyond the pool (search) make the pool no longer "most" of them.
    with store.write_transaction(db) as conn:
        conn.execute("DELETE FROM pair_sources WHERE source = 'pool' AND query_id < 'q30'")
    result_cache.clear_cache()
    after = label_depth.label_depth(db, Controls("bm25"))
    assert after.others.get("imported", 0) > 0 and after.within(10) < relevant
    assert (after.warning("R@10") is None) == (2 * after.within(10) <= relevant)


# --- relevance threshold ------------------------------------------------------------------------


def test_workspace_default_threshold(make_workspace, capsys) -> None:
    db = make_workspace("demo")
    assert grading.default_relevance(db) == 1
    for bad in (0, 4, True, "2"):
        with pytest.raises(ScorecardError, match="relevance threshold"):
            grading.set_default_relevance(db, bad)
    path = str(file_identity.database_file(db))
    assert main(["threshold", path, "2"]) == 0
    assert "count 2 relevant, 3 highly relevant as relevant; 1 partially relevant count as " \
           "not relevant" in capsys.readouterr().out
    assert grading.default_relevance(db) == 2
    assert main(["evaluate", "--db", path, "--run", "bm25", "-m", "P@10", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    expected = engine_evaluation(db, "bm25", ["P(rel=2)@10"]).mean["P(rel=2)@10"]
    assert data["mean"] == {"P(rel=2)@10": pytest.approx(expected, abs=1e-12)}
    assert main(["evaluate", "--db", path, "--run", "bm25", "-m", "P@10", "--relevance", "1",
                 "--format", "json"]) == 0
    assert list(json.loads(capsys.readouterr().out)["mean"]) == ["P@10"]
    out = path + ".json"
    assert main(["report", path, "--run", "bm25", "--out", out]) == 0
    card = json.loads(open(out, encoding="utf-8").read())
    assert card["relevance"] == 2 and "Relevant from grade 2" in card["threshold"]
    assert "--relevance 2" in card["gate_example"]
    grading.set_scale(db, [(0, "no", ""), (1, "yes", ""), (2, "sure", ""), (3, "exact", ""),
                           (4, "best", "")])
    assert grading.default_relevance(db) == 2


# --- the missed list --------------------------------------------------------------------------


def test_missed_at_k_lists_relevant_chunks_below_k_by_grade_then_rank(make_workspace) -> None:
    db = make_workspace("demo")
    controls = Controls("bm25")
    missed = drilldown.missed_at_k(db, controls, "q22", 10)
    row = missed.set_index("chunk_id").loc["onboarding-02"]
    assert (row["grade"], row["rank"], row["where"]) == (3, 13, "rank 13")
    assert "onboarding-02" not in set(drilldown.missed_at_k(db, controls, "q22", 20)["chunk_id"])
    for query_id in ("q01", "q13", "q22", "q43", "q44"):
        for k in (1, 5, 10):
            missed = drilldown.missed_at_k(db, controls, query_id, k)
            ranked, _ = drilldown.drill_down(db, controls, query_id)
            labels = consensus.consensus_qrels(db, "default").query("query_id == @query_id")
            relevant = set(labels.loc[labels["relevance"] >= 1, "doc_id"])
            top = set(ranked.loc[ranked["rank"] <= k, "chunk_id"])
            assert set(missed["chunk_id"]) == relevant - top
            keys = list(zip(-missed["grade"], missed["rank"].fillna(10**6), strict=True))
            assert keys == sorted(keys)
            assert all(w == "not retrieved" if pd.isna(r) else w == f"rank {r}"
                       for r, w in zip(missed["rank"], missed["where"], strict=True))
    docs, missed_docs = drilldown.drill_down_documents(db, Controls("bm25", unit="document"),
                                                       "q22", k=1)
    assert set(missed_docs["doc_id"]).isdisjoint(docs.loc[docs["rank"] <= 1, "doc_id"])


# --- placeholders ---------------------------------------------------------------------------


def test_placeholders_read_text_not_imported(make_workspace, tmp_path) -> None:
    """Ids known only from a run or a qrels file (placeholders, no text)."""
    db = make_workspace(
        "demo", runs={"ghosts": [("q01", "ghost-1", 2.0), ("q01", "leave-01", 1.0)]})
    qrels = tmp_path / "more.qrels"
    qrels.write_text("q01 0 ghost-2 3\nqx 0 leave-01 2\n", encoding="utf-8")
    importers.import_qrels(db, qrels)
    ranked, missed = drilldown.drill_down(db, Controls("ghosts"), "q01")
    assert ranked.set_index("chunk_id").loc["ghost-1", "snippet"] == \
        "text not imported (id ghost-1)"
    assert missed.set_index("chunk_id").loc["ghost-2", "snippet"] == \
        "text not imported (id ghost-2)"
    assert not any("nan" == s or "None" == s for s in [*ranked["snippet"], *missed["snippet"]])
    card = queue.card_for(db, "qx", "ghost-1")
    assert (card.query_text, card.chunk_text) == ("text not imported (id qx)",
                                                  "text not imported (id ghost-1)")
    queue.enqueue_pairs(db, [("q01", "ghost-2")], reason="test")
    assert pooling.pairs_of_query(db, "q01", "ann")["text"].tolist() == [
        "text not imported (id ghost-2)"]
    values = scoring.per_query(db, Controls("ghosts"))
    worst = drilldown.worst_queries(values, segmenting.query_table(db), "R@10")
    assert worst.set_index("query_id").loc["qx", "text"] == "text not imported (id qx)"
    built = report.build_scorecard(db, report.report_controls("ghosts"), n_worst=46,
                                   n_resamples=50)
    texts = [m["text"] for w in built.worst + built.not_retrieved for m in w["missed"]]
    assert "text not imported (id ghost-2)" in texts
    page = report.to_html(built)
    assert ">nan<" not in page and "text not imported (id qx)" in page


# --- the report's first sentence -----------------------------------------------------------------


def test_verdict_numbers_are_the_comparisons(make_workspace) -> None:
    db = make_workspace("demo")
    card = report.build_scorecard(db, report.report_controls("bm25", measures=("nDCG@10",)),
                                  baseline="bm25-title", n_resamples=200)
    verdict = card.verdict
    row = card.comparison.iloc[0]
    assert (verdict.n, verdict.run_mean, verdict.baseline_mean, verdict.difference) == (
        row["n"], row["candidate_mean"], row["baseline"], row["difference"])
    per = engine_evaluation(db, "bm25", ["nDCG@10"]).per_query["nDCG@10"]
    base = engine_evaluation(db, "bm25-title", ["nDCG@10"]).per_query["nDCG@10"]
    interval = statistics.bootstrap_ci((per - base).to_numpy(), n_resamples=200, seed=0)
    assert (verdict.ci_low, verdict.ci_high) == pytest.approx((interval.low, interval.high))
    assert re.fullmatch(
        r"bm25 vs bm25-title on 46 queries: nDCG@10 0\.\d\d vs 0\.\d\d, difference [−+]0\.\d\d "
        r"\(95% CI [−+]?\d\.\d\d to [−+]?\d\.\d\d\), (not )?significant \(p = [\d.e-]+, Holm\)\.",
        verdict.sentence())
    html = report.to_html(card)
    assert html.index("id='verdict'") < html.index("Against the baseline")
    assert "#1f6fb2" in html and "#9aa5b1" in html  # the run's colour and the baseline's
    markdown = report.to_markdown(card)
    assert markdown.index("vs bm25\\-title on 46 queries") < markdown.index("### Against")
    assert "bm25s over chunk text" in markdown and "bm25s over title \\+ text" in markdown
    for term in ("RR \\/ MRR", "nDCG", "p \\(Holm\\)", "wins \\/ ties \\/ losses"):
        assert f"**{term}**" in markdown, term
    alone = report.build_scorecard(db, report.report_controls("bm25"), n_resamples=100).verdict
    assert alone.baseline is None and alone.sentence().startswith("bm25 on 46 queries: R@10 ")


# --- smaller traps ----------------------------------------------------------------------------


def test_history_shows_readable_times_and_no_raw_stamps(make_workspace) -> None:
    db = make_workspace("demo")
    frame, _ = score_history.history(db, Controls("bm25"), "demo-1")
    assert frame["created"].str.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC").all()
    assert score_history.readable_time("2026-05-09T07:35:25.123456+02:00") == \
        "2026-05-09 05:35 UTC"
    assert score_history.readable_time(None) is None


def test_history_keeps_skipped_and_zero_scores_apart(partial) -> None:
    skip = Controls(PARTIAL, missing="skip")
    score_history.save_snapshot(partial, skip)
    saved = score_history.history(partial, skip, "(unversioned)")[0].set_index("measure")
    means, _ = engine_means(partial, PARTIAL, list(saved.index), missing="skip")
    np.testing.assert_allclose(saved["saved"].to_numpy(), means[saved.index].to_numpy(),
                               atol=1e-12)
    zero = score_history.history(partial, Controls(PARTIAL), "(unversioned)")[0]
    assert zero["saved"].isna().all()  # saved with the unanswered left out: not these numbers
