"""The consensus rule chosen on the Dashboard reaches every tab: under strict and under lenient,
each number shown (scorecard, curves, coverage, comparison, paired scores, worst queries and
drill-down, history, label and split hashes) equals the metric engine run directly on that
rule's labels, to 1e-9.

The workspace is the demo with a third annotator (``tests/three_rules.py``), where the three
rules give three different label sets; each check also asserts that the default rule's numbers
differ, so a tab that fell back to the default cannot pass.
"""

from __future__ import annotations

import io

import pandas as pd
import pytest

from labeling.evaluation.inputs import result_cache
from labeling.evaluation.inputs.score_controls import OVERALL
from labeling.judging.consensus import consensus_qrels
from labeling.workspace import store
from tests.markup import shown
from tests.three_rules import (
    RULES,
    differ,
    engine,
    expected_split_hash,
    labels_hash,
    regraded_query,
    same,
    split_the_rules,
    unjudged_in_top,
)

MEASURES = ["R@10", "RR", "P@10", "nDCG@10", "AP"]  # the dashboard's with P@k, nDCG@k and AP
RUNS = ["bm25", "bm25-title", "fusion"]


@pytest.fixture
def rules_workspace(workspace):
    result_cache.clear_cache()
    db = store.open_workspace(workspace)
    split_the_rules(db)
    yield db
    db.conn.close()
    result_cache.clear_cache()


