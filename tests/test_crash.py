"""An import killed with SIGKILL midway leaves the workspace exactly as it was before.

The child imports a large file in small batches with a tiny page cache, so uncommitted pages
spill into the WAL file before the kill (the hard case: the file on disk holds half an import).
It reports on stdout once several batches are stored inside the open transaction; the parent
kills it there and reopens the file.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from labeling.workspace import contents, judgments, store

ROOT = Path(__file__).resolve().parents[1]
ROWS = 40_000
BATCH_ROWS = 2_000
KILL_AFTER_BATCHES = 4

CHILD = r"""
import sys, time
from labeling.files import formats
from labeling.files import importers as imports
from labeling.files.importers import runs
from labeling.workspace import store

db_path, file_path, kind, mode = sys.argv[1:5]
runs.IMPORT_CACHE_KIB = 64  # spill uncommitted pages into the WAL

def reporting(reader):
    def read(*args, **kwargs):
        kwargs["batch_rows"] = int(sys.argv[5])
        for number, batch in enumerate(reader(*args, **kwargs)):
            if number == int(sys.argv[6]):  # the earlier batches are stored, uncommitted
                print("mid-import", flush=True)
                if mode == "paused":
                    time.sleep(120)
            yield batch
    return read

formats.iter_run_batches = reporting(formats.iter_run_batches)
formats.iter_qrels_batches = reporting(formats.iter_qrels_batches)
db = store.open_workspace(db_path)
db.conn.execute("PRAGMA cache_size = -64")
if kind == "run":
    imports.import_run(db, file_path, "killed-run", batch_rows=int(sys.argv[5]))
else:
    imports.import_qrels(db, file_path, annotator="killed")
print("finished", flush=True)
"""


def fingerprint(db) -> str:
    digest = hashlib.sha256()
    for line in db.conn.iterdump():
        digest.update(line.encode())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def big_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("crash")
    run = folder / "run.trec"
    qrels = folder / "qrels.txt"
    with open(run, "w") as handle:
        for i in range(ROWS):  # placeholder ids: the import also inserts queries and chunks
            handle.write(f"kq{i // 100} Q0 kc{i} {i % 100 + 1} {1000 - i % 100}.5 killed\n")
    with open(qrels, "w") as handle:
        for i in range(ROWS):
            handle.write(f"kq{i // 100} 0 kc{i} {i % 4}\n")
    return {"run": run, "qrels": qrels}


# "paused": killed with the transaction open between two batches; "writing": killed while
# it stores batches.
@pytest.mark.parametrize(("kind", "mode"), [("run", "writing"), ("qrels", "paused")])
def test_sigkill_mid_import_changes_nothing(kind, mode, big_files, make_workspace):
    db_path = make_workspace.path("demo")
    db = store.open_workspace(db_path)
    before_counts, before = contents.counts(db), fingerprint(db)
    db.close()

    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(db_path), str(big_files[kind]), kind, mode,
         str(BATCH_ROWS), str(KILL_AFTER_BATCHES)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        line = child.stdout.readline()  # blocks until the child is mid-import (or dies)
        assert line.strip() == "mid-import", child.stderr.read()
        if mode == "writing":
            time.sleep(0.05)  # let it store a few more batches: killed while writing
        wal = db_path.with_name(db_path.name + "-wal")
        spilled = wal.stat().st_size if wal.exists() else 0
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)
        child.stdout.close()
        child.stderr.close()
    assert child.returncode == -signal.SIGKILL
    assert spilled > 0  # the kill left half an import in the WAL file

    db = store.open_workspace(db_path)
    assert db.conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert db.conn.execute("PRAGMA foreign_key_check").fetchall() == []
    assert contents.counts(db) == before_counts
    assert fingerprint(db) == before
    # and the workspace takes writes again
    q, c = db.conn.execute("SELECT query_id, chunk_id FROM run_results LIMIT 1").fetchone()
    judgments.add_judgment(db, q, c, 1, "after-crash")
    assert contents.counts(db)["judgments"] == before_counts["judgments"] + 1
