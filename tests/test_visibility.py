"""The blind rule (``labeling.judging.visibility``) and the exports and drill-down that follow it,
on a
copy of the demo workspace (alice and bob judged it; 195 pairs by both) with accounts."""

from __future__ import annotations

import csv

import pandas as pd
import pytest

from labeling.evaluation.inputs import result_cache
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.views import drilldown
from labeling.files import exporters as exports
from labeling.judging import queue, visibility
from labeling.workspace import accounts as account_admin
from labeling.workspace import judgments, roles


@pytest.fixture(autouse=True)
def _cheap_hashes(fast_hashes) -> None:
    """Accounts are made by the dozen here: cheap argon2 parameters (tests/conftest.py)."""


@pytest.fixture
def db(make_workspace):
    return make_workspace("demo")


@pytest.fixture
def accounts(make_workspace):
    """The demo with accounts (passwords ``<name>-password``)."""
    return make_workspace("demo", accounts={"ada": "admin", "bob": "annotator", "vic": "viewer"})


def pairs_judged_by(db, name: str) -> set[tuple[str, str]]:
    return {(h["query_id"], h["chunk_id"]) for h in judgments.judgment_history(db)
            if h["annotator"] == name and h["grade"] is not None}


def only_alice(db) -> tuple[str, str]:
    """A pair alice graded and bob did not."""
    return sorted(pairs_judged_by(db, "alice") - pairs_judged_by(db, "bob"))[0]


def test_without_accounts_and_for_an_admin_everything_is_seen(db):
    assert visibility.sight(db, "bob", None).sees_all  # no accounts: the one local user
    assert visibility.sight(db, "", None).sees_all
    with roles.acting_as(None):
        account_admin.add_user(db, "ada", "admin", "ada-password")
    assert visibility.sight(db, "ada", "admin").sees_all
    assert not visibility.sight(db, "bob", "annotator").sees_all


def test_an_annotator_sees_others_grades_only_of_pairs_they_judged(accounts):
    db = accounts
    sight = visibility.sight(db, "bob", "annotator")
    assert sight.pairs == pairs_judged_by(db, "bob")
    history = judgments.judgment_history(db)
    shown = visibility.visible_judgments(history, sight)
    # the oracle: bob's own rows, and alice's rows of pairs bob graded
    graded_by_bob = pairs_judged_by(db, "bob")
    expected = [h for h in history if h["annotator"] == "bob"
                or (h["query_id"], h["chunk_id"]) in graded_by_bob]
    assert shown == expected
    assert any(h["annotator"] == "alice" for h in shown)  # shared pairs: alice's grades shown
    assert len(shown) < len(history)
    pair = only_alice(db)
    assert not sight.sees_pair(*pair) and not sight.sees(*pair, "alice")
    assert sight.sees(*pair, "bob")  # one's own judgments are always one's own


def test_a_sight_of_one_query_knows_that_query_only(accounts):
    whole = visibility.sight(accounts, "bob", "annotator")
    query_id = sorted(whole.pairs)[0][0]
    one = visibility.sight(accounts, "bob", "annotator", query_id=query_id)
    assert one.pairs == {p for p in whole.pairs if p[0] == query_id} and one.pairs


def test_a_viewer_sees_no_one_elses_grades(accounts):
    sight = visibility.sight(accounts, "vic", "viewer")
    assert sight.pairs == frozenset()
    assert visibility.visible_judgments(judgments.judgment_history(accounts), sight) == []


def test_cant_judge_counts_as_judged_and_undo_does_not(accounts):
    db = accounts
    first, second = sorted(pairs_judged_by(db, "alice") - pairs_judged_by(db, "bob"))[:2]
    with roles.acting_as("bob"):
        queue.cant_judge(db, *first, "bob", "needs legal knowledge")
        judgment = queue.save_judgment(db, *second, 2, "bob")
        assert visibility.sight(db, "bob", "annotator").sees_pair(*second)
        queue.undo(db, judgment, "bob")  # withdrawn: bob has not judged it any more
    sight = visibility.sight(db, "bob", "annotator")
    assert sight.sees_pair(*first)
    assert not sight.sees_pair(*second)


def test_a_pair_back_in_their_queue_is_hidden_until_they_judge_it_again(accounts):
    db = accounts
    pair = sorted(pairs_judged_by(db, "alice") & pairs_judged_by(db, "bob"))[0]
    assert visibility.sight(db, "bob", "annotator").sees_pair(*pair)
    with roles.acting_as(None):
        queue.rejudge(db, query_id=pair[0])
    assert not visibility.sight(db, "bob", "annotator").sees_pair(*pair)
    with roles.acting_as("bob"):
        queue.save_judgment(db, *pair, 1, "bob")
    assert visibility.sight(db, "bob", "annotator").sees_pair(*pair)


def test_exports_hold_only_what_the_viewer_may_see(accounts, tmp_path):
    db = accounts
    sight = visibility.sight(db, "bob", "annotator")
    path = tmp_path / "judgments.csv"
    rows_written = exports.export_judgments(db, path, sight=sight)
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == rows_written
    assert {(r["query_id"], r["chunk_id"]) for r in rows if r["annotator"] != "bob"} <= sight.pairs
    assert len(rows) < exports.export_judgments(db, tmp_path / "all.csv")  # the owner: all
    qrels_path = tmp_path / "qrels.txt"
    exports.export_qrels(db, qrels_path, sight=sight)
    exported = {tuple(line.split()[0:3:2]) for line in qrels_path.read_text().splitlines()}
    assert exported == sight.pairs


def test_drill_down_hides_grades_the_viewer_may_not_see(accounts):
    db = accounts
    result_cache.clear_cache()
    sight = visibility.sight(db, "bob", "annotator")
    retrieved = db.conn.execute(
        "SELECT r.name, x.query_id, x.chunk_id FROM run_results x JOIN runs r ON r.id = x.run_id"
    ).fetchall()
    only = pairs_judged_by(db, "alice") - pairs_judged_by(db, "bob")
    run, query_id, _ = sorted(row for row in retrieved if tuple(row[1:]) in only)[0]
    owner_ranked, owner_missed = drilldown.drill_down(db, Controls(run), query_id)
    ranked, missed = drilldown.drill_down(db, Controls(run), query_id, sight=sight)
    for (_, mine), (_, full) in zip(ranked.iterrows(), owner_ranked.iterrows(), strict=True):
        if sight.sees_pair(query_id, mine["chunk_id"]):
            assert mine["grade_name"] == full["grade_name"]
        elif full["grade_name"] != "unjudged":
            assert mine["grade_name"] == drilldown.HIDDEN and pd.isna(mine["grade"])
    assert set(missed["chunk_id"]) == {
        c for c in owner_missed["chunk_id"] if sight.sees_pair(query_id, c)}
    assert (ranked["grade_name"] == drilldown.HIDDEN).any()  # alice's grade of a result
    docs, _ = drilldown.drill_down_documents(db, Controls(run), query_id,
                                             chunk_lists=(ranked, missed), sight=sight)
    assert docs.loc[docs["grade_name"] == drilldown.HIDDEN, "grade"].isna().all()
