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
- ``judgments`` is append-only (triggers abort UPDATE and DELETE); ``current_judgments`` is the
  latest row per (query, chunk, annotator). ``grade`` is NULL when the annotator could not judge.
- ``flags`` is a JSON object: ``unsure``, ``cant_judge``, ``adjudicated``, ``generator`` (bools).
- Segment attributes of queries live in ``query_attributes(query_id, name, value)``: segmenting by
  attribute X is ``SELECT query_id, value FROM query_attributes WHERE name = 'X'``.
- Timestamps are ISO-8601 UTC strings (``2026-05-09T07:35:25.123456+00:00``).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

import sqlite_utils

from labeling import (
    auth,
    schema_access,
    schema_dashboard,
    schema_labeling,
    schema_synthetic,
    workspace_file,
)
from labeling.errors import InputError, ScorecardError, storage_problem
from labeling.sqlscript import execute_script

BUSY_TIMEOUT_MS = 30_000

GRADED_SCALE: list[tuple[int, str, str]] = [
    (0, "not relevant", "The chunk does not help answer the query."),
    (1, "partially relevant", "The chunk touches the topic but does not answer the query."),
    (2, "relevant", "The chunk answers part of the query."),
    (3, "highly relevant", "The chunk answers the query fully."),
]
BINARY_SCALE: list[tuple[int, str, str]] = [
    (0, "not relevant", "The chunk does not help answer the query."),
    (1, "relevant", "The chunk helps answer the query."),
]

JUDGMENT_FLAGS = ("unsure", "cant_judge", "adjudicated", "generator", "confirm")


def utc_now() -> str:
    """The current time as an ISO-8601 UTC string, the workspace's timestamp format."""
    return datetime.now(UTC).isoformat()


# ---------------------------------------------------------------------------------------------
# Schema migrations: migration i brings user_version from i to i + 1. Never edit a released one;
# append a new function instead.


def _migration_1(conn: sqlite3.Connection) -> None:
    execute_script(
        conn,
        """
        CREATE TABLE scale (
            grade INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            guideline TEXT NOT NULL DEFAULT ''
        );
        CREATE TABLE chunks (
            id TEXT PRIMARY KEY,
            doc_id TEXT,
            title TEXT,
            text TEXT,
            metadata TEXT NOT NULL DEFAULT '{}',
            placeholder INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX chunks_doc_id ON chunks(doc_id);
        CREATE TABLE queries (
            id TEXT PRIMARY KEY,
            text TEXT,
            source TEXT CHECK (source IN ('real', 'synthetic')),
            split TEXT CHECK (split IN ('dev', 'test')),
            metadata TEXT NOT NULL DEFAULT '{}',
            placeholder INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE query_attributes (
            query_id TEXT NOT NULL REFERENCES queries(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            value TEXT,
            PRIMARY KEY (query_id, name)
        );
        CREATE INDEX query_attributes_name ON query_attributes(name, value);
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            index_build TEXT,
            chunk_size INTEGER,
            embedding_model TEXT,
            query_set_version TEXT,
            created_at TEXT NOT NULL,
            notes TEXT,
            metadata TEXT NOT NULL DEFAULT '{}'
        );
        CREATE TABLE run_results (
            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            query_id TEXT NOT NULL REFERENCES queries(id),
            chunk_id TEXT NOT NULL REFERENCES chunks(id),
            rank INTEGER,
            score REAL NOT NULL,
            UNIQUE (run_id, query_id, chunk_id)
        );
        CREATE TABLE judgments (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            query_id TEXT NOT NULL REFERENCES queries(id),
            chunk_id TEXT NOT NULL REFERENCES chunks(id),
            grade INTEGER,
            annotator TEXT NOT NULL,
            created_at TEXT NOT NULL,
            note TEXT,
            flags TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(flags))
        );
        CREATE INDEX judgments_pair ON judgments(query_id, chunk_id, annotator);
        CREATE INDEX judgments_chunk ON judgments(chunk_id);
        CREATE TRIGGER judgments_no_update BEFORE UPDATE ON judgments
        BEGIN SELECT RAISE(ABORT, 'judgments are append-only: UPDATE is not allowed'); END;
        CREATE TRIGGER judgments_no_delete BEFORE DELETE ON judgments
        BEGIN SELECT RAISE(ABORT, 'judgments are append-only: DELETE is not allowed'); END;
        CREATE TRIGGER judgments_grade_in_scale BEFORE INSERT ON judgments
        WHEN NEW.grade IS NOT NULL AND NOT EXISTS (SELECT 1 FROM scale WHERE grade = NEW.grade)
        BEGIN SELECT RAISE(ABORT, 'grade is not on the workspace scale'); END;
        CREATE VIEW current_judgments AS
            SELECT j.* FROM judgments j
            JOIN (SELECT max(id) AS id FROM judgments GROUP BY query_id, chunk_id, annotator)
            USING (id);
        """,
    )


