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
