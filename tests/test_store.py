"""The workspace schema: opening, migrations, scale, append-only judgments, current view."""

from __future__ import annotations

import sqlite3

import pytest

from labeling.errors import InputError, ScorecardError
from labeling.workspace.contents import counts, query_segments
from labeling.workspace.grading import get_scale, init_workspace, parse_scale, set_scale
from labeling.workspace.judgments import add_judgment, judgment_history
from labeling.workspace.store import MIGRATIONS, open_workspace, schema_version

QUERIES = [{"id": "q1", "text": "what"}, {"id": "q2", "text": "why"}]


@pytest.fixture
def db(make_workspace):
    return make_workspace(queries=QUERIES, chunks=[{"id": "c1", "text": "one"},
                                                   {"id": "c2", "text": "two"}])


def test_open_sets_wal_foreign_keys_busy_timeout_and_version(tmp_path):
    db = open_workspace(tmp_path / "w.db")
    conn = db.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 30_000
    assert schema_version(db.conn) == len(MIGRATIONS)
    assert {"chunks", "queries", "runs", "run_results", "judgments", "scale"} <= set(
        db.table_names()
    )
    assert "current_judgments" in db.view_names()
    db.close()
    assert schema_version(open_workspace(tmp_path / "w.db").conn) == len(MIGRATIONS)


def test_open_missing_without_create_is_an_error(tmp_path):
    with pytest.raises(ScorecardError, match="no such workspace"):
        open_workspace(tmp_path / "nope.db", create=False)


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "w.db"
    open_workspace(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(ScorecardError, match="newer"):
        open_workspace(path)


def test_scales(tmp_path):
    assert [g for g, *_ in get_scale(init_workspace(tmp_path / "a.db"))] == [0, 1, 2, 3]
    assert get_scale(init_workspace(tmp_path / "b.db", scale="binary"))[1][:2] == (1, "relevant")
    custom = init_workspace(tmp_path / "c.db", scale="0:no, 2:yes")
    assert [(g, n) for g, n, _ in get_scale(custom)] == [(0, "no"), (2, "yes")]
    for bad in ("0-no", "x:no", "0:no,0:again", "1:"):
        with pytest.raises(ScorecardError):
            parse_scale(bad)


def test_grade_outside_scale_is_rejected(db):
    with pytest.raises(InputError, match="not on the scale"):
        add_judgment(db, "q1", "c1", 4, "ann")
    assert counts(db)["judgments"] == 0


def test_scale_cannot_drop_a_used_grade(db):
    add_judgment(db, "q1", "c1", 3, "ann")
    with pytest.raises(ScorecardError, match=r"\[3\]"):
        set_scale(db, parse_scale("binary"))
    assert len(get_scale(db)) == 4


def test_judgments_are_append_only_and_history_is_kept(db):
    first = add_judgment(db, "q1", "c1", 1, "ann", note="hmm", flags={"unsure": True})
    add_judgment(db, "q1", "c1", 2, "ann")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.conn.execute("UPDATE judgments SET grade = 0 WHERE id = ?", [first])
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db.conn.execute("DELETE FROM judgments")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        db["judgments"].delete_where()
    history = judgment_history(db, "q1", "c1")
    assert [h["grade"] for h in history] == [1, 2]
    assert history[0]["flags"] == {"unsure": True} and history[0]["note"] == "hmm"
    current = list(db.query("SELECT grade FROM current_judgments"))
    assert current == [{"grade": 2}]


def test_current_judgments_is_per_annotator(db):
    add_judgment(db, "q1", "c1", 1, "a")
    add_judgment(db, "q1", "c1", 3, "b")
    add_judgment(db, "q1", "c1", None, "a", flags={"cant_judge": True})
    rows = list(db.query("SELECT annotator, grade FROM current_judgments ORDER BY annotator"))
    assert rows == [{"annotator": "a", "grade": None}, {"annotator": "b", "grade": 3}]


def test_unknown_ids_and_flags_are_rejected(db):
    with pytest.raises(InputError, match="unknown query"):
        add_judgment(db, "nope", "c1", 1, "a")
    with pytest.raises(InputError, match="flags"):
        add_judgment(db, "q1", "c1", 1, "a", flags={"bogus": True})


def test_query_segments(make_workspace):
    intents = {"q1": "how-to", "q2": "why"}
    db = make_workspace(queries=[{**q, "intent": intents[q["id"]]} for q in QUERIES])
    assert query_segments(db, "intent") == {"q1": "how-to", "q2": "why"}
    assert query_segments(db, "missing") == {}
