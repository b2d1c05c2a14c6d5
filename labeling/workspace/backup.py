"""Backups of a live workspace with SQLite's online backup API, and restoring one safely.

Backup: the copy is taken in one backup step inside one read transaction: in WAL mode readers
do not block writers, so the app keeps saving labels while it runs, and the copy is the
workspace as of one instant (never half of a transaction). It is written next to ``out`` under a
temporary name (``.OUT.partial-PID``), checked with ``PRAGMA integrity_check`` and only then
renamed to ``out``, so a crash leaves either no backup or a whole one. A backup killed midway
leaves its partial file behind; the next backup to the same name removes the partial files of
processes that no longer run. The copy is a single self-contained file (rollback journal, no
``-wal`` beside it); open it with ``open_workspace`` like any workspace.

Restore: copying a backup over the workspace is not safe. A ``-wal`` file beside the workspace
(left by a crash, or by a process that still has it open) belongs to the *old* file, and SQLite
would replay it onto the copied one ("database disk image is malformed"). ``restore`` therefore

1. refuses while any process has the workspace open (see ``sqlite_locks.exclusively``);
2. copies the backup next to the workspace (``.DB.restoring-PID``), checks its integrity and
   that its schema is not newer than this scorecard, and migrates an older one;
3. checkpoints the old file's ``-wal`` into it and turns it into one self-contained file; when
   the old file cannot be read (it is damaged), its ``-wal``, ``-shm`` and ``-journal`` files are
   moved along with it instead, under matching names, so they are never paired with another file;
4. keeps the old file as ``DB.replaced-<UTC time>`` and renames the checked copy into place (one
   atomic rename: the workspace path always names a whole file).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import sqlite3
import stat
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import sqlite_utils

from labeling.errors import ScorecardError, sqlite_code
from labeling.workspace import contents, private_files, store
from labeling.workspace.sqlite_locks import exclusively, holder, in_use

PARTIAL_MARK = ".partial-"  # .OUT.partial-PID: a backup being written by process PID
RESTORING_MARK = ".restoring-"  # .DB.restoring-PID: a restore being prepared by process PID
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")
WORKSPACE_TABLES = ("chunks", "queries", "judgments")
SQLITE_HEADER = b"SQLite format 3\x00"



# ---------------------------------------------------------------------------------------------
# Temporary files of dead processes


def _process_alive(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (another user's counts as running)."""
    if pid <= 1 or pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _temporary(target: Path, mark: str) -> Path:
    return target.with_name(f".{target.name}{mark}{os.getpid()}")


def remove_dead_temporaries(target: Path, mark: str = PARTIAL_MARK) -> list[Path]:
    """Remove ``.TARGET<mark>PID`` files (and their SQLite side files) whose process is gone.

    A file whose process still runs is left alone: it may be a backup in progress. (A PID the
    system reused for another process keeps its file until that process ends too. PIDs are this
    machine's: do not point backups from several machines or containers at one file name.)
    """
    prefix = f".{target.name}{mark}"
    removed = []
    for path in sorted(target.parent.glob(glob.escape(prefix) + "*")):
        pid_text = path.name[len(prefix):]
        for suffix in SQLITE_SIDE_FILES:
            pid_text = pid_text.removesuffix(suffix)
        if not pid_text.isdigit() or _process_alive(int(pid_text)):
            continue
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed.append(path)
    return removed


# ---------------------------------------------------------------------------------------------
# Backup


def _one_line(problems: list[str], shown: int = 2) -> str:
    """The first ``PRAGMA integrity_check`` rows on one line (rows may hold line breaks)."""
    return "; ".join(" ".join(str(p).split()) for p in problems[:shown])


@dataclass
class BackupResult:
    """Where the copy went, its size in bytes, the copy's row counts, the seconds it took and
    the partial files of killed backups it removed."""

    path: Path
    bytes: int
    counts: dict[str, int]
    seconds: float
    removed: list[Path] = field(default_factory=list)

    def summary(self) -> str:
        """One line for the command line."""
        text = (
            f"backed up to {self.path} ({self.bytes / 1024 / 1024:.1f} MB: "
            f"{contents.describe_counts(self.counts)}) in {self.seconds:.2f} s"
        )
        if self.removed:
            text += f"; removed {len(self.removed)} partial files of killed backups"
        return text


