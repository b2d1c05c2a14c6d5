"""The workspace: one SQLite file holding chunks, queries, runs and the judgment history.

Conventions
- ``open_workspace`` is the one way to open a workspace. The connection runs in autocommit mode
  (``isolation_level=None``); every write goes through ``write_transaction`` (``BEGIN
  IMMEDIATE``), so concurrent writers queue on ``busy_timeout`` instead of failing.
- A connection belongs to one caller at a time: the app opens one per browser session, a
  worker one per thread. A transaction belongs to the thread that opened it with
  ``write_transaction``; a nested ``write_transaction`` in that thread joins it (a savepoint),
  and any other use of a connection whose transaction another caller holds is refused, never
  joined, so one caller's rollback cannot take another's writes with it.
- Ids are text and stable: ``chunks.id``, ``queries.id``. An id a label or run file names that the
  workspace does not know becomes a *placeholder* row (``placeholder = 1``, no text).
- Judgments are append-only; their conventions are in ``labeling.workspace.judgments``.
- Segment attributes of queries live in ``query_attributes(query_id, name, value)``: segmenting by
  attribute X is ``SELECT query_id, value FROM query_attributes WHERE name = 'X'``.
- Timestamps are ISO-8601 UTC strings (``2026-05-09T07:35:25.123456+00:00``)."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import sqlite_utils

from labeling.errors import ScorecardError, sqlite_code, storage_problem
from labeling.workspace import file_identity as workspace_file
from labeling.workspace import private_files, roles, staged_runs, write_turns
from labeling.workspace.migrations import MIGRATIONS

BUSY_TIMEOUT_MS = 30_000


def utc_now() -> str:
    """The current time as an ISO-8601 UTC string, the workspace's timestamp format."""
    return datetime.now(UTC).isoformat()


# Each later feature owns the migration of its tables, in its own module.


