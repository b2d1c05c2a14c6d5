"""The tests' workspace factory (tests/conftest.py, tests/workspaces.py): the rows a test states
are what the workspace holds, every workspace is a file of its own, the templates stay as built."""

from __future__ import annotations

import json

import pytest

from labeling.workspace import accounts, contents, grading, judgments, roles, store


def test_an_empty_workspace_per_call_on_the_scale_asked_for(make_workspace, tmp_path):
    first, second = make_workspace(), make_workspace(scale="binary")
    assert contents.counts(first) == dict.fromkeys(contents.counts(first), 0)
    assert [g for g, *_ in grading.get_scale(first)] == [0, 1, 2, 3]
    assert [g for g, *_ in grading.get_scale(second)] == [0, 1]
    assert sorted(p.name for p in tmp_path.glob("*.db")) == ["scorecard-2.db", "scorecard.db"]
    make_workspace.path(chunks=[{"id": "c1", "text": "only here"}])
    assert contents.counts(make_workspace())["chunks"] == 0  # the template did not change


def test_rows_become_chunks_queries_runs_and_placeholders(make_workspace):
    db = make_workspace(
        chunks=[{"id": "c1", "text": "one", "title": "T", "doc_id": "d1", "lang": "en"},
                {"id": "c2", "text": "two", "doc_id": None}],
        queries=[{"id": "q1", "text": "why?", "split": "dev", "source": "real", "topic": "hr"}],
        runs={"ranked": [("q1", "c1", 2.5, 1), ("q1", "c2", 1.5, 2)],
              "scored": {"results": [("q1", "c2", 9.0), ("q9", "c9", 1.0)], "notes": "n"}},
    )
    chunks = {r["id"]: r for r in db.query("SELECT * FROM chunks")}
    assert (chunks["c1"]["title"], chunks["c1"]["doc_id"]) == ("T", "d1")
    assert json.loads(chunks["c1"]["metadata"]) == {"lang": "en"}
    assert chunks["c2"]["doc_id"] is None and chunks["c9"]["placeholder"] == 1
    query = db["queries"].get("q1")
    assert (query["split"], query["source"], query["placeholder"]) == ("dev", "real", 0)
    assert contents.query_segments(db, "topic") == {"q1": "hr"}
    assert db["queries"].get("q9")["placeholder"] == 1
    assert contents.run_names(db) == ["ranked", "scored"]
    assert contents.get_run(db, "scored")["notes"] == "n"
    results = db.execute(
        "SELECT r.name, x.query_id, x.chunk_id, x.rank, x.score FROM run_results x"
        " JOIN runs r ON r.id = x.run_id ORDER BY r.id, x.score DESC"
    ).fetchall()
    assert results == [("ranked", "q1", "c1", 1, 2.5), ("ranked", "q1", "c2", 2, 1.5),
                       ("scored", "q1", "c2", None, 9.0), ("scored", "q9", "c9", None, 1.0)]


def test_judgments_in_order_with_their_options_and_accounts(make_workspace, fast_hashes):
    db = make_workspace(
        chunks=[{"id": "c1", "text": "one"}],
        queries=[{"id": "q1", "text": "why?"}],
        judgments=[("q1", "c1", 1, "ann"), ("q1", "c1", 3, "ann", {"note": "sure now"}),
                   ("q1", "c1", None, "bob", {"flags": {"cant_judge": True}})],
        accounts={"ada": "admin", "vic": ("viewer", "vic-secret-1")},
    )
    history = judgments.judgment_history(db, "q1", "c1")
    assert [(h["annotator"], h["grade"], h["note"]) for h in history] == [
        ("ann", 1, None), ("ann", 3, "sure now"), ("bob", None, None)]
    assert history[2]["flags"] == {"cant_judge": True}
    assert accounts.authenticate(db, "ada", "ada-password") == "admin"
    assert accounts.authenticate(db, "vic", "vic-secret-1") == "viewer"
    with roles.acting_as("vic"), pytest.raises(roles.AccessDenied):  # sign-in is on
        judgments.add_judgment(db, "q1", "c1", 2, "vic")


def test_demo_copies_are_the_demo_and_leave_it_as_built(make_workspace, demo_file):
    template = store.open_workspace(demo_file, create=False)
    try:
        built = contents.counts(template)
        db = make_workspace("demo")
        assert contents.counts(db) == built
        pair = db.execute("SELECT query_id, chunk_id FROM judgments LIMIT 1").fetchone()
        judgments.add_judgment(db, *pair, 0, "factory-test")
        assert contents.counts(template) == built
    finally:
        template.close()


def test_a_path_is_a_closed_file_where_asked(make_workspace, tmp_path):
    path = make_workspace.path("demo", at=tmp_path / "nested" / "live.db")
    assert path == tmp_path / "nested" / "live.db" and path.exists()
    assert not path.with_name("live.db-wal").exists()  # closed: nothing left in a -wal
    with pytest.raises(FileExistsError):
        make_workspace.path(at=path)
    with pytest.raises(ValueError, match="kind"):
        make_workspace("demos")