def table(at, column: str) -> pd.DataFrame:
    """The table shown with ``column`` (tables carry no key AppTest can read)."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def downloaded(downloads, name: str) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO([data for file, data in downloads if file == name][-1]))


def open_tab(at, name: str):
    at.session_state["dash_tab"] = name  # the tabs are lazy: only the open one runs
    return at.run()


def check_scorecard(at, db, rule: str, downloads) -> None:
    card = table(at, "ci_low")
    overall = card.loc[card["segment"] == OVERALL].set_index("measure")["mean"]
    expected = engine(db, rule, "bm25", MEASURES).mean()
    same(overall[MEASURES], expected[MEASURES])
    differ(expected, engine(db, "default", "bm25", MEASURES).mean())
    at.multiselect(key="dash_curve_runs:bm25").set_value(["bm25", "fusion"]).run()
    curve = downloaded(downloads, "curves.csv")
    names = [f"{m}@{k}" for m, k in zip(curve["measure"], curve["k"], strict=True)]
    for run in ("bm25", "fusion"):
        rows = curve["run"] == run
        picked = [n for n, keep in zip(names, rows, strict=True) if keep]
        same(curve.loc[rows, "mean"], engine(db, rule, run, picked).mean()[picked])
    differ(curve["mean"], [engine(db, "default", r, [n])[n].mean()
                           for r, n in zip(curve["run"], names, strict=True)])


def check_coverage(at, db, rule: str) -> None:
    """Every rule labels the same pairs, so coverage is the one tab the rule cannot move."""
    open_tab(at, "Coverage")
    cov = table(at, "judged").set_index(["run", "segment"])["judged"]
    same([cov[(run, OVERALL)] for run in RUNS],
         [engine(db, rule, run, ["Judged@10"])["Judged@10"].mean() for run in RUNS])
    pairs = len(unjudged_in_top(db, rule, RUNS, 10))
    assert any(c.value.startswith(f"{pairs} unjudged (query, chunk) pairs in the top 10")
               for c in at.caption)


def check_compare(at, db, rule: str, downloads) -> None:
    open_tab(at, "Compare")
    at.selectbox(key="dash_baseline").set_value("bm25").run()
    at.multiselect(key="dash_candidates").set_value(["fusion"]).run()
    compared = table(at, "p_holm").set_index("measure")
    bm25, fusion = engine(db, rule, "bm25", MEASURES), engine(db, rule, "fusion", MEASURES)
    same(compared.loc[MEASURES, "baseline"], bm25.mean()[MEASURES])
    same(compared.loc[MEASURES, "candidate_mean"], fusion.mean()[MEASURES])
    differ(compared.loc[MEASURES, "baseline"], engine(db, "default", "bm25", MEASURES).mean())
    at.selectbox(key="dash_scatter_measure").set_value("P@10").run()
    pairs = downloaded(downloads, "paired-scores.csv").set_index("query_id")
    same(pairs["baseline"], bm25.loc[pairs.index.astype("string"), "P@10"])
    same(pairs["candidate"], fusion.loc[pairs.index.astype("string"), "P@10"])


def check_worst_queries(at, db, rule: str) -> None:
    open_tab(at, "Worst queries")
    at.selectbox(key="dash_worst_measure").set_value("P@10").run()
    worst = table(at, "value")
    expected = engine(db, rule, "bm25", MEASURES)
    same(worst["value"], expected.loc[worst["query_id"].astype("string"), "P@10"])
    differ(worst["value"], engine(db, "default", "bm25", ["P@10"]).loc[worst["query_id"]])
    query_id = regraded_query(db, rule, "bm25")
    at.selectbox(key="dash_drill_query").set_value(query_id).run()
    scores = ", ".join(f"{m} = {expected.loc[query_id, m]:.3f}" for m in MEASURES)
    assert any(shown(c.value) == f"bm25: {scores}" for c in at.caption)
    ranked = table(at, "snippet")
    grades = consensus_qrels(db, rule).query("query_id == @query_id").set_index("doc_id")
    on_page = ranked["grade"].astype("Float64").fillna(-99)
    same(on_page, ranked["chunk_id"].map(grades["relevance"]).astype("Float64").fillna(-99))
    default = consensus_qrels(db, "default").query("query_id == @query_id").set_index("doc_id")
    differ(on_page, ranked["chunk_id"].map(default["relevance"]).astype("Float64").fillna(-99))


def check_failure_tags(at) -> None:
    """The tab counts tags, not scores: under any rule it shows the same (here: none yet)."""
    open_tab(at, "Failure tags")
    assert not at.exception
    assert any("No failure tags yet" in i.value for i in at.info)


def check_history(at, db, rule: str) -> None:
    open_tab(at, "History")
    now = table(at, "saved_snapshot")
    expected = [engine(db, rule, run, [m])[m].mean()
                for run, m in zip(now["run"], now["measure"], strict=True)]
    same(now["now"], expected)
    differ(expected, [engine(db, "default", run, [m])[m].mean()
                      for run, m in zip(now["run"], now["measure"], strict=True)])
    at.button(key="dash_save_history").click().run()
    saved = table(at, "saved_snapshot").set_index(["run", "measure"])
    same(saved.loc["bm25", "saved"], engine(db, rule, "bm25", ["R@10", "RR"]).mean())
    assert set(saved.loc["bm25", "saved_snapshot"]) == {labels_hash(db, rule)}
    at.button(key="dash_lock").click().run()
    assert not at.exception and not at.error
    split = expected_split_hash(db, rule)
    assert split != expected_split_hash(db, "default")
    assert any(f"under consensus rule {rule}; label snapshot {split}" in t.value for t in at.text)
    assert any(f"test split locked at {split} (rule {rule})" in c.value for c in at.caption)


@pytest.mark.parametrize("rule", RULES)
def test_every_tab_scores_with_the_chosen_rule(open_app, rules_workspace, downloads, rule):
    db = rules_workspace
    at = open_app("dashboard")
    at.multiselect(key="dash_extra").set_value(["P@k", "nDCG@k", "AP"])
    at.selectbox(key="dash_rule").set_value(rule).run()
    assert not at.exception
    assert any(f"Label snapshot {labels_hash(db, rule)}" in c.value for c in at.caption)
    assert labels_hash(db, rule) != labels_hash(db, "default")
    check_scorecard(at, db, rule, downloads)
    check_coverage(at, db, rule)
    check_compare(at, db, rule, downloads)
    check_worst_queries(at, db, rule)
    check_failure_tags(at)
    check_history(at, db, rule)
    assert not at.exception


def test_relevance_threshold_reaches_the_scores_and_the_drill_down(open_app, rules_workspace):
    db = rules_workspace
    at = open_app("dashboard")
    at.selectbox(key="dash_relevance").set_value(2).run()
    card = table(at, "ci_low").set_index("measure")["mean"]
    written = ["R(rel=2)@10", "RR(rel=2)"]
    assert list(card.index) == written
    same(card[written], engine(db, "default", "bm25", written).mean()[written])
    differ(card[written], engine(db, "default", "bm25", ["R@10", "RR"]).mean())
    open_tab(at, "Worst queries")
    assert not at.exception
    assert any("Relevant: grade 2 and above" in c.proto.help for c in at.caption)
    labels = consensus_qrels(db, "default")
    # bm25 misses a grade-1 chunk of q43 (not relevant from grade 2) and a grade-3 one of q44.
    for query_id in ("q43", "q44"):
        at.selectbox(key="dash_drill_query").set_value(query_id).run()
        lists = [d.value for d in at.dataframe if "snippet" in d.value.columns]
        listed = set(lists[0]["chunk_id"]) if lists else set()  # q44: bm25 returned nothing
        mine = labels.query("query_id == @query_id")
        unlisted = {c: g for c, g in zip(mine["doc_id"], mine["relevance"], strict=True)
                    if c not in listed}
        missed = {t.value.split(" · ")[0].removeprefix("Missed: ") for t in at.text
                  if t.value.startswith("Missed: ")}
        assert missed == {c for c, g in unlisted.items() if g >= 2}
        assert max(unlisted.values()) == (1 if query_id == "q43" else 3)  # the precondition
