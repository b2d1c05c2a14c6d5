"""Documents, chunk sets and chunk spans as stored (schema: ``migrations.m013_chunk_sets``).

Conventions
- A document is (id, version); its *current* version is the one imported last. Offsets are
  Python string indices into ``documents.text`` (code points), ``end`` exclusive.
- A chunk set is a named chunking; a chunk belongs to one or more chunk sets and has at most one
  span (document, version, start, end). Chunks in no chunk set (workspaces made before chunk
  sets, placeholders) belong to every run's labels: see ``foreign_chunk_ids``.
- A run may name the chunk set it retrieves from (``runs.chunk_set``); the versioning fields of
  a run (``RUN_VERSION_FIELDS``) say what else a score depends on.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import pandas as pd
import sqlite_utils

from labeling.errors import ScorecardError
from labeling.workspace import contents
from labeling.workspace.store import write_transaction

# Columns of ``runs`` that pin down what produced a run, with their labels for people.
RUN_VERSION_FIELDS: dict[str, str] = {
    "chunk_set": "Chunk set",
    "index_build": "Index build",
    "chunk_size": "Chunk size",
    "embedding_model": "Embedding model",
    "query_set_version": "Query set version",
}


@dataclass(frozen=True)
class ChunkSet:
    """A chunk set's row: ``size`` and ``overlap`` as the team stated them (None: not stated)."""

    name: str
    splitter: str | None
    size: int | None
    overlap: int | None
    notes: str | None
    created_at: str


def chunk_set_names(db: sqlite_utils.Database) -> list[str]:
    """Names of the chunk sets, oldest first."""
    return [r[0] for r in db.conn.execute("SELECT name FROM chunk_sets ORDER BY rowid")]


def get_chunk_set(db: sqlite_utils.Database, name: str) -> ChunkSet:
    """The chunk set ``name``; ``ScorecardError`` naming the known ones when there is none."""
    row = db.conn.execute(
        "SELECT name, splitter, size, overlap, notes, created_at FROM chunk_sets WHERE name = ?",
        [name],
    ).fetchone()
    if row is None:
        known = ", ".join(chunk_set_names(db)) or "none"
        raise ScorecardError(f"no chunk set named {name!r} (chunk sets: {known})")
    return ChunkSet(*row)


def chunk_sets_table(db: sqlite_utils.Database) -> pd.DataFrame:
    """One row per chunk set: name, splitter, size, overlap, chunks, documents, runs, created_at."""
    return pd.read_sql_query(
        """
        SELECT s.name, s.splitter, s.size, s.overlap,
               (SELECT count(*) FROM chunk_set_members m WHERE m.chunk_set = s.name) AS chunks,
               (SELECT count(DISTINCT p.doc_id) FROM chunk_set_members m
                JOIN chunk_spans p ON p.chunk_id = m.chunk_id WHERE m.chunk_set = s.name)
                   AS documents,
               (SELECT count(*) FROM runs r WHERE r.chunk_set = s.name AND NOT r.importing)
                   AS runs,
               s.created_at
        FROM chunk_sets s ORDER BY s.rowid
        """,
        db.conn,
    )


def describe_chunk_sets(db: sqlite_utils.Database) -> str | None:
    """The chunks of each chunk set in words ("sections 88, small 312"); None when there is at
    most one chunk set (every chunk then belongs to the one chunking or to none)."""
    table = chunk_sets_table(db)
    if len(table) < 2:
        return None
    return ", ".join(f"{name} {int(n):,}" for name, n in zip(table["name"], table["chunks"],
                                                            strict=True))


def chunk_spans(db: sqlite_utils.Database, chunk_set: str) -> pd.DataFrame:
    """The spans of a chunk set's chunks, in file order: chunk_id, doc_id, doc_version, start,
    end (int64). Chunks without a span are left out."""
    get_chunk_set(db, chunk_set)
    frame = pd.read_sql_query(
        'SELECT p.chunk_id, p.doc_id, p.doc_version, p.start, p."end" AS "end"'
        " FROM chunk_set_members m JOIN chunk_spans p ON p.chunk_id = m.chunk_id"
        " WHERE m.chunk_set = ? ORDER BY m.position",
        db.conn,
        params=[chunk_set],
    )
    return frame.astype({"chunk_id": "string", "doc_id": "string", "doc_version": "string",
                         "start": "int64", "end": "int64"})