# Each later feature owns the migration of its tables, in its own module.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _migration_1,
    schema_labeling.migrate,
    schema_synthetic.migrate,
    schema_dashboard.migrate,
    schema_access.migrate,
    schema_access.migrate_sessions,
]


def schema_version(db: sqlite_utils.Database) -> int:
    """The workspace's schema version (``PRAGMA user_version``)."""
    return int(db.conn.execute("PRAGMA user_version").fetchone()[0])


def _migrate(conn: sqlite3.Connection, path: Path | None = None) -> None:
    """Bring the schema to ``len(MIGRATIONS)``; a newer one is refused before any write."""
    where = f"{path}: " if path is not None else ""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == len(MIGRATIONS):
        return
    if version > len(MIGRATIONS):
        raise ScorecardError(_newer_schema(where, version))
    conn.execute("BEGIN IMMEDIATE")  # re-read under the write lock: another process may migrate
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
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


# The first 100 bytes of an SQLite file: its header (https://sqlite.org/fileformat.html).
_SQLITE_MAGIC = b"SQLite format 3\x00"
_HEADER_BYTES = 100


def _check_workspace_file(path: Path, create: bool) -> None:
    """Refuse, with a sentence naming ``path``, what SQLite would fail on or silently misread:
    a folder, a missing or empty file (unless creating), a file that is not SQLite or is cut
    short, and a place SQLite cannot write its ``-wal``/``-shm`` files.
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
    size = path.stat().st_size
    # Pages may live in a -wal file (WAL) or be restored from a -journal (rollback) after a
    # crash: with either beside it, the file's own size proves nothing.
    wal_size = sum(
        side.stat().st_size
        for side in (Path(f"{path}-wal"), Path(f"{path}-journal"))
        if side.is_file()
    )
    if size == 0 and wal_size == 0:
        if not create:
            raise ScorecardError(
                f"{path}: the file is empty (0 bytes), not a workspace; "
                f"`scorecard init {path}` makes a new workspace there"
            )
        _check_writable(path, folder, creating=True)
        return
    try:
        with open(path, "rb") as handle:
            header = handle.read(_HEADER_BYTES)
    except OSError as error:
        raise ScorecardError(f"{path}: cannot read the workspace: {error.strerror}") from None
    if size and not header.startswith(_SQLITE_MAGIC):
        raise ScorecardError(f"{path}: is not a scorecard workspace (not an SQLite database)")
    expected = _size_from_header(header)
    if size and (len(header) < _HEADER_BYTES or (wal_size == 0 and size < (expected or 0))):
        promised = f", its header promises {expected}" if expected else ""
        raise ScorecardError(
            f"{path}: the workspace file is truncated ({size} bytes{promised}); "
            "restore it from a backup"
        )
    _check_writable(path, folder, creating=False)


def _size_from_header(header: bytes) -> int | None:
    """The file size the header records (page size x page count), when the header vouches for
    it (its change counter matches the version-valid-for number), else None."""
    if len(header) < _HEADER_BYTES:
        return None
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    if not pages or header[24:28] != header[92:96]:
        return None
    return page_size * pages


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
    version = conn.execute("PRAGMA user_version").fetchone()[0]
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
        conn = sqlite3.connect(
            str(path),
            check_same_thread=False,
            isolation_level=None,
            timeout=BUSY_TIMEOUT_MS / 1000,
            factory=WorkspaceConnection,
        )
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA foreign_keys = ON")
        _check_is_workspace(conn, path, create)
        if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        # FULL: a commit is on disk before it returns, so a save reported done survives a power
        # loss too (about 2 ms a commit here); NORMAL would only survive a crash of the app.
        conn.execute("PRAGMA synchronous = FULL")
        _migrate(conn, path)
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
    ``action`` is what the write does for the role check (``labeling.auth.PERMISSIONS``):
    ``"judge"`` or ``"review"`` for writes annotators may do; the default is admin only.
    """
    conn = db.conn
    me = threading.get_ident()
    claim = getattr(conn, "claim", None)
    if claim is None:
        raise ScorecardError("open the workspace with labeling.store.open_workspace")
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
        auth.check_current(db, action)
        with db.atomic():
            yield conn
        return
    try:
        conn.execute("BEGIN IMMEDIATE")
        workspace_file.check_unchanged(db)  # never "save" into a deleted or replaced file
        auth.check_current(db, action)  # under the write lock: sees the role as stored now
        yield conn
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")
    finally:
        conn.writer = None


