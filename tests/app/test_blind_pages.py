"""Blind means blind, page by page: signed in as an annotator, bob sees other people's grades
only of pairs he has judged himself, in the Data page's downloads, the dashboard drill-down,
the Label page's history and the Agreement page; the admin sees them all.

The demo workspace has judgments by alice and bob; carol's votes are added so that two other
people disagree on pairs bob has not judged.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pandas as pd
import pytest

from labeling.evaluation.inputs import result_cache
from labeling.evaluation.views import drilldown
from labeling.files.uploads import safe_filename
from labeling.workspace import judgments, roles, store
from pages import _auth
from tests.tables import table_with
from tests.workspaces import add_rows

ACCOUNTS = {"ada": "admin", "bob": "annotator"}


@pytest.fixture(autouse=True)
def _cheap_hashes(fast_hashes) -> None:
    """Accounts are made by the dozen here: cheap argon2 parameters (tests/conftest.py)."""


@pytest.fixture(autouse=True)
def _fresh_dashboard_cache():
    result_cache.clear_cache()
    yield
    result_cache.clear_cache()


def graded_by(db, name: str) -> set[tuple[str, str]]:
    return {(h["query_id"], h["chunk_id"]) for h in judgments.judgment_history(db)
            if h["annotator"] == name and h["grade"] is not None}


@pytest.fixture
def team(workspace: Path) -> dict:
    """Accounts, carol's disagreeing votes, and pairs to look at (alice's, not bob's)."""
    db = store.open_workspace(workspace)
    add_rows(db, accounts=ACCOUNTS)
    with roles.acting_as(None):
        alice_only = sorted(graded_by(db, "alice") - graded_by(db, "bob"))
        for pair in alice_only[:3]:
            alice = queue_grade(db, pair, "alice")
            judgments.add_judgment(db, *pair, 0 if alice else 3, "carol")
    retrieved = db.conn.execute(
        "SELECT r.name, x.query_id, x.chunk_id FROM run_results x JOIN runs r ON r.id = x.run_id"
    ).fetchall()
    run, query_id, chunk_id = sorted(r for r in retrieved if tuple(r[1:]) in set(alice_only))[0]
    facts = {"alice_only": alice_only, "carol_pair": alice_only[0], "run": run,
             "query_id": query_id, "chunk_id": chunk_id, "bob": graded_by(db, "bob")}
    db.close()
    return facts


def queue_grade(db, pair, name: str) -> int:
    return [h["grade"] for h in judgments.judgment_history(db, *pair) if h["annotator"] == name][-1]


def signed_in(open_app, name: str, page: str):
    at = open_app()
    at.text_input(key=_auth.NAME_KEY).input(name)
    at.text_input(key=_auth.PASSWORD_KEY).input(f"{name}-password")
    at.button(key="sign_in_submit").click().run()
    assert at.session_state[_auth.USER_KEY] == name
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception
    return at


def csv_rows(downloads, file_name: str) -> list[dict]:
    data = [content for name, content in downloads if name == file_name][-1]
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"))))


def test_data_page_downloads_hold_only_pairs_the_annotator_judged(team, open_app, downloads):
    signed_in(open_app, "bob", "data")
    rows = csv_rows(downloads, "judgments.csv")
    others = {(r["query_id"], r["chunk_id"]) for r in rows if r["annotator"] != "bob"}
    assert others and others <= team["bob"]  # alice's grades of shared pairs, nothing else
    assert {r["annotator"] for r in rows} == {"alice", "bob"}  # carol only judged others' pairs
    qrels = [content for name, content in downloads if name == "qrels.txt"][-1].decode()
    assert {tuple(line.split()[0:3:2]) for line in qrels.splitlines()} <= team["bob"]

    downloads.clear()
    signed_in(open_app, "ada", "data")
    rows = csv_rows(downloads, "judgments.csv")
    assert {(r["query_id"], r["chunk_id"]) for r in rows if r["annotator"] == "alice"} >= set(
        team["alice_only"])
    assert "carol" in {r["annotator"] for r in rows}


def _drill_down(open_app, name: str, team: dict, downloads) -> pd.DataFrame:
    at = signed_in(open_app, name, "dashboard")
    at.session_state["dash_tab"] = "Worst queries"
    at.selectbox(key="dash_run").set_value(team["run"]).run()
    at.selectbox(key="dash_drill_query").set_value(team["query_id"]).run()
    assert not at.exception
    ranked = next(d.value for d in at.dataframe if "grade_name" in d.value.columns
                  and "score" in d.value.columns)
    name = f"{safe_filename('ranked-' + team['query_id'])}.csv"
    csv_file = [c for n, c in downloads if n == name][-1]
    assert pd.read_csv(io.BytesIO(csv_file))["grade_name"].tolist() == ranked[
        "grade_name"].tolist()
    return ranked.set_index("chunk_id")


def test_dashboard_drill_down_hides_grades_of_pairs_the_annotator_has_not_judged(
    team, open_app, downloads
):
    chunk = team["chunk_id"]
    bob = _drill_down(open_app, "bob", team, downloads)
    assert bob.loc[chunk, "grade_name"] == drilldown.HIDDEN and pd.isna(bob.loc[chunk, "grade"])
    ada = _drill_down(open_app, "ada", team, downloads)
    assert ada.loc[chunk, "grade_name"] not in (drilldown.HIDDEN, "unjudged")
    for shown in bob.index[bob["grade_name"] != drilldown.HIDDEN]:  # the rest as the admin
        assert bob.loc[shown, "grade_name"] == ada.loc[shown, "grade_name"]
        if bob.loc[shown, "grade_name"] != "unjudged":
            assert (team["query_id"], shown) in team["bob"]


def test_label_history_and_agreement_follow_the_same_rule(team, open_app):
    pair = team["carol_pair"]
    for name, sees in (("bob", False), ("ada", True)):
        at = open_app()
        at.text_input(key=_auth.NAME_KEY).input(name)
        at.text_input(key=_auth.PASSWORD_KEY).input(f"{name}-password")
        at.button(key="sign_in_submit").click().run()
        at.session_state["label_current"] = pair  # the card shows a pair bob has not judged
        at.switch_page("pages/label.py").run()
        history = table_with(at, "annotator")
        assert ({"alice", "carol"} <= set(history["annotator"])) is sees, name
        if not sees:
            assert history.empty
        at.switch_page("pages/agreement.py").run()
        split = next(d.value for d in at.dataframe if "votes" in d.value.columns)
        listed = set(zip(split["query_id"], split["chunk_id"], strict=True))
        assert (pair in listed) is sees, name
        if not sees:
            assert listed <= team["bob"]