def member_ids(db: sqlite_utils.Database, chunk_set: str) -> pd.Index:
    """The chunk ids of a chunk set (string index)."""
    rows = db.conn.execute(
        "SELECT chunk_id FROM chunk_set_members WHERE chunk_set = ? ORDER BY position",
        [chunk_set],
    ).fetchall()
    return pd.Index([r[0] for r in rows], dtype="string")


def foreign_chunk_ids(db: sqlite_utils.Database, chunk_set: str) -> pd.Index:
    """Chunk ids that belong to some other chunk set and not to ``chunk_set``: the labels a run
    of ``chunk_set`` must not be scored against (they describe another chunking's units)."""
    rows = db.conn.execute(
        "SELECT DISTINCT chunk_id FROM chunk_set_members WHERE chunk_set <> ?1"
        " AND chunk_id NOT IN (SELECT chunk_id FROM chunk_set_members WHERE chunk_set = ?1)",
        [chunk_set],
    ).fetchall()
    return pd.Index([r[0] for r in rows], dtype="string")


def keep_chunk_set_labels(
    db: sqlite_utils.Database, chunk_set: str | None, labels: pd.DataFrame,
    column: str = "doc_id",
) -> pd.DataFrame:
    """``labels`` (one row per labelled pair, the chunk id in ``column``) without the rows of
    chunks that belong only to chunk sets other than ``chunk_set``: the labels a run of
    ``chunk_set`` is scored on. All of them for ``None``."""
    if chunk_set is None or labels.empty:
        return labels
    foreign = foreign_chunk_ids(db, chunk_set)
    if foreign.empty:
        return labels
    return labels.loc[~labels[column].astype("string").isin(foreign)].reset_index(drop=True)


def documents_table(db: sqlite_utils.Database) -> pd.DataFrame:
    """One row per document at its current version: id, version, title, characters, versions."""
    return pd.read_sql_query(
        """
        SELECT d.id, d.version, d.title, length(d.text) AS characters,
               (SELECT count(*) FROM documents o WHERE o.id = d.id) AS versions
        FROM documents d
        WHERE d.rowid = (SELECT max(rowid) FROM documents o WHERE o.id = d.id)
        ORDER BY d.id
        """,
        db.conn,
    )


def current_versions(db: sqlite_utils.Database) -> dict[str, str]:
    """Document id -> its current (last imported) version."""
    return dict(db.conn.execute(
        "SELECT id, version FROM documents d"
        " WHERE rowid = (SELECT max(rowid) FROM documents o WHERE o.id = d.id)"
    ).fetchall())


def document_texts(db: sqlite_utils.Database, keys: list[tuple[str, str]]) -> dict:
    """(document id, version) -> text, for the given keys that exist."""
    texts = {}
    for doc_id, version in keys:
        text = stored_document_text(db.conn, doc_id, version)
        if text is not None:
            texts[(doc_id, version)] = text
    return texts


# ---------------------------------------------------------------------------------------------
# Runs


def run_chunk_set(db: sqlite_utils.Database, run: str) -> str | None:
    """The chunk set ``run`` retrieves from, or None when not stated."""
    return contents.get_run(db, run).get("chunk_set")