def backup(source: str | Path, out: str | Path, *, overwrite: bool = False) -> BackupResult:
    """Copy the workspace file ``source`` to ``out`` while other connections may write to it.

    Raises ``ScorecardError`` when ``source`` is missing, ``out`` exists (unless ``overwrite``)
    or is the workspace itself, or the copy fails its integrity check.
    """
    started = time.perf_counter()
    source, out = Path(source), Path(out)
    if not source.exists():
        raise ScorecardError(f"{source}: no such workspace")
    if out.exists() and out.resolve() == source.resolve():
        raise ScorecardError(f"{out}: the backup cannot overwrite the workspace itself")
    if out.exists() and not overwrite:
        raise ScorecardError(f"{out} exists (choose another name or overwrite it explicitly)")
    if not out.parent.is_dir():
        raise ScorecardError(f"{out.parent}: no such folder")
    removed = remove_dead_temporaries(out, PARTIAL_MARK)
    db = store.open_workspace(source, create=False)
    partial = _temporary(out, PARTIAL_MARK)
    try:
        private_files.create_private(partial)  # holds password hashes: the owner's only
        target = sqlite3.connect(str(partial), isolation_level=None)
        try:
            db.conn.backup(target)  # pages=-1: one step, one consistent snapshot
            target.execute("PRAGMA journal_mode = DELETE")  # one file, nothing beside it
            problems = [r[0] for r in target.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                raise ScorecardError(f"the copy failed its integrity check ({_one_line(problems)})")
            counts = contents.counts(sqlite_utils.Database(target))
        finally:
            target.close()
        os.replace(partial, out)  # atomic on one file system
    except sqlite3.Error as error:
        raise ScorecardError(f"backup failed: {error}") from error
    finally:
        db.conn.close()
        partial.unlink(missing_ok=True)
    return BackupResult(out, out.stat().st_size, counts, time.perf_counter() - started, removed)


# ---------------------------------------------------------------------------------------------
# Who has a workspace open
#
# ---------------------------------------------------------------------------------------------
# Restore


@dataclass
class RestoreResult:
    """The restored workspace, the backup it came from, where the replaced file was kept (None
    when there was none), the restored row counts, the seconds it took and notes for the user."""

    path: Path
    backup: Path
    replaced: Path | None
    counts: dict[str, int]
    seconds: float
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line for the command line."""
        text = (
            f"restored {self.backup} to {self.path} ({contents.describe_counts(self.counts)}) "
            f"in {self.seconds:.2f} s"
        )
        if self.replaced is not None:
            text += f"; the replaced workspace is kept as {self.replaced}"
        return "; ".join([text, *self.notes])


def _uri(path: Path, mode: str) -> str:
    return f"file:{quote(str(path.absolute()))}?mode={mode}"


def _private_copy(source: Path, target: Path) -> None:
    """Copy ``source`` to a new file ``target`` that only this account can read."""
    target.unlink(missing_ok=True)  # named after this process: a leftover of this PID's past
    descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with open(source, "rb") as reader, os.fdopen(descriptor, "wb") as writer:
        shutil.copyfileobj(reader, writer, 1024 * 1024)


def _take_over_permissions(copy: Path, original: Path) -> None:
    """Give ``copy`` the mode (and, when allowed, the owner) of the file it replaces."""
    info = os.stat(original)
    os.chmod(copy, stat.S_IMODE(info.st_mode))
    if (info.st_uid, info.st_gid) != (os.getuid(), os.getgid()):
        with contextlib.suppress(PermissionError):  # only root may give files away
            os.chown(copy, info.st_uid, info.st_gid)


def _prepare_copy(backup: Path, copy: Path) -> dict[str, int]:
    """Copy ``backup`` (and a ``-wal`` left beside it) to ``copy``, check it, migrate it.

    Returns the copy's row counts. Raises ``ScorecardError`` when the backup is not a readable
    workspace, fails its integrity check or has a newer schema than this scorecard.
    """
    try:
        _private_copy(backup, copy)
        wal = Path(f"{backup}-wal")
        if wal.exists() and wal.stat().st_size:  # part of the backup for SQLite: take it along
            _private_copy(wal, Path(f"{copy}-wal"))
    except OSError as error:
        raise ScorecardError(f"{backup}: cannot copy it ({error.strerror})") from error
    conn = sqlite3.connect(_uri(copy, "rw"), uri=True, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = DELETE")  # folds a copied -wal in: one file
        problems = [r[0] for r in conn.execute("PRAGMA integrity_check")]
        version = store.schema_version(conn)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as error:
        raise ScorecardError(f"{backup} is not a readable workspace ({error})") from error
    finally:
        conn.close()
    if problems != ["ok"]:
        raise ScorecardError(
            f"{backup} failed its integrity check ({_one_line(problems)}): "
            "restore from another backup"
        )
    if version > len(store.MIGRATIONS):
        raise ScorecardError(
            f"{backup} has schema version {version}, newer than this scorecard "
            f"({len(store.MIGRATIONS)}): upgrade retrieval-scorecard to restore it"
        )
    missing = [t for t in WORKSPACE_TABLES if t not in tables]
    if missing:
        raise ScorecardError(f"{backup} is not a scorecard workspace (no {missing[0]} table)")
    try:
        db = store.open_workspace(copy, create=False)  # migrates an older backup
        try:
            counts = contents.counts(db)
            db.conn.execute("PRAGMA journal_mode = DELETE")  # one file again, no -wal beside it
        finally:
            db.conn.close()
    except sqlite3.DatabaseError as error:
        raise ScorecardError(f"{backup}: cannot bring it to this version ({error})") from error
    with open(copy, "rb+") as handle:
        os.fsync(handle.fileno())
    return counts


def _fold_wal(path: Path) -> str | None:
    """Checkpoint ``path``'s ``-wal`` into it and switch it to a rollback journal, so the file is
    self-contained and its ``-wal`` is gone; SQLite's exclusive lock proves nobody has it open.

    Returns None when done, or the problem when the file cannot be read as a database (then it
    and its side files are left as they are). Raises ``ScorecardError`` when another connection
    has it open.
    """
    with open(path, "rb") as handle:
        header = handle.read(len(SQLITE_HEADER))
    if header and header != SQLITE_HEADER:  # SQLite would drop the side files of such a file
        return "it is not a SQLite file"
    conn = sqlite3.connect(_uri(path, "rw"), uri=True, isolation_level=None, timeout=0)
    try:
        conn.execute("PRAGMA locking_mode = EXCLUSIVE")  # keep the lock until closed
        conn.execute("BEGIN EXCLUSIVE")  # recovers a crash's -wal or hot journal first
        conn.execute("COMMIT")
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        mode = conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
        if busy or str(mode).lower() != "delete":
            raise in_use(path)
    except sqlite3.OperationalError as error:
        if "locked" in str(error) or "busy" in str(error):
            raise in_use(path) from error
        return str(error)
    except sqlite3.DatabaseError as error:
        return str(error)
    finally:
        conn.close()
    return None


def _settle_old_file(path: Path) -> tuple[bool, list[str]]:
    """``_fold_wal`` on the workspace about to be replaced: whether its ``-wal`` is folded in,
    and notes for the user. A ``-wal`` that does not fit the file (another database's, or
    damaged: folded into a copy, the copy fails its integrity check) is not folded in but kept
    apart, unpaired, so the kept file stays whole."""
    wal = Path(f"{path}-wal")
    pending = wal.exists() and wal.stat().st_size > 0
    notes = []
    if pending and not _wal_fits(path):
        apart = _keep_wal_apart(path)
        notes.append(f"its -wal file does not fit it (folded into a copy, the copy failed its "
                     f"integrity check), so it was not folded in: it is kept apart as {apart}")
        pending = False
    damage = _fold_wal(path)
    if damage is not None:
        return False, [*notes, f"the replaced workspace could not be read ({damage})"]
    return True, notes + (["the changes its -wal file held are checkpointed into it"]
                          if pending else [])


def _wal_fits(path: Path) -> bool:
    """Whether ``path`` with its ``-wal`` folded in passes ``PRAGMA integrity_check`` (tried
    on a private copy; the file itself is not touched). A file that cannot be read at all is
    ``_fold_wal``'s case: True."""
    with tempfile.TemporaryDirectory(dir=path.parent, prefix=".scorecard-wal-check-") as folder:
        copy = Path(folder) / "copy.db"
        _private_copy(path, copy)
        _private_copy(Path(f"{path}-wal"), Path(f"{copy}-wal"))
        conn = sqlite3.connect(_uri(copy, "rw"), uri=True, isolation_level=None)
        try:
            return [r[0] for r in conn.execute("PRAGMA integrity_check")] == ["ok"]
        except sqlite3.DatabaseError as error:
            return sqlite_code(error) == 26  # not a database: for _fold_wal to report
        finally:
            conn.close()


def _keep_wal_apart(path: Path) -> Path:
    """Move ``path``'s ``-wal`` to a name SQLite never pairs with a file (its ``-shm``, an
    index of that ``-wal`` only, is removed)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    apart = path.with_name(f"{path.name}.replaced-{stamp}.wal-unpaired")
    number = 1
    while apart.exists():
        number += 1
        apart = path.with_name(f"{path.name}.replaced-{stamp}-{number}.wal-unpaired")
    os.replace(f"{path}-wal", apart)
    Path(f"{path}-shm").unlink(missing_ok=True)
    return apart


def _aside_name(path: Path) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    candidate = path.with_name(f"{path.name}.replaced-{stamp}")
    number = 1
    while any(Path(f"{candidate}{s}").exists() for s in ("", *SQLITE_SIDE_FILES)):
        number += 1
        candidate = path.with_name(f"{path.name}.replaced-{stamp}-{number}")
    return candidate


def _fsync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):  # not every file system syncs folders
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def _swap(path: Path, copy: Path, folded: bool) -> tuple[Path, list[str]]:
    """Put ``copy`` at ``path``, keeping the old file (and its side files) aside; returns the
    aside name and notes. The caller holds ``exclusively(path)``."""
    aside = _aside_name(path)
    if path.exists():
        try:
            os.link(path, aside)  # the workspace path keeps naming a whole file throughout
        except OSError:
            os.replace(path, aside)  # no hard links here: a moment without a file
    notes = []
    for suffix in SQLITE_SIDE_FILES:
        side = Path(f"{path}{suffix}")
        if not side.exists():
            continue
        if folded and suffix == "-shm":
            side.unlink()  # only an index of the -wal that was just checkpointed away
            continue
        os.replace(side, f"{aside}{suffix}")  # stays paired with the file it belongs to
        notes.append(f"{side.name} is kept as {aside}{suffix}")
    os.replace(copy, path)  # atomic on one file system
    _fsync_folder(path.parent)
    return aside, notes


def restore(backup_file: str | Path, workspace: str | Path) -> RestoreResult:
    """Replace the workspace file ``workspace`` by the backup ``backup_file``.

    Refuses (``ScorecardError``, nothing changed) while another process has the workspace open,
    and when the backup is missing, not a workspace, fails ``PRAGMA integrity_check`` or has a
    newer schema than this scorecard. The replaced file is kept as
    ``WORKSPACE.replaced-<UTC time>`` with the content of its ``-wal`` checkpointed into it.
    """
    started = time.perf_counter()
    backup_file, workspace = Path(backup_file), Path(workspace)
    if not backup_file.is_file():
        raise ScorecardError(f"{backup_file}: no such backup file")
    if workspace.is_dir():
        raise ScorecardError(f"{workspace} is a folder, not a workspace file")
    if not workspace.parent.is_dir():
        raise ScorecardError(f"{workspace.parent}: no such folder")
    if workspace.exists() and workspace.samefile(backup_file):
        raise ScorecardError(f"{backup_file} is the workspace itself")
    remove_dead_temporaries(workspace, RESTORING_MARK)
    if holder(workspace) is not None:  # fail fast, before copying a large backup
        raise in_use(workspace)
    if holder(backup_file) is not None:  # a live file: copying it would not be consistent
        raise ScorecardError(
            f"{backup_file} is open in another process: take a copy of it with "
            "`scorecard backup` and restore that"
        )
    copy = _temporary(workspace, RESTORING_MARK)
    try:
        counts = _prepare_copy(backup_file, copy)
        folded, notes = False, []
        if workspace.exists():  # (a new workspace stays readable by this account only)
            folded, notes = _settle_old_file(workspace)
            _take_over_permissions(copy, workspace)
        with exclusively(workspace):  # nobody opened it since: hold it while swapping
            try:
                aside, moved = _swap(workspace, copy, folded)
            except OSError as error:
                raise ScorecardError(
                    f"{workspace}: could not put the backup in place ({error.strerror})"
                ) from error
        notes += moved
    finally:
        for leftover in (copy, *(Path(f"{copy}{s}") for s in SQLITE_SIDE_FILES)):
            leftover.unlink(missing_ok=True)
    replaced = aside if aside.exists() else None
    return RestoreResult(
        workspace, backup_file, replaced, counts, time.perf_counter() - started, notes
    )