# ---------------------------------------------------------------------------------------------
# Scale


def parse_scale(spec: str) -> list[tuple[int, str, str]]:
    """``"graded"``, ``"binary"`` or a custom ``"0:not relevant,1:relevant"`` list."""
    if spec == "graded":
        return list(GRADED_SCALE)
    if spec == "binary":
        return list(BINARY_SCALE)
    scale: list[tuple[int, str, str]] = []
    for item in spec.split(","):
        grade, sep, name = item.partition(":")
        try:
            value = int(grade.strip())
        except ValueError:
            value = None
        if not sep or value is None or not name.strip():
            raise ScorecardError(
                f"scale item {item.strip()!r} is not GRADE:NAME "
                "(use graded, binary or e.g. '0:not relevant,1:relevant')"
            )
        scale.append((value, name.strip(), ""))
    if len({g for g, _, _ in scale}) != len(scale):
        raise ScorecardError("scale lists a grade twice")
    return sorted(scale)


def set_scale(db: sqlite_utils.Database, scale: Sequence[tuple[int, str, str]]) -> None:
    """Replace the grading scale. Refused when existing judgments use a grade not in it."""
    grades = {int(g) for g, _, _ in scale}
    with write_transaction(db) as conn:
        used = {
            r[0] for r in conn.execute("SELECT DISTINCT grade FROM judgments WHERE grade NOT NULL")
        }
        if used - grades:
            raise ScorecardError(
                f"judgments use grades {sorted(used - grades)} that the new scale lacks"
            )
        conn.execute("DELETE FROM scale")
        conn.executemany("INSERT INTO scale (grade, name, guideline) VALUES (?, ?, ?)", scale)


def get_scale(db: sqlite_utils.Database) -> list[tuple[int, str, str]]:
    """The scale as (grade, name, guideline) rows, lowest grade first."""
    return [
        tuple(r) for r in db.conn.execute("SELECT grade, name, guideline FROM scale ORDER BY grade")
    ]


def init_workspace(
    path: str | Path, *, scale: str | Sequence[tuple[int, str, str]] = "graded"
) -> sqlite_utils.Database:
    """Create (or open) a workspace and set its scale if it has none yet."""
    db = open_workspace(path)
    rows = parse_scale(scale) if isinstance(scale, str) else list(scale)
    if not get_scale(db):
        set_scale(db, rows)
    elif [g for g, _, _ in get_scale(db)] != [g for g, _, _ in rows] and scale != "graded":
        raise ScorecardError(f"{path}: workspace already has a different scale")
    return db


# ---------------------------------------------------------------------------------------------
# Judgments (append-only)


