"""Guide page: the chooser sets the dashboard's defaults; the quiz answers in place."""

from __future__ import annotations

from labeling.evaluation.inputs import score_defaults
from labeling.workspace import store
from tests.markup import shown


def test_chooser_sets_dashboard_defaults(open_app, workspace) -> None:
    at = open_app("guide")
    assert not at.exception
    at.radio(key="guide_failure").set_value("order").run()
    assert at.metric[0].value == "nDCG@5"  # the demo workspace has a graded scale
    at.radio(key="guide_failure").set_value("miss")
    at.number_input(key="guide_k").set_value(8).run()
    assert at.metric[0].value == "R@8"
    at.session_state["annotator"] = "ada"
    at.button(key="guide_set_defaults").click().run()
    assert "R@8" in shown(at.success[0].value)
    stored = score_defaults.score_defaults(store.open_workspace(workspace))
    assert (stored.measures, stored.k, stored.set_by) == (("R@k", "Success@k", "RR@k"), 8, "ada")
    assert stored.set_at is not None
    assert any("set by ada just now" in c.value for c in at.caption)


def test_stored_defaults_hold_in_every_new_session(open_app, workspace) -> None:
    """Defaults stored from the guide: a new session's Dashboard starts at their k with their
    measures, and the measures follow the k control."""
    first = open_app("guide")
    first.radio(key="guide_failure").set_value("miss")
    first.number_input(key="guide_k").set_value(8).run()
    first.button(key="guide_set_defaults").click().run()
    assert not first.exception
    for _ in range(2):  # two new sessions, after the one that set them
        at = open_app("dashboard")
        assert not at.exception
        assert at.number_input(key="dash_k").value == 8
        assert list(dict.fromkeys(at.dataframe[0].value["measure"])) == [
            "R@8", "Success@8", "RR@8"]
    at.number_input(key="dash_k").set_value(5).run()
    assert list(dict.fromkeys(at.dataframe[0].value["measure"])) == ["R@5", "Success@5", "RR@5"]
    guide = open_app("guide")
    assert guide.number_input(key="guide_k").value == 8


def test_order_without_graded_labels_leads_with_map(open_app) -> None:
    at = open_app("guide")
    at.radio(key="guide_failure").set_value("order")
    at.toggle(key="guide_graded").set_value(False).run()
    assert at.metric[0].value == "AP@5"


def test_knowledge_check(open_app) -> None:
    at = open_app("guide")
    assert not at.success and not at.error
    at.radio(key="guide_q_swap").set_value(0).run()
    assert "order-insensitive" in at.error[0].value
    at.radio(key="guide_q_swap").set_value(1).run()
    at.radio(key="guide_q_factoid").set_value(0).run()
    assert [s.value.split(".")[0] for s in at.success] == ["Correct", "Correct"]
    assert "first correct hit" in at.success[1].value


def test_measure_table_and_formulas(open_app) -> None:
    at = open_app("guide")
    assert not at.dataframe  # a static table wraps long cells instead of cutting them
    table = at.table[0].value
    assert table.set_index("example")["order sensitive"].to_dict() == {
        "P@5": "no", "R@5": "no", "Success@5": "no", "RR": "yes", "AP@10": "yes",
        "nDCG@10": "yes",
    }
    assert table["definition"].str.len().max() > 60  # whole, not cut
    assert len(at.latex) == 6
    assert "faithfulness" in at.info[0].value
