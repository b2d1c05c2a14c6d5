"""Guide page: the chooser sets the dashboard's defaults; the quiz answers in place."""

from __future__ import annotations

from tests.markup import shown


def test_chooser_sets_dashboard_defaults(open_app) -> None:
    at = open_app("guide")
    assert not at.exception
    at.radio(key="guide_failure").set_value("order").run()
    assert at.metric[0].value == "nDCG@5"  # the demo workspace has a graded scale
    at.radio(key="guide_failure").set_value("miss")
    at.number_input(key="guide_k").set_value(8).run()
    assert at.metric[0].value == "R@8"
    at.button(key="guide_set_defaults").click().run()
    assert at.session_state["dashboard_default_measures"] == ["R@8", "Success@8", "RR@8"]
    assert "R@8" in shown(at.success[0].value)
    at.switch_page("pages/dashboard.py").run()  # the Dashboard scores the chosen measures
    assert not at.exception
    card = at.dataframe[0].value
    assert list(dict.fromkeys(card["measure"])) == ["R@8", "Success@8", "RR@8"]


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