def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version of the database ``conn`` opened (``PRAGMA user_version``: the number of
    ``MIGRATIONS`` applied)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _migrate(conn: sqlite3.Connection, path: Path | None = None) -> None:
    """Bring the schema to ``len(MIGRATIONS)``; a newer one is refused before any write."""
    where = f"{path}: " if path is not None else ""
    version = schema_version(conn)
    if version == len(MIGRATIONS):
        return
    if version > len(MIGRATIONS):
        raise ScorecardError(_newer_schema(where, version))
    conn.execute("BEGIN IMMEDIATE")  # re-read under the write lock: another process may migrate
    try:
        version = schema_version(conn)
        if version > len(MIGRATIONS):
            raise ScorecardError(_newer_schema(where, version))
        for number in range(version, len(MIGRATIONS)):
            MIGRATIONS[number](conn)
            conn.execute(f"PRAGMA user_version = {number + 1}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _newer_schema(where: str, version: int) -> str:
    return (
        f"{where}workspace schema version {version} is newer than this scorecard "
        f"({len(MIGRATIONS)}); upgrade retrieval-scorecard"
    )




def _check_workspace_file(path: Path, create: bool) -> None:
    """Refuse, with a sentence naming ``path``, what SQLite would fail on or silently misread:
    a folder, a missing or empty file (unless creating), and a place SQLite cannot write its
    ``-wal``/``-shm`` files. What is inside the file is ``_check_database_file``'s part.
    """
    if path.is_dir():
        raise ScorecardError(f"{path}: is a folder, not a workspace file")
    folder = path.parent if str(path.parent) else Path(".")
    if not path.exists():
        if not create:
            raise ScorecardError(f"{path}: no such workspace (run `scorecard init {path}` first)")
        if not folder.is_dir():
            raise ScorecardError(
                f"{path}: cannot create the workspace: the folder {folder} does not exist"
            )
        _check_writable(path, folder, creating=True)
        return
    if not path.is_file():
        raise ScorecardError(f"{path}: is not a regular file, so it cannot be a workspace")
    if path.stat().st_size == 0 and not _journal_bytes(path):
        if not create:
            raise ScorecardError(
                f"{path}: the file is empty (0 bytes), not a workspace; "
                f"`scorecard init {path}` makes a new workspace there"
            )
        _check_writable(path, folder, creating=True)
        return
    _check_writable(path, folder, creating=False)


def _journal_bytes(path: Path) -> int:
    """Bytes in the ``-wal`` or ``-journal`` beside ``path``. Pages may live there (WAL) or be
    restored from there (rollback) after a crash: then the file's own size proves nothing."""
    sides = (Path(f"{path}-wal"), Path(f"{path}-journal"))
    return sum(side.stat().st_size for side in sides if side.is_file())


def _check_database_file(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a file that is not SQLite or is cut short, reading it through SQLite's own handle.

    Never open the workspace file a second time in this process: closing any descriptor of a
    file drops every POSIX lock the process holds on it, SQLite's included, and other
    connections could then checkpoint under this process's readers (a known way to corrupt a
    database). Sizes come from ``os.stat``, which opens nothing.
    """
    try:
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
    except sqlite3.DatabaseError as error:
        code = sqlite_code(error)
        if code == 26:  # SQLITE_NOTADB
            raise ScorecardError(
                f"{path}: is not a scorecard workspace (not an SQLite database)"
            ) from None
        if code == 11:  # SQLITE_CORRUPT: most often a file cut short by a copy or a full disk
            raise ScorecardError(
                f"{path}: the workspace file is truncated or damaged "
                f"({path.stat().st_size} bytes); restore it from a backup"
            ) from None
        raise
    if _journal_bytes(path):
        return
    size, expected = path.stat().st_size, page_size * pages
    if size < expected:
        raise ScorecardError(
            f"{path}: the workspace file is truncated ({size} bytes, its header promises "
            f"{expected}); restore it from a backup"
        )


def _check_writable(path: Path, folder: Path, *, creating: bool) -> None:
    """SQLite in WAL mode writes the workspace and creates ``-wal``/``-shm`` files beside it,
    even to read; refuse a read-only file system, file or folder up front."""
    try:
        read_only_fs = bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs (Windows): rely on access()
        read_only_fs = False
    if read_only_fs:
        raise ScorecardError(
            f"{path}: the workspace is on a read-only file system; SQLite must write beside it "
            "(copy it to a writable folder)"
        )
    if not creating and not os.access(path, os.R_OK | os.W_OK):
        raise ScorecardError(
            f"{path}: the workspace file is not readable and writable for this user "
            "(check its permissions)"
        )
    sidecars_exist = Path(f"{path}-wal").exists() and Path(f"{path}-shm").exists()
    if not os.access(folder, os.W_OK | os.X_OK) and (creating or not sidecars_exist):
        raise ScorecardError(
            f"{path}: the folder {folder} is not writable; SQLite keeps {path.name}-wal and "
            f"{path.name}-shm beside the workspace (check the folder's permissions)"
        )


def _check_is_workspace(conn: sqlite3.Connection, path: Path, create: bool) -> None:
    """Read the schema now (a damaged file fails here, not in the middle of a command), and
    refuse another program's SQLite database rather than adding tables to it. An empty SQLite
    database becomes a workspace only when ``create``."""
    version = schema_version(conn)
    tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    if version > len(MIGRATIONS):  # before anything (the journal mode) changes the file
        raise ScorecardError(_newer_schema(f"{path}: ", version))
    if version == 0 and tables:
        raise ScorecardError(
            f"{path}: is an SQLite database but not a scorecard workspace (it holds another "
            "program's tables and no scorecard schema version)"
        )
    if version == 0 and not create:
        raise ScorecardError(
            f"{path}: is an empty SQLite database, not a workspace; "
            f"`scorecard init {path}` makes a new workspace there"
        )


class WorkspaceConnection(sqlite3.Connection):
    """A workspace connection that knows which thread's ``write_transaction`` it is in.

    ``writer`` is the ident of the thread whose outermost ``write_transaction`` is open (None
    outside one); ``claim`` makes taking that role atomic between threads.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.writer: int | None = None
        self.claim = threading.Lock()


class ConnectionShared(ScorecardError):
    """A write was attempted on a connection in the middle of another caller's transaction."""


class WorkspaceBusy(ScorecardError):
    """Another connection held the write lock for longer than ``BUSY_TIMEOUT_MS``."""


def _begin_immediate(conn: sqlite3.Connection) -> None:
    """``BEGIN IMMEDIATE``, waiting up to ``BUSY_TIMEOUT_MS`` for the write lock; a lock held
    longer becomes one sentence, never SQLite's bare "database is locked"."""
    try:
        with write_turns.waiting_for_lock():
            conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        if sqlite_code(error) != 5:  # SQLITE_BUSY
            raise
        raise WorkspaceBusy(
            f"the workspace stayed busy for {BUSY_TIMEOUT_MS // 1000} s (another program held "
            "its write lock); nothing was saved: try again"
        ) from None


def open_workspace(path: str | Path, *, create: bool = True) -> sqlite_utils.Database:
    """Open (and migrate) the workspace at ``path``; the one way to open the database.

    WAL journal, foreign keys on, a 30 s busy timeout, autocommit connection usable from any
    thread. With ``create=False`` a missing or empty (0-byte) file raises ``ScorecardError``;
    with ``create=True`` either becomes a new workspace. Every other file that cannot be a
    workspace (a folder, not SQLite, truncated, damaged, of a newer schema, another program's
    database, read-only) raises ``ScorecardError`` with one sentence naming ``path``.
    """
    path = Path(path)
    try:
        _check_workspace_file(path, create)
    except OSError as error:  # the file changed between two looks at it
        raise ScorecardError(f"{path}: cannot open the workspace: {error.strerror}") from None
    conn = None
    try:
        if create:
            private_files.create_private(path)  # its -wal and -shm get the same mode
        conn = sqlite3.connect(
            str(path),
            check_same_thread=False,
            isolation_level=None,
            timeout=BUSY_TIMEOUT_MS / 1000,
            factory=WorkspaceConnection,
        )
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        _check_database_file(conn, path)
        _check_is_workspace(conn, path, create)
        if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        # FULL: a commit is on disk before it returns, so a save reported done survives a power
        # loss too (about 2 ms a commit here); NORMAL would only survive a crash of the app.
        conn.execute("PRAGMA synchronous = FULL")
        _migrate(conn, path)
        staged_runs.sweep_abandoned(conn)  # what an import killed midway had staged
    except sqlite3.Error as error:
        if conn is not None:
            conn.close()
        raise ScorecardError(
            f"{path}: cannot open the workspace: {storage_problem(error)}"
        ) from error
    except BaseException:
        if conn is not None:
            conn.close()
        raise
    return workspace_file.remember(sqlite_utils.Database(conn, execute_plugins=False))


@contextlib.contextmanager
def write_transaction(
    db: sqlite_utils.Database, action: str = "edit"
) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``; ``ROLLBACK`` and re-raise on any error.

    Called again inside its own transaction (same connection, same thread), it becomes a
    savepoint of that transaction. A transaction another thread holds on this connection, or
    one not opened here (a bare ``BEGIN``), is never joined: ``ConnectionShared`` is raised
    before anything is written. sqlite-utils write methods called inside join the transaction.
    ``action`` is what the write does for the role check (``labeling.workspace.roles.PERMISSIONS``):
    ``"judge"`` or ``"review"`` for writes annotators may do; the default is admin only.
    """
    conn = db.conn
    me = threading.get_ident()
    claim = getattr(conn, "claim", None)
    if claim is None:
        raise ScorecardError("open the workspace with labeling.workspace.store.open_workspace")
    with claim:
        nested = conn.writer == me
        if not nested:
            if conn.writer is not None or conn.in_transaction:
                raise ConnectionShared(
                    "this workspace connection is in the middle of another caller's "
                    "transaction; each session and thread needs a connection of its own "
                    "(nothing was saved)"
                )
            conn.writer = me
    if nested:
        roles.check_current(db, action)
        with db.atomic():
            yield conn
        return
    try:
        _begin_immediate(conn)
        workspace_file.check_unchanged(db)  # never "save" into a deleted or replaced file
        roles.check_current(db, action)  # under the write lock: sees the role as stored now
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")
    finally:
        conn.writer = None
