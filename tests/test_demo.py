"""The demo workspace: built in one go from data/, idempotent, with texture for later pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeling.files.demo import build_demo
from labeling.judging import pooling, queue
from labeling.workspace import contents, grading, store


@pytest.fixture(scope="module")
def demo(build_workspace) -> Path:
    """A copy of the session's demo, which ``build_demo`` made (tests/conftest.py); building
    into a folder that does not exist yet is checked by tests/app/test_app.py."""
    return build_workspace.path("demo")


def test_demo_has_everything(demo: Path) -> None:
    db = store.open_workspace(demo, create=False)
    counts = contents.counts(db)
    assert counts["chunks"] >= 80 and counts["queries"] >= 40
    assert contents.run_names(db) == ["bm25", "bm25-title", "fusion"]
    assert [g for g, _, _ in grading.get_scale(db)] == [0, 1, 2, 3]
    sql = db.conn.execute
    assert sql("SELECT count(*) FROM chunks WHERE placeholder = 1").fetchone()[0] == 0
    assert sql("SELECT count(*) FROM queries WHERE placeholder = 1").fetchone()[0] == 0
    assert {r[0] for r in sql("SELECT DISTINCT source FROM queries")} == {"real", "synthetic"}
    assert {r[0] for r in sql("SELECT DISTINCT split FROM queries")} == {"dev", "test"}
    assert len(contents.query_segments(db, "topic")) == counts["queries"]
    assert len(set(contents.query_segments(db, "topic").values())) == 4


def test_demo_labels_disagree_and_leave_gaps(demo: Path) -> None:
    db = store.open_workspace(demo, create=False)
    sql = db.conn.execute
    assert [r[0] for r in sql("SELECT DISTINCT annotator FROM judgments ORDER BY 1")] == [
        "alice", "bob"
    ]
    disagreements = sql(
        "SELECT count(*) FROM current_judgments a JOIN current_judgments b"
        " ON a.query_id = b.query_id AND a.chunk_id = b.chunk_id"
        " WHERE a.annotator = 'alice' AND b.annotator = 'bob' AND a.grade != b.grade"
    ).fetchone()[0]
    assert disagreements > 10
    unjudged_top10 = sql(
        "SELECT count(DISTINCT r.query_id || ' ' || r.chunk_id) FROM run_results r"
        " WHERE r.rank <= 10 AND NOT EXISTS (SELECT 1 FROM judgments j"
        " WHERE j.query_id = r.query_id AND j.chunk_id = r.chunk_id)"
    ).fetchone()[0]
    assert unjudged_top10 > 0


def test_build_demo_is_idempotent(demo: Path) -> None:
    before = contents.counts(store.open_workspace(demo, create=False))
    build_demo(demo)
    assert contents.counts(store.open_workspace(demo, create=False)) == before
    assert [p.name for p in demo.parent.iterdir() if "building" in p.name] == []


def test_demo_opens_with_a_queue_of_its_runs_pool(make_workspace) -> None:
    """A new person has pairs to judge at once: the queue is the pool of the three runs' top
    10 (the library's pooling), and the pairs nobody judged are open."""
    db = make_workspace("demo-with-queue")
    pooled = pooling.pool_pairs(db, contents.run_names(db), 10)
    queued = set(db.conn.execute("SELECT query_id, chunk_id FROM label_queue").fetchall())
    assert queued == set(zip(pooled["query_id"], pooled["chunk_id"], strict=True))
    progress = queue.progress(db, "newcomer")
    assert progress.pooled == len(pooled) and progress.left_for_me > 0
    assert queue.next_card(db, "newcomer", lease=False) is not None
