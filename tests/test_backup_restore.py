"""`scorecard restore` and the backup's partial files, on real files and real processes.

- After a crash the workspace has a `-wal` file with committed transactions beside it. Copying a
  backup over the workspace would pair the backup with that `-wal` (SQLite replays it onto the
  copied file); restore checkpoints it into the old file instead and keeps that file aside.
- Restore is refused while another process (or a connection of this one) has the workspace
  open, and when the backup is not a sound workspace of this or an older schema: nothing is
  changed then.
- A backup killed midway leaves `.OUT.partial-PID`; the next backup removes it, but not the
  partial file of a backup still running.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from labeling.commands import cli
from labeling.workspace import backup, contents, store

ROOT = Path(__file__).resolve().parents[1]
CRASHED_JUDGMENTS = 25

CRASHING_WRITER = r"""
import os, signal, sys
from labeling.workspace import judgments, store

db = store.open_workspace(sys.argv[1])
db.conn.execute("PRAGMA wal_autocheckpoint = 0")  # committed work stays in the -wal
pairs = db.conn.execute("SELECT query_id, chunk_id FROM run_results r JOIN queries q"
                        " ON q.id = r.query_id WHERE q.split IS NOT 'test' LIMIT ?",
                        [int(sys.argv[2])]).fetchall()
for query, chunk in pairs:
    judgments.add_judgment(db, query, chunk, 1, "crashed")  # each one committed
os.kill(os.getpid(), signal.SIGKILL)
"""

HOLDER = r"""
import sys
from labeling.workspace import store

db = store.open_workspace(sys.argv[1])
print("open", flush=True)
sys.stdin.read()  # keep the workspace open until the parent closes our stdin
"""

SLOW_BACKUP = r"""
import sys, time
from labeling.workspace import backup, store

open_workspace = store.open_workspace


class OnePageAtATime:
    # the source connection, copying one page per step and stopping after the first
    def __init__(self, conn):
        self.conn = conn

    def backup(self, target, **_):
        def progress(status, remaining, total):
            print("mid-copy", flush=True)
            time.sleep(120)  # killed here
        self.conn.backup(target, pages=1, progress=progress)

    def close(self):
        self.conn.close()


def open_slowly(*args, **kwargs):
    db = open_workspace(*args, **kwargs)
    db.conn = OnePageAtATime(db.conn)
    return db


store.open_workspace = open_slowly
backup.backup(sys.argv[1], sys.argv[2])
"""


def _python(script: str, *args: str, **popen) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)], cwd=ROOT, text=True, **popen
    )


def _cli(capsys, *args) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _counts(path: Path) -> dict[str, int]:
    db = store.open_workspace(path, create=False)
    try:
        return contents.counts(db)
    finally:
        db.conn.close()


def _crashed_judgments(path: Path) -> int:
    db = store.open_workspace(path, create=False)
    try:
        sql = "SELECT count(*) FROM judgments WHERE annotator = 'crashed'"
        return db.conn.execute(sql).fetchone()[0]
    finally:
        db.conn.close()


@pytest.fixture
def workspace(make_workspace, tmp_path: Path) -> Path:
    return make_workspace.path("demo", at=tmp_path / "live.db")


@pytest.fixture
def saved(workspace: Path, tmp_path: Path) -> Path:
    """A backup of ``workspace`` taken before anything else happens to it."""
    out = tmp_path / "saved.db"
    backup.backup(workspace, out)
    return out


def _crash_a_writer(path: Path) -> None:
    """Judge some pairs in a child process that then dies by SIGKILL, leaving its -wal."""
    child = _python(CRASHING_WRITER, path, CRASHED_JUDGMENTS)
    assert child.wait(timeout=60) == -signal.SIGKILL
    assert Path(f"{path}-wal").stat().st_size > 0  # committed frames not yet checkpointed


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".restoring-" in p.name)


def test_copying_over_a_stale_wal_mixes_the_files(workspace, saved, tmp_path):
    """Why restore exists: the obvious copy is paired with the crashed process's -wal."""
    _crash_a_writer(workspace)
    naive = tmp_path / "naive"
    naive.mkdir()
    for suffix in ("-wal", "-shm"):
        shutil.copyfile(f"{workspace}{suffix}", naive / f"live.db{suffix}")
    shutil.copyfile(saved, naive / "live.db")  # `cp saved.db live.db`
    try:
        mixed = _crashed_judgments(naive / "live.db")
    except sqlite3.DatabaseError:  # "database disk image is malformed"
        mixed = -1
    assert mixed != 0  # not the backup: the old -wal was replayed onto it