def infer_chunk_set(
    conn: sqlite3.Connection, run_id: int, run_name: str
) -> tuple[str | None, str | None]:
    """(chunk set, sentence) for a run that names no chunk set, from its chunk ids.

    Rule: when the workspace holds chunk sets and exactly one of them holds every retrieved
    chunk that belongs to any chunk set, the run retrieves from it (the sentence says it was
    inferred). When several hold them all (chunk sets that share the retrieved ids) or none
    does (ids of several chunk sets mixed), nothing is inferred and the sentence says the run
    is scored against every chunk set's labels until its chunk set is named. (None, None) when
    the workspace holds no chunk set or no retrieved chunk belongs to one."""
    counts = dict(conn.execute(
        "SELECT m.chunk_set, count(*) FROM (SELECT DISTINCT chunk_id FROM run_results"
        " WHERE run_id = ?) r JOIN chunk_set_members m ON m.chunk_id = r.chunk_id"
        " GROUP BY m.chunk_set", [run_id]).fetchall())
    if not counts:
        return None, None
    (members,) = conn.execute(
        "SELECT count(*) FROM (SELECT DISTINCT chunk_id FROM run_results WHERE run_id = ?) r"
        " WHERE r.chunk_id IN (SELECT chunk_id FROM chunk_set_members)", [run_id]).fetchone()
    holding = sorted(name for name, n in counts.items() if n == members)
    if len(holding) == 1:
        return holding[0], (f"run {run_name!r} names no chunk set: every retrieved chunk belongs "
                            f"to chunk set {holding[0]!r}, so it is scored on that chunk set's "
                            "labels")
    found = ", ".join(f"{name} ({n} chunks)" for name, n in sorted(counts.items()))
    why = ("its chunks belong to several chunk sets alike" if holding
           else "its chunks come from different chunk sets")
    return None, (f"run {run_name!r} names no chunk set and {why} ({found}): it is scored "
                  "against every chunk set's labels until its chunk set is named")


def runs_of(db: sqlite_utils.Database, chunk_set: str) -> list[str]:
    """Names of the runs that retrieve from ``chunk_set``, oldest first."""
    return [r[0] for r in db.conn.execute(
        "SELECT name FROM runs WHERE chunk_set = ? AND NOT importing ORDER BY id", [chunk_set])]


def runs_versioning(db: sqlite_utils.Database) -> pd.DataFrame:
    """One row per run: name and its ``RUN_VERSION_FIELDS`` (what a score depends on)."""
    columns = ", ".join(RUN_VERSION_FIELDS)
    return pd.read_sql_query(
        f"SELECT name, {columns} FROM runs WHERE NOT importing ORDER BY id", db.conn)


def set_run_versioning(db: sqlite_utils.Database, run: str, **fields: object) -> None:
    """Set versioning fields of ``run`` (keys of ``RUN_VERSION_FIELDS``; '' or None clears one).

    ``chunk_set`` must name a chunk set; ``chunk_size`` must be a whole number. Admins only.
    """
    unknown = set(fields) - set(RUN_VERSION_FIELDS)
    if unknown:
        raise ScorecardError(f"unknown run fields {sorted(unknown)}; "
                             f"one of {', '.join(RUN_VERSION_FIELDS)}")
    values = {k: (None if v in ("", None) else v) for k, v in fields.items()}
    if values.get("chunk_set") is not None:
        get_chunk_set(db, str(values["chunk_set"]))
    if values.get("chunk_size") is not None:
        try:
            values["chunk_size"] = int(str(values["chunk_size"]).strip())
        except ValueError:
            raise ScorecardError(
                f"chunk size must be a whole number, not {values['chunk_size']!r}") from None
    run_id = contents.get_run(db, run)["id"]
    if not values:
        return
    with write_transaction(db, action="edit_runs") as conn:
        assignments = ", ".join(f"{k} = ?" for k in values)
        conn.execute(f"UPDATE runs SET {assignments} WHERE id = ?", [*values.values(), run_id])


# Reads and writes used by labeling.synthetic, labeling.evaluation and labeling.report


def document_attribute_votes(db: sqlite_utils.Database) -> list[tuple[str, str, str]]:
    """(doc_id, attribute name, value) once for each distinct (query, chunk) pair graded 1 or
    more whose chunk has a document and whose query has that attribute (not NULL)."""
    return db.conn.execute(
        "SELECT c.doc_id, a.name, a.value FROM (SELECT DISTINCT chunk_id, query_id FROM judgments"
        " WHERE grade >= 1) j JOIN chunks c ON c.id = j.chunk_id"
        " JOIN query_attributes a ON a.query_id = j.query_id"
        " WHERE c.doc_id IS NOT NULL AND a.value IS NOT NULL"
    ).fetchall()


def run_chunk_spans(db: sqlite_utils.Database, run: str) -> pd.DataFrame:
    """chunk_id, doc_id, doc_version, start, end (offsets as in ``chunk_spans``) of the chunks
    run ``run`` retrieved that have a span."""
    return pd.read_sql_query(
        'SELECT p.chunk_id, p.doc_id, p.doc_version, p.start, p."end" AS "end"'
        " FROM chunk_spans p WHERE p.chunk_id IN (SELECT DISTINCT chunk_id FROM run_results"
        " WHERE run_id = (SELECT id FROM runs WHERE name = ?))", db.conn, params=[run])