def add_judgment(
    db: sqlite_utils.Database,
    query_id: str,
    chunk_id: str,
    grade: int | None,
    annotator: str,
    *,
    note: str | None = None,
    flags: dict[str, bool] | None = None,
    created_at: str | None = None,
) -> int:
    """Append one judgment and return its id. ``grade=None`` means the annotator could not judge.

    Raises ``InputError`` for a grade off the scale or an unknown query/chunk id.
    """
    flags = {k: bool(v) for k, v in (flags or {}).items() if v}
    unknown = set(flags) - set(JUDGMENT_FLAGS)
    if unknown:
        raise InputError(f"unknown judgment flags {sorted(unknown)}", source="judgment")
    with write_transaction(db, action="judge") as conn:
        locked = conn.execute(  # a locked split (labeling.dashboard.lock_split) is frozen
            "SELECT q.split FROM queries q JOIN split_locks l ON l.split = q.split WHERE q.id = ?",
            (query_id,),
        ).fetchone()
        if locked:
            raise ScorecardError(
                f"query {query_id!r} is in the {locked[0]} split, which is locked: "
                "its labels cannot change until the split is unlocked"
            )
        try:
            # RETURNING, not lastrowid: the id of this statement's row, whatever else the
            # connection or the file saw meanwhile.
            cursor = conn.execute(
                "INSERT INTO judgments"
                " (query_id, chunk_id, grade, annotator, created_at, note, flags)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                (
                    query_id,
                    chunk_id,
                    grade,
                    annotator,
                    created_at or utc_now(),
                    note,
                    json.dumps(flags, sort_keys=True),
                ),
            )
            judgment_id = int(cursor.fetchone()[0])
        except sqlite3.IntegrityError as error:
            if "FOREIGN KEY" in str(error):
                raise InputError(
                    f"unknown query {query_id!r} or chunk {chunk_id!r}", source="judgment"
                ) from error
            raise InputError(f"grade {grade} is not on the scale", source="judgment") from error
        return judgment_id


def judgment_history(
    db: sqlite_utils.Database, query_id: str | None = None, chunk_id: str | None = None
) -> list[dict]:
    """All judgments (oldest first), optionally for one query and/or chunk; flags decoded."""
    where, params = [], []
    if query_id is not None:
        where.append("query_id = ?")
        params.append(query_id)
    if chunk_id is not None:
        where.append("chunk_id = ?")
        params.append(chunk_id)
    sql = "SELECT * FROM judgments" + (" WHERE " + " AND ".join(where) if where else "")
    rows = list(db.query(sql + " ORDER BY id", params))
    for row in rows:
        row["flags"] = json.loads(row["flags"])
    return rows


# ---------------------------------------------------------------------------------------------
# Small read helpers for the app


def counts(db: sqlite_utils.Database) -> dict[str, int]:
    """Row counts of the main tables (chunks, queries, runs, run_results, judgments)."""
    tables = ("chunks", "queries", "query_attributes", "runs", "run_results", "judgments")
    return {t: db.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}


def run_names(db: sqlite_utils.Database) -> list[str]:
    """Names of the stored runs, oldest first."""
    return [r[0] for r in db.conn.execute("SELECT name FROM runs ORDER BY id")]


def get_run(db: sqlite_utils.Database, name: str) -> dict:
    """The ``runs`` row of ``name`` (metadata decoded); ``ScorecardError`` if there is none."""
    rows = list(db.query("SELECT * FROM runs WHERE name = ?", [name]))
    if not rows:
        raise ScorecardError(f"no run named {name!r} (runs: {', '.join(run_names(db)) or 'none'})")
    row = rows[0]
    row["metadata"] = json.loads(row["metadata"])
    return row


def query_segments(db: sqlite_utils.Database, attribute: str) -> dict[str, str | None]:
    """query_id -> value of segment attribute ``attribute`` (queries lacking it are absent)."""
    return dict(
        db.conn.execute(
            "SELECT query_id, value FROM query_attributes WHERE name = ?", [attribute]
        ).fetchall()
    )
