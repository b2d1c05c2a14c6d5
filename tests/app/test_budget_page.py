"""The Compare tab's judging budget and deciding pairs, in AppTest on the demo workspace."""

from __future__ import annotations

import json

import pytest

from labeling.evaluation.inputs import result_cache
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.planning import judging_budget
from labeling.evaluation.views import deciding_pairs
from labeling.workspace import store


@pytest.fixture(autouse=True)
def _fresh_dashboard_cache():
    result_cache.clear_cache()
    yield
    result_cache.clear_cache()


def _compare(at, *, extra: list[str] | None = None):
    if extra:
        at.multiselect(key="dash_extra").set_value(extra).run()
    at.session_state["dash_tab"] = "Compare"  # the tabs are lazy: only the open one runs
    at.run()
    at.selectbox(key="dash_baseline").set_value("bm25").run()
    at.multiselect(key="dash_candidates").set_value(["fusion"]).run()
    assert not at.exception
    return at


def _table(at, column: str):
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_planner_shows_queries_judgments_and_hours_for_the_demo(open_app, workspace):
    at = _compare(open_app("dashboard"))
    shown = {m.label: m.value for m in at.metric}
    db = store.open_workspace(workspace)
    plan = judging_budget.plan(db, Controls("bm25"), "R@10", 0.05, candidate="fusion",
                               pool_depth=10)
    db.close()
    assert shown["Queries needed"] == f"{plan.queries_needed:,}"
    assert shown["Judgments"] == f"{plan.judgments_needed:,}"
    assert shown["Hours"] == f"{plan.hours:,.1f}"
    assert shown["Machine judge calls"] == f"{plan.machine_calls:,}"
    assert plan.queries_needed > 46 and plan.hours > 0
    captions = " ".join(c.value for c in at.caption)
    assert "46" in captions and "default 30 s" in captions
    tradeoff = _table(at, "queries_needed")
    assert list(tradeoff["depth"]) == list(plan.tradeoff["depth"])
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    curve = next(c for c in charts if any(t.get("name") == "you are here" for t in c["data"]))
    here = next(t for t in curve["data"] if t.get("name") == "you are here")
    assert here["x"] == [46]


def test_deciding_pairs_go_to_the_queue_and_a_judged_pair_narrows_the_interval(open_app,
                                                                               workspace):
    at = open_app("dashboard")
    at.session_state["annotator"] = "carol"
    at = _compare(at, extra=["P@k"])
    at.selectbox(key="dash_plan_measure").set_value("P@10").run()
    before = _table(at, "label_low").iloc[0]
    pairs = _table(at, "leverage")
    assert before["in_play"] == len(pairs) or len(pairs) == 50
    at.number_input(key="dash_decide_batch").set_value(3).run()
    at.button(key="dash_decide_send").click().run()
    assert not at.exception
    assert any("Sent the most decisive pairs" in s.value for s in at.success)
    db = store.open_workspace(workspace)
    queued = set(db.conn.execute("SELECT query_id, chunk_id FROM label_queue "
                                 "WHERE reason = 'decide'").fetchall())
    decisive = deciding_pairs.decisive(pairs).head(3)
    assert queued == set(zip(decisive["query_id"], decisive["chunk_id"], strict=True))
    assert db.conn.execute("SELECT count(*) FROM pair_sources WHERE source = 'queue'"
                           ).fetchone()[0] == 3

    at.switch_page("pages/label.py").run()  # an annotator judges the pair the queue serves
    served = tuple(at.session_state["label_current"])
    assert served in queued
    at.button(key="label_grade_2").click().run()
    assert not at.exception
    assert db.conn.execute("SELECT grade FROM judgments WHERE query_id = ? AND chunk_id = ?",
                           served).fetchone()[0] == 2
    db.close()

    at.switch_page("pages/dashboard.py").run()
    at = _compare(at, extra=["P@k"])
    at.selectbox(key="dash_plan_measure").set_value("P@10").run()
    after = _table(at, "label_low").iloc[0]
    assert after["in_play"] == before["in_play"] - 1
    assert after["judgments"] == before["judgments"] + 1
    assert after["width"] < before["width"]  # the comparison's interval narrowed
    assert after["label_high"] - after["label_low"] < before["label_high"] - before["label_low"]
    history = _table(at, "ci_high")
    assert history["judgments"].iloc[-1] == after["judgments"]
