"""Issue 26 on the dashboard in AppTest: the curve follows the picked run (case 9), the judge
form's chunk picker belongs to the open query (case 12) and "Retrieved badly" lists no query
that lost nothing (case 8)."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from labeling.evaluation.inputs import result_cache
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import scoring
from labeling.judging import consensus
from labeling.workspace import store
from tests.app.conftest import APP, TIMEOUT


@pytest.fixture(autouse=True)
def _fresh_dashboard_cache():
    result_cache.clear_cache()
    yield
    result_cache.clear_cache()


def dashboard(tab: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.session_state["annotator"] = "carol"
    if tab:
        at.session_state["dash_tab"] = tab
    at.switch_page("pages/dashboard.py").run()
    assert not at.exception
    return at


def widget(widgets, prefix: str):
    """The one widget whose key starts with ``prefix``."""
    found = [w for w in widgets if w.key and w.key.startswith(prefix)]
    assert len(found) == 1, [w.key for w in found]
    return found[0]


def unjudged_chunks(at) -> list[str]:
    """The unjudged chunks of the open query's ranked list, in rank order."""
    ranked = next(d.value for d in at.dataframe if "snippet" in d.value.columns)
    return [str(c) for c in ranked.loc[ranked["grade"].isna(), "chunk_id"]]


def curve_runs(at) -> set[str]:
    spec = json.loads(next(c for c in at.get("plotly_chart")
                           if "as k grows" in c.proto.spec).proto.spec)
    return {trace["legendgroup"].split(",")[0] for trace in spec["data"]}


def test_the_curve_shows_the_picked_run_only(workspace) -> None:
    at = dashboard()
    assert curve_runs(at) == {"bm25"}
    at.selectbox(key="dash_run").set_value("fusion").run()
    assert curve_runs(at) == {"fusion"}  # bm25's curve is not kept
    widget(at.multiselect, "dash_curve_runs").set_value(["fusion", "bm25-title"]).run()
    assert curve_runs(at) == {"fusion", "bm25-title"}  # plus what the user chose


def test_switching_the_open_query_resets_the_chunk_picker(workspace) -> None:
    at = dashboard("Worst queries")
    queries = at.selectbox(key="dash_drill_query").options
    first, second = queries[0], next(q for q in queries[1:])
    at.selectbox(key="dash_drill_query").set_value(first).run()
    stale = unjudged_chunks(at)[-1]  # a chunk further down the first query's list
    widget(at.selectbox, "dash_judge_chunk").set_value(stale).run()
    assert widget(at.selectbox, "dash_judge_chunk").value == stale
    at.selectbox(key="dash_drill_query").set_value(second).run()
    picker = widget(at.selectbox, "dash_judge_chunk")
    unjudged = unjudged_chunks(at)
    assert picker.value == unjudged[0] and picker.value != stale
    widget(at.radio, "dash_judge_grade").set_value(1)
    at.button(key="dash_judge_save").click().run()
    assert not at.exception and not at.error
    assert any("Judged" in s.value for s in at.success)
    db = store.open_workspace(workspace, create=False)
    try:
        saved = db.conn.execute("SELECT grade FROM judgments WHERE annotator = 'carol' AND"
                                " query_id = ? AND chunk_id = ?", [second, unjudged[0]]).fetchall()
    finally:
        db.close()
    assert saved == [(1,)]


def test_retrieved_badly_lists_no_query_that_lost_nothing(workspace) -> None:
    db = store.open_workspace(workspace, create=False)
    try:
        values = scoring.per_query(db, Controls("bm25", ("R@10",)))
    finally:
        db.close()
    perfect = set(values.index[values["R@10"] >= 1.0])
    assert perfect  # the demo has queries bm25 misses nothing for
    at = dashboard("Worst queries")
    at.selectbox(key="dash_worst_measure").set_value("R@10").run()
    worst = next(d.value for d in at.dataframe
                 if {"query_id", "value"} <= set(d.value.columns))
    assert len(worst) and not perfect & set(worst["query_id"])
    assert (worst["value"] < 1.0).all()


def test_the_consensus_control_says_when_default_is_lenient(workspace) -> None:
    """Case 10: on the demo (two annotators, every disagreement one grade apart) default gives
    exactly the lenient grades; that is the rule, and the page says so with its counts."""
    db = store.open_workspace(workspace, create=False)
    try:
        grades = {rule: consensus.consensus_qrels(db, rule)["relevance"].to_numpy()
                  for rule in ("default", "lenient", "strict")}
    finally:
        db.close()
    assert (grades["default"] == grades["lenient"]).all()
    apart = int((grades["default"] != grades["strict"]).sum())
    assert apart > 0
    at = dashboard()
    assert not any("otherwise than lenient" in c.value for c in at.caption)  # counted if opened
    at.session_state["dash_rule_note_open"] = True
    at.run()
    note = next(c.value.replace("\\", "") for c in at.caption
                if "otherwise than lenient" in c.value)
    assert (f"Of {len(grades['default'])} labelled pairs, default grades 0 otherwise than "
            f"lenient and {apart} otherwise than strict.") in note
    assert "Default gives exactly the lenient grades here: that is the rule." in note
    assert "one grade apart" in at.selectbox(key="dash_rule").help