# ---------------------------------------------------------------------------------------------
# Reads and writes used by labeling.files and labeling.rechunking


def has_chunk_set(conn: sqlite3.Connection, name: str) -> bool:
    """Whether a chunk set is named ``name``."""
    return conn.execute("SELECT 1 FROM chunk_sets WHERE name = ?", [name]).fetchone() is not None


def stored_document_text(conn: sqlite3.Connection, doc_id: str, version: str) -> str | None:
    """The text of document ``doc_id`` at ``version``, or None when it is not stored."""
    row = conn.execute(
        "SELECT text FROM documents WHERE id = ? AND version = ?", [doc_id, version]
    ).fetchone()
    return None if row is None else row[0]


def has_document(conn: sqlite3.Connection, doc_id: str) -> bool:
    """Whether some version of document ``doc_id`` is stored."""
    return conn.execute("SELECT 1 FROM documents WHERE id = ?", [doc_id]).fetchone() is not None


def insert_document(
    conn: sqlite3.Connection, doc_id: str, version: str, title: str | None, text: str,
    metadata: str, imported_at: str,
) -> None:
    """Store a new (document, version); ``metadata`` is JSON text."""
    conn.execute(
        "INSERT INTO documents (id, version, title, text, metadata, imported_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [doc_id, version, title, text, metadata, imported_at],
    )


def latest_document(
    conn: sqlite3.Connection, doc_id: str, version: str | None = None
) -> tuple[str, str, str | None] | None:
    """(version, text, title) of document ``doc_id``: at ``version``, or the last imported
    version when None; None when it is not stored."""
    sql = "SELECT version, text, title FROM documents WHERE id = ?"
    params: list = [doc_id]
    if version is not None:
        sql += " AND version = ?"
        params.append(version)
    row = conn.execute(sql + " ORDER BY rowid DESC LIMIT 1", params).fetchone()
    return None if row is None else (row[0], row[1], row[2])


def insert_chunk_set(
    conn: sqlite3.Connection, name: str, splitter: str | None, size: int | None,
    overlap: int | None, notes: str | None, created_at: str,
) -> None:
    """Store a new chunk set's row (sizes in characters; None: not stated)."""
    conn.execute(
        "INSERT INTO chunk_sets (name, splitter, size, overlap, notes, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [name, splitter, size, overlap, notes, created_at],
    )


def stored_chunk_span(conn: sqlite3.Connection, chunk_id: str) -> tuple | None:
    """(text, doc_id, doc_version, start, end) of a stored (not placeholder) chunk, the span
    fields None when it has no span; None when there is no such chunk."""
    return conn.execute(
        'SELECT c.text, p.doc_id, p.doc_version, p.start, p."end" FROM chunks c'
        " LEFT JOIN chunk_spans p ON p.chunk_id = c.id WHERE c.id = ? AND c.placeholder = 0",
        [chunk_id],
    ).fetchone()


def add_member(
    conn: sqlite3.Connection, chunk_set: str, chunk_id: str, position: int,
    span: tuple[str, str, int, int],
) -> None:
    """Make ``chunk_id`` the ``position``-th chunk of ``chunk_set``, with ``span`` (doc_id,
    doc_version, start, end) unless the chunk has one already."""
    conn.execute(
        'INSERT OR IGNORE INTO chunk_spans (chunk_id, doc_id, doc_version, start, "end")'
        " VALUES (?, ?, ?, ?, ?)", [chunk_id, *span],
    )
    conn.execute(
        "INSERT INTO chunk_set_members (chunk_set, chunk_id, position) VALUES (?, ?, ?)",
        [chunk_set, chunk_id, position],
    )


def current_documents(conn: sqlite3.Connection) -> list[tuple[str, str, str | None, str]]:
    """(id, version, title, text) of every document at its current (last imported) version,
    by id."""
    return conn.execute(
        "SELECT id, version, title, text FROM documents d"
        " WHERE rowid = (SELECT max(rowid) FROM documents o WHERE o.id = d.id) ORDER BY id"
    ).fetchall()


