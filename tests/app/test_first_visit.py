"""A first visit to the demo (issue 33): the Label page leads to a card, the Overview names every
page."""

from __future__ import annotations

from pathlib import Path

import pytest

import app
from labeling.judging import queue
from labeling.workspace import store


@pytest.fixture
def workspace(make_workspace, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo as the app builds it (its runs' pool in the queue), set as SCORECARD_WORKSPACE."""
    path = make_workspace.path("demo-with-queue")
    monkeypatch.setenv("SCORECARD_WORKSPACE", str(path))
    return path


def test_label_asks_for_a_name_on_the_page_then_shows_a_card(open_app, workspace):
    at = open_app("label")
    assert not at.exception
    at.text_input(key="label_name").input("carol").run()
    assert not at.exception
    assert any("Judging as **carol**" in c.value for c in at.caption)
    pair = tuple(at.session_state["label_current"])
    db = store.open_workspace(workspace)
    assert queue.card_for(db, *pair).query_id == pair[0]  # a real card from the demo's queue
    assert at.button(key="label_grade_2") is not None
    at.button(key="label_grade_2").click().run()
    assert queue.current_grade(db, *pair, "carol") == 2


def test_label_says_who_is_judging(open_app):
    at = open_app()
    at.session_state["annotator"] = "dana"
    at.switch_page("pages/label.py").run()
    assert any("Judging as **dana**" in c.value for c in at.caption)
    assert not [t for t in at.text_input if t.key == "label_name"]
    assert at.session_state["label_current"] is not None


def test_overview_names_every_page(open_app):
    at = open_app()
    listed = " ".join(m.value for m in at.markdown)
    for title, _ in app.KNOWN_PAGES.values():
        if title != "Overview":
            assert f"- **{title}**:" in listed, title


def _widget_keys(block) -> dict[str, str]:
    """key -> help of the input widgets inside ``block``."""
    found = {}
    for kind in ("selectbox", "multiselect", "text_input", "number_input", "radio", "toggle"):
        for widget in getattr(block, kind):
            found[widget.key] = widget.proto.help
    return found


def test_dashboard_shows_the_first_controls_and_folds_the_scoring_rules(open_app):
    at = open_app("dashboard")
    assert not at.exception
    rules = next(e for e in at.expander if e.label == "Scoring rules")
    folded = _widget_keys(rules)
    in_view = {"dash_run", "dash_k", "dash_segment", "dash_split"}
    assert in_view <= set(_widget_keys(at.main))
    assert {"dash_extra", "dash_custom", "dash_unit", "dash_rule", "dash_relevance",
            "dash_policy", "dash_skip_missing", "dash_label_source"} <= set(folded)
    assert not in_view & set(folded)
    for key, text in folded.items():  # every term of the rules is explained in plain words
        assert text and len(text) > 30, key
    line = next(c for c in at.caption if "Label snapshot" in c.value)
    assert "\n" not in line.value
    assert [link.proto.page for link in at.get("page_link")] == ["guide"]
