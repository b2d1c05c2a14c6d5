"""Queries page: add a query by hand, search, assign a seeded split."""

from __future__ import annotations

from pathlib import Path

from labeling.workspace import query_store, store
from tests.markup import shown


def test_add_query_with_segment(workspace: Path, open_app) -> None:
    at = open_app("queries")
    at.text_area(key="new_query_text").input("Who approves a sabbatical?")
    at.selectbox(key="new_query_source").set_value("synthetic")
    at.text_input(key="new_attr_topic").input("hr")
    at.button(key="add_query").click().run()

    assert not at.exception and not at.error
    assert shown(at.success[0].value) == "Added query u001."
    assert at.text_area(key="new_query_text").value == ""
    table = query_store.queries_table(store.open_workspace(workspace), "sabbatical")
    assert table[["id", "source", "topic"]].values.tolist() == [["u001", "synthetic", "hr"]]


def test_add_empty_query_is_refused(workspace: Path, open_app) -> None:
    at = open_app("queries")
    at.button(key="add_query").click().run()
    assert "empty" in at.error[0].value


def test_search_filters_the_table(workspace: Path, open_app) -> None:
    at = open_app("queries")
    at.text_input(key="query_search").input("YUBIKEY").run()
    assert at.data_editor[0].value["id"].tolist() == ["q23"]


def test_assign_seeded_split(workspace: Path, open_app) -> None:
    at = open_app("queries")
    at.number_input(key="split_share").set_value(0.25)
    at.number_input(key="split_seed").set_value(7)
    at.selectbox(key="split_stratify").set_value("topic")
    at.button(key="assign_split").click().run()

    assert not at.exception and not at.error
    db = store.open_workspace(workspace)
    counts = query_store.split_counts(db)
    assert counts["none"] == 0
    assert shown(at.success[0].value) == f"Split assigned: {counts['dev']} queries in dev, " \
        f"{counts['test']} in test."
    first = query_store.queries_table(db)[["id", "split"]].values.tolist()
    at.button(key="assign_split").click().run()  # same share and seed: same split
    assert query_store.queries_table(db)[["id", "split"]].values.tolist() == first
