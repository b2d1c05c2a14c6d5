"""The BM25 baseline run (bm25s)."""

from __future__ import annotations

import pytest

from labeling.errors import ScorecardError
from labeling.files.baseline import bm25_run
from labeling.files.importers import import_qrels
from labeling.judging.consensus import run_frame
from labeling.workspace.contents import get_run


@pytest.fixture
def db(make_workspace, tmp_path):
    db = make_workspace(
        chunks=[
            {"id": "c1", "title": "Cats", "text": "the cat sat on the mat"},
            {"id": "c2", "title": "Dogs", "text": "dogs chase the mailman"},
            {"id": "c3", "title": "Mats", "text": "cleaning a dusty mat"},
            {"id": "c4", "title": "Foxes", "text": "a quick brown fox"},
        ],
        queries=[
            {"id": "q1", "text": "cat on a mat"},
            {"id": "q2", "text": "fox"},
            {"id": "q3", "text": "zebra"},
        ],
    )
    # c9 is a placeholder: a label names it, no chunks file holds it (it has no text to index)
    labels = tmp_path / "label.qrels"
    labels.write_text("q1 0 c9 0\n")
    import_qrels(db, labels)
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


def test_bad_arguments(db, make_workspace):
    with pytest.raises(ScorecardError):
        bm25_run(db, fields=("body",))
    with pytest.raises(ScorecardError):
        bm25_run(db, k=0)
    with pytest.raises(ScorecardError, match="chunks and queries"):
        bm25_run(make_workspace())
