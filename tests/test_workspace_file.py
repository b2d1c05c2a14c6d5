"""A connection whose workspace file or ``-wal`` was deleted or replaced refuses to write.

The connection would otherwise go on "saving" into files no other process reads. Each test opens
a real workspace (WAL mode), changes the files under it the way a person or a script would, and
checks that the next save raises a sentence and stores nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from labeling.errors import ScorecardError
from labeling.workspace import judgments, store
from labeling.workspace.file_identity import WorkspaceReplacedError, changed_file


@pytest.fixture
def path(make_workspace, tmp_path: Path) -> Path:
    return make_workspace.path("demo", at=tmp_path / "live.db")


def _a_pair(db) -> tuple[str, str]:
    """A (query, chunk) pair any annotator may judge (its split is not locked)."""
    row = db.conn.execute(
        "SELECT query_id, chunk_id FROM run_results r JOIN queries q ON q.id = r.query_id"
        " WHERE q.split IS NOT 'test' LIMIT 1"
    ).fetchone()
    return row[0], row[1]


def _judgments(db) -> int:
    return db.conn.execute("SELECT count(*) FROM judgments").fetchone()[0]


def test_deleted_wal_stops_the_save(path):
    db = store.open_workspace(path)
    query, chunk = _a_pair(db)
    judgments.add_judgment(db, query, chunk, 2, "ann")  # saving works before
    before = _judgments(db)
    wal = Path(f"{path}-wal")
    assert wal.exists()
    wal.unlink()
    with pytest.raises(WorkspaceReplacedError) as raised:
        judgments.add_judgment(db, query, chunk, 3, "ann")
    assert isinstance(raised.value, ScorecardError)
    message = str(raised.value)
    assert f"{path}-wal" in message and "deleted or replaced" in message
    assert "restart the app" in message and "\n" not in message
    assert _judgments(db) == before  # rolled back: nothing saved
    assert not db.conn.in_transaction


def test_replaced_workspace_stops_the_save(path, make_workspace, tmp_path):
    db = store.open_workspace(path)
    query, chunk = _a_pair(db)
    judgments.add_judgment(db, query, chunk, 2, "ann")
    db.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the old file holds everything
    other = make_workspace.path("demo", at=tmp_path / "other.db")
    os.replace(other, path)  # `mv other.db live.db` while the app runs
    assert changed_file(db) == str(path)
    with pytest.raises(WorkspaceReplacedError, match="live.db was deleted or replaced"):
        judgments.add_judgment(db, query, chunk, 3, "ann")
    db.conn.close()
    fresh = store.open_workspace(path)  # the file now there is the other one, untouched
    demo = make_workspace("demo")
    assert _judgments(fresh) == _judgments(demo)
    fresh.conn.close()
    demo.conn.close()


def test_deleted_workspace_stops_the_save(path):
    db = store.open_workspace(path)
    query, chunk = _a_pair(db)
    before = _judgments(db)
    path.unlink()
    with pytest.raises(WorkspaceReplacedError, match="live.db was deleted or replaced"):
        judgments.add_judgment(db, query, chunk, 1, "ann")
    assert _judgments(db) == before


def test_other_connections_and_checkpoints_are_not_a_replacement(path):
    first = store.open_workspace(path)
    query, chunk = _a_pair(first)
    second = store.open_workspace(path)
    judgments.add_judgment(second, query, chunk, 1, "bob")
    second.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # rewrites the -wal in place
    second.conn.close()
    assert changed_file(first) is None
    judgments.add_judgment(first, query, chunk, 2, "ann")
    judgments.add_judgment(first, query, chunk, 3, "ann")
    grades = [j["grade"] for j in judgments.judgment_history(first, query, chunk)[-3:]]
    assert grades == [1, 2, 3]
