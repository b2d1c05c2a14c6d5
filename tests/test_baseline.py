"""The BM25 baseline run (bm25s)."""

from __future__ import annotations

import pytest

from labeling.errors import ScorecardError
from labeling.files.baseline import bm25_run
from labeling.judging.consensus import run_frame
from labeling.workspace.contents import get_run
from labeling.workspace.grading import init_workspace


@pytest.fixture
def db(tmp_path):
    db = init_workspace(tmp_path / "w.db")
    db.conn.executemany(
        "INSERT INTO chunks (id, title, text) VALUES (?, ?, ?)",
        [
            ("c1", "Cats", "the cat sat on the mat"),
            ("c2", "Dogs", "dogs chase the mailman"),
            ("c3", "Mats", "cleaning a dusty mat"),
            ("c4", "Foxes", "a quick brown fox"),
        ],
    )
    db.conn.execute("INSERT INTO chunks (id, placeholder) VALUES ('c9', 1)")
    db.conn.executemany(
        "INSERT INTO queries (id, text) VALUES (?, ?)",
        [("q1", "cat on a mat"), ("q2", "fox"), ("q3", "zebra")],
    )
    return db


def test_bm25_run_ranks_matching_chunks(db):
    result = bm25_run(db, "bm25", k=3)
    run = run_frame(db, "bm25")
    assert result.rows == len(run)
    q1 = run[run["query_id"] == "q1"]
    assert q1["doc_id"].tolist()[0] == "c1" and set(q1["doc_id"]) == {"c1", "c3"}
    assert q1["score"].is_monotonic_decreasing and q1["rank"].tolist() == [1, 2]
    assert run[run["query_id"] == "q2"]["doc_id"].tolist() == ["c4"]
    assert "q3" not in set(run["query_id"]) and "c9" not in set(run["doc_id"])
    meta = get_run(db, "bm25")["metadata"]
    assert meta["retriever"] == "bm25s" and meta["fields"] == ["text"]


def test_fields_and_replacement(db):
    bm25_run(db, "bm25", k=2)
    bm25_run(db, "bm25", k=2, fields=("title", "text"))
    run = run_frame(db, "bm25")
    assert run[run["query_id"] == "q2"]["doc_id"].tolist() == ["c4"]
    assert get_run(db, "bm25")["metadata"]["fields"] == ["title", "text"]
    assert len(db.execute("SELECT * FROM runs").fetchall()) == 1


def test_bad_arguments(db, tmp_path):
    with pytest.raises(ScorecardError):
        bm25_run(db, fields=("body",))
    with pytest.raises(ScorecardError):
        bm25_run(db, k=0)
    with pytest.raises(ScorecardError, match="chunks and queries"):
        bm25_run(init_workspace(tmp_path / "empty.db"))