def test_restore_after_a_crash_with_a_stale_wal(workspace, saved, tmp_path, capsys):
    _crash_a_writer(workspace)
    expected = _counts(saved)
    saved_bytes = _digest(saved)

    code, out, err = _cli(capsys, "restore", saved, workspace)

    assert code == 0, err
    assert out.startswith(f"restored {saved} to {workspace}") and "kept as" in out
    assert "checkpointed into it" in out
    assert not Path(f"{workspace}-wal").exists() and not Path(f"{workspace}-shm").exists()
    assert _counts(workspace) == expected
    assert _crashed_judgments(workspace) == 0
    db = store.open_workspace(workspace, create=False)
    assert db.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.conn.close()
    kept = sorted(tmp_path.glob("live.db.replaced-*"))
    assert [p.name for p in kept] == [kept[0].name] and str(kept[0]) in out
    assert _crashed_judgments(kept[0]) == CRASHED_JUDGMENTS  # the crash's work is kept aside
    assert _leftovers(tmp_path) == []
    assert _digest(saved) == saved_bytes  # the backup itself is never written


def test_restore_refused_while_another_process_has_the_workspace_open(
    workspace, saved, tmp_path, capsys
):
    holder = _python(HOLDER, workspace, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == "open"
        before = _digest(workspace)
        code, out, err = _cli(capsys, "restore", saved, workspace)
        assert code == 2 and out == ""
        assert err.count("\n") == 1 and err.startswith("scorecard: ")
        assert f"{workspace} is open in another process (process {holder.pid})" in err
        assert _digest(workspace) == before
        assert not list(tmp_path.glob("live.db.replaced-*")) and _leftovers(tmp_path) == []
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    code, out, err = _cli(capsys, "restore", saved, workspace)  # nobody has it open now
    assert code == 0, err
    assert len(list(tmp_path.glob("live.db.replaced-*"))) == 1


def test_restore_refused_while_this_process_has_the_workspace_open(workspace, saved):
    db = store.open_workspace(workspace)
    try:
        with pytest.raises(backup.ScorecardError, match="is open in another process"):
            backup.restore(saved, workspace)
    finally:
        db.conn.close()
    assert backup.restore(saved, workspace).replaced is not None


def _newer_schema(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {len(store.MIGRATIONS) + 1}")
    conn.close()


def _swapped_indexes(path: Path) -> None:
    """Point two indexes at each other's pages: readable, but ``PRAGMA integrity_check``
    lists rows missing from the indexes."""
    conn = sqlite3.connect(path, isolation_level=None)
    roots = dict(conn.execute(
        "SELECT name, rootpage FROM sqlite_master WHERE name IN ('judgments_pair', 'chunks_doc_id')"
    ).fetchall())
    conn.execute("PRAGMA writable_schema = ON")
    for name, other in (("judgments_pair", "chunks_doc_id"), ("chunks_doc_id", "judgments_pair")):
        conn.execute("UPDATE sqlite_master SET rootpage = ? WHERE name = ?", [roots[other], name])
    conn.close()


def _zeroed_index(path: Path) -> None:
    """Zero the first page of an index: the file opens, checking it finds it malformed."""
    conn = sqlite3.connect(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute(
        "SELECT rootpage FROM sqlite_master WHERE name = 'judgments_pair'"
    ).fetchone()[0]
    conn.close()
    with open(path, "r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(bytes(page_size))


BAD_BACKUPS = {
    "newer schema": (
        _newer_schema,
        rf"has schema version {len(store.MIGRATIONS) + 1}, newer than this scorecard "
        rf"\({len(store.MIGRATIONS)}\)",
    ),
    "failed integrity check": (
        _swapped_indexes,
        r"failed its integrity check \(row \d+ missing from index (chunks_doc_id|judgments_pair);"
    ),
    "malformed page": (
        _zeroed_index, r"is not a readable workspace \(database disk image is malformed\)"
    ),
    "not SQLite": (lambda p: p.write_text("id,text\n1,hello\n" * 400),
                   "is not a readable workspace \\(file is not a database\\)"),
    "zero bytes": (lambda p: p.write_bytes(b""), "is not a scorecard workspace"),
    "missing": (lambda p: p.unlink(), "no such backup file"),
}


@pytest.mark.parametrize("case", BAD_BACKUPS)
def test_restore_checks_the_backup_before_replacing_anything(
    case, workspace, saved, tmp_path, capsys
):
    spoil, message = BAD_BACKUPS[case]
    spoil(saved)
    before = _digest(workspace)
    code, out, err = _cli(capsys, "restore", saved, workspace)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and str(saved) in err
    assert re.search(message, err), err
    assert _digest(workspace) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("live.db")) == [
        "live.db"
    ]
    assert _leftovers(tmp_path) == []


def test_restore_onto_a_folder_is_refused(saved, tmp_path, capsys):
    folder = tmp_path / "folder.db"
    folder.mkdir()
    code, _, err = _cli(capsys, "restore", saved, folder)
    assert code == 2 and "is a folder, not a workspace file" in err


def test_restore_over_a_damaged_workspace_keeps_it_aside_with_its_wal(saved, tmp_path):
    workspace = tmp_path / "broken.db"
    workspace.write_bytes(b"not a database at all " * 500)
    Path(f"{workspace}-wal").write_bytes(b"\x37\x7f\x06\x82" + bytes(60))  # a stray -wal
    result = backup.restore(saved, workspace)
    assert _counts(workspace) == _counts(saved)
    assert not Path(f"{workspace}-wal").exists()
    assert result.replaced is not None
    assert result.replaced.read_bytes().startswith(b"not a database at all")
    assert Path(f"{result.replaced}-wal").exists()  # paired with the file it belongs to
    assert "could not be read" in result.summary()
    assert f"broken.db-wal is kept as {result.replaced}-wal" in result.summary()


def test_a_wal_beside_the_backup_is_part_of_it(workspace, make_workspace, tmp_path):
    """A copy made by hand of a crashed workspace with its -wal restores with the -wal's work,
    and the backup and its -wal are left as they were."""
    _crash_a_writer(workspace)
    handmade = tmp_path / "handmade.db"
    for suffix in ("", "-wal"):
        shutil.copyfile(f"{workspace}{suffix}", f"{handmade}{suffix}")
    digests = [_digest(Path(f"{handmade}{suffix}")) for suffix in ("", "-wal")]
    target = make_workspace.path("demo", at=tmp_path / "target.db")
    backup.restore(handmade, target)
    assert _crashed_judgments(target) == CRASHED_JUDGMENTS
    assert [_digest(Path(f"{handmade}{suffix}")) for suffix in ("", "-wal")] == digests


def test_restored_file_keeps_the_workspace_permissions(workspace, saved):
    workspace.chmod(0o640)  # the app's account writes, its group reads, others nothing
    saved.chmod(0o644)
    backup.restore(saved, workspace)
    assert stat.S_IMODE(workspace.stat().st_mode) == 0o640


def test_restore_to_a_new_path(saved, tmp_path):
    target = tmp_path / "fresh.db"
    result = backup.restore(saved, target)
    assert result.replaced is None and "kept as" not in result.summary()
    assert _counts(target) == _counts(saved)


# ---------------------------------------------------------------------------------------------
# Partial files of killed backups


def _partials(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.glob(f".{out.name}.partial-*"))


def test_next_backup_removes_the_partial_file_of_a_killed_backup(workspace, tmp_path, capsys):
    out = tmp_path / "hourly.db"
    killed = _python(SLOW_BACKUP, workspace, out, stdout=subprocess.PIPE)
    try:
        assert killed.stdout.readline().strip() == "mid-copy"  # one page copied of many
    finally:
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=30)
    left = _partials(out)
    assert f".hourly.db.partial-{killed.pid}" in left and not out.exists()

    running = _python("import time; time.sleep(120)")  # stands for a backup still at work
    try:
        live_partial = tmp_path / f".hourly.db.partial-{running.pid}"
        live_partial.write_bytes(b"being written")
        code, stdout, err = _cli(capsys, "backup", workspace, out)
        assert code == 0, err
        assert f"removed {len(left)} partial files of killed backups" in stdout
        assert _partials(out) == [live_partial.name]  # its writer still runs: kept
        assert _counts(out) == _counts(workspace)
    finally:
        running.kill()
        running.wait(timeout=30)
    result = backup.backup(workspace, out, overwrite=True)
    assert result.removed == [live_partial] and _partials(out) == []


def test_restore_over_a_foreign_wal_keeps_no_damaged_copy(workspace, saved, make_workspace,
                                                          tmp_path):
    """A -wal of another workspace beside the file: folded in, its pages would damage the kept
    copy; it is kept apart instead, and the kept copy passes its integrity check."""
    other = make_workspace.path(  # laid out differently: other pages at the same numbers
        "empty", at=tmp_path / "other" / "other.db",
        chunks=[{"id": f"c{i}", "text": "x" * 300} for i in range(400)],
        queries=[{"id": f"q{i}", "text": "q"} for i in range(40)],
        runs={"r": [(f"q{i}", f"c{j}", float(j)) for i in range(40) for j in range(10)]})
    _crash_a_writer(other)
    before = _counts(workspace)
    shutil.copyfile(f"{other}-wal", f"{workspace}-wal")  # beside a file it does not belong to
    result = backup.restore(saved, workspace)
    assert _counts(workspace) == _counts(saved)
    assert result.replaced is not None
    kept = sorted(p.name for p in tmp_path.glob("live.db.replaced-*"))
    assert not [name for name in kept if name.endswith(("-wal", "-shm"))]  # none paired
    conn = sqlite3.connect(f"file:{result.replaced}?mode=ro", uri=True)
    assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    conn.close()
    assert _counts(result.replaced) == before  # the replaced workspace as it was
    apart = [name for name in kept if name.endswith(".wal-unpaired")]
    assert len(apart) == 1 and apart[0] in result.summary()  # the -wal is kept, not lost
