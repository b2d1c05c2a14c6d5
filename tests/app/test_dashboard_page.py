"""The Dashboard page in AppTest: segments, comparison, drill-down judging, tags, lock."""

from __future__ import annotations

import pytest

from labeling.evaluation.inputs import result_cache, score_controls
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.views import drilldown
from labeling.workspace import store
from tests.tables import tables


@pytest.fixture(autouse=True)
def _fresh_dashboard_cache():
    result_cache.clear_cache()
    yield
    result_cache.clear_cache()


def _tab(at, name: str):
    at.session_state["dash_tab"] = name  # the tabs are lazy: only the open one runs
    return at.run()


def _card(at):
    frame = at.dataframe[0].value
    assert list(frame.columns) == ["segment", "measure", "mean", "ci_low", "ci_high", "n"]
    return frame


def test_page_renders_scorecard_and_switches_segment(open_app):
    at = open_app("dashboard")
    assert not at.exception
    card = _card(at)
    assert set(card["segment"]) == {score_controls.OVERALL}
    assert set(card["measure"]) == {"R@10", "RR"}
    # One line on the page, each rule's sentence in its tooltip, and a link to the guide.
    line = next(c for c in at.caption if "recall against the labeled set" in c.value)
    assert "Recall is measured against the labeled set" in line.proto.help
    assert any(link.proto.page == "guide" for link in at.get("page_link"))
    at.selectbox(key="dash_segment").set_value("topic").run()
    card = _card(at)
    assert set(card["segment"]) == {score_controls.OVERALL, "hr", "it", "product", "security"}
    at.selectbox(key="dash_segment").set_value("source").run()
    assert set(_card(at)["segment"]) == {score_controls.OVERALL, "real", "synthetic"}
    at.number_input(key="dash_k").set_value(5).run()
    assert set(_card(at)["measure"]) == {"R@5", "RR"}
    at.selectbox(key="dash_split").set_value("test").run()
    assert _card(at).loc[0, "n"] == 27
    assert not at.exception


def test_comparison_reports_significance(open_app):
    at = _tab(open_app("dashboard"), "Compare")
    at.selectbox(key="dash_baseline").set_value("bm25").run()
    at.multiselect(key="dash_candidates").set_value(["bm25-title", "fusion"]).run()
    table = next(d.value for d in at.dataframe if "p_holm" in d.value.columns)
    assert set(table["candidate"]) == {"bm25-title", "fusion"}
    messages = [m.value for m in [*at.info, *at.success]]
    assert any("not significant" in m for m in messages)
    assert any("would need" in m for m in messages)


def test_drill_down_judging_updates_the_metric(open_app):
    at = open_app("dashboard")
    at.session_state["annotator"] = "carol"
    at.multiselect(key="dash_extra").set_value(["P@k"]).run()
    before = _card(at).set_index("measure").loc["P@10", "mean"]
    _tab(at, "Worst queries")
    at.selectbox(key="dash_drill_query").set_value("q01").run()
    ranked = next(d.value for d in at.dataframe if "snippet" in d.value.columns)
    top = ranked.loc[(ranked["rank"] <= 10) & ranked["grade"].isna(), "chunk_id"]
    assert len(top)
    at.selectbox(key="dash_judge_chunk:q01").set_value(top.iloc[0])
    at.radio(key="dash_judge_grade").set_value(3)
    at.button(key="dash_judge_save").click().run()
    assert not at.exception and not at.error
    assert any("Judged" in s.value for s in at.success)
    _tab(at, "Scorecard")
    after = _card(at).set_index("measure").loc["P@10", "mean"]
    assert after == pytest.approx(before + 0.1 / 46)


def test_document_unit_drills_down_to_documents(open_app, workspace):
    at = open_app("dashboard")
    at.radio(key="dash_unit").set_value("document").run()
    _tab(at, "Worst queries")
    at.selectbox(key="dash_drill_query").set_value("q01").run()
    assert not at.exception
    docs = next(d.value for d in at.dataframe if "best_chunk_id" in d.value.columns)
    expected, _ = drilldown.drill_down_documents(store.open_workspace(workspace),
                                                 Controls("bm25", unit="document"), "q01")
    assert docs["doc_id"].tolist() == expected["doc_id"].tolist()
    assert docs["doc_id"].is_unique
    assert any("Relevant documents the run missed" in h.value for h in at.subheader)
    # The chunks stay at hand (judging is per chunk).
    chunks = next(d.value for d in at.dataframe if "chunk_id" in d.value.columns)
    assert len(chunks) >= len(docs)


def test_consensus_rule_changes_the_labels_used(open_app):
    at = open_app("dashboard")
    before = _card(at).set_index("measure").loc["R@10", "mean"]
    at.selectbox(key="dash_rule").set_value("strict").run()
    assert not at.exception
    assert any("Consensus rule strict: latest adjudicated grade" in c.proto.help
               for c in at.caption)
    assert _card(at).set_index("measure").loc["R@10", "mean"] != before


def test_failure_tag_and_lock(open_app):
    at = open_app("dashboard")
    at.session_state["annotator"] = "carol"
    _tab(at, "Worst queries")
    at.multiselect(key="dash_tags").set_value(["acronym"])
    at.button(key="dash_tag_save").click().run()
    assert not at.error
    assert any("tag" in t.columns for t in tables(at))  # the query's reviews, with times
    _tab(at, "Failure tags")
    assert at.get("plotly_chart")
    _tab(at, "History")
    at.button(key="dash_lock").click().run()
    assert not at.error
    assert at.button(key="dash_unlock")
    assert any("locked" in c.value for c in at.caption)
