"""Files the scorecard creates are its owner's only: 0600 files, 0700 folders, any umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from labeling.evaluation.inputs import label_sets, result_cache
from labeling.evaluation.inputs.score_controls import Controls
from labeling.workspace import backup, grading, store


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask():
    """The common umask 022 (new files 0644 unless the creator says otherwise)."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_a_new_workspace_and_its_wal_and_shm_are_private(tmp_path, open_umask):
    path = tmp_path / "new.db"
    db = grading.init_workspace(path)
    sides = [Path(f"{path}{suffix}") for suffix in ("", "-wal", "-shm")]
    assert all(side.exists() for side in sides)
    assert {side.name: mode(side) for side in sides} == {side.name: 0o600 for side in sides}
    db.close()
    again = store.open_workspace(tmp_path / "other.db")  # created by open_workspace too
    assert mode(tmp_path / "other.db") == 0o600
    again.close()


def test_a_backup_is_private(make_workspace, tmp_path, open_umask):
    source = make_workspace.path("demo", accounts={"ada": "admin"})
    out = tmp_path / "copy.db"
    backup.backup(source, out)
    assert mode(out) == 0o600


def test_the_cache_folder_and_its_files_are_private(make_workspace, open_umask):
    result_cache.clear_cache()
    db = make_workspace("demo")
    label_sets.labels_for(db, Controls("bm25"))
    folder = Path(db.conn.execute("PRAGMA database_list").fetchone()[2]).parent
    cache = next(folder.glob(".*.cache"))
    files = list(cache.iterdir())
    assert files and mode(cache) == 0o700
    assert {f.name: mode(f) for f in files} == {f.name: 0o600 for f in files}
    result_cache.clear_cache()
