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

import json
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
        row = db.conn.execute(
            "SELECT text FROM documents WHERE id = ? AND version = ?", [doc_id, version]
        ).fetchone()
        if row is not None:
            texts[(doc_id, version)] = row[0]
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


def chunk_texts(db: sqlite_utils.Database) -> dict[str, str]:
    """chunk id -> text ('' when it has none) of every chunk, placeholders included."""
    return dict(db.conn.execute("SELECT id, coalesce(text, '') FROM chunks"))


def chunk_title_text(db: sqlite_utils.Database, chunk_id: str) -> tuple[str | None, str] | None:
    """(title, text or '') of a chunk, or None when there is none."""
    row = db.conn.execute(
        "SELECT title, coalesce(text, '') FROM chunks WHERE id = ?", [chunk_id]
    ).fetchone()
    return None if row is None else (row[0], row[1])


def chunk_texts_of(db: sqlite_utils.Database, chunk_ids: list[str]) -> dict[str, str | None]:
    """chunk id -> text (None when it has none) of the chunks of ``chunk_ids`` that exist."""
    return dict(db.conn.execute(
        "SELECT id, text FROM chunks WHERE id IN (SELECT value FROM json_each(?))",
        [json.dumps(chunk_ids)]).fetchall())


def imported_chunk_texts(db: sqlite_utils.Database) -> list[tuple[str, str]]:
    """(id, text or '') of every chunk that is not a placeholder, in storage order."""
    return db.conn.execute(
        "SELECT id, coalesce(text, '') FROM chunks WHERE placeholder = 0"
    ).fetchall()


def imported_chunks(db: sqlite_utils.Database) -> list[tuple[str, str, str]]:
    """(id, title or '', text or '') of every chunk that is not a placeholder, in storage
    (rowid) order."""
    return db.conn.execute(
        "SELECT id, coalesce(title, ''), coalesce(text, '') FROM chunks WHERE placeholder = 0"
        " ORDER BY rowid"
    ).fetchall()


def passages_with_text(db: sqlite_utils.Database
                       ) -> list[tuple[str, str | None, str | None, str]]:
    """(id, doc_id, title, text) of every chunk that is not a placeholder and has text, by id."""
    return db.conn.execute(
        "SELECT id, doc_id, title, text FROM chunks WHERE placeholder = 0 AND text IS NOT NULL"
        " ORDER BY id"
    ).fetchall()


def imported_chunk_metadata(db: sqlite_utils.Database) -> list[tuple[str, str | None, str | None]]:
    """(id, doc_id, metadata JSON) of every chunk that is not a placeholder."""
    return db.conn.execute(
        "SELECT id, doc_id, metadata FROM chunks WHERE placeholder = 0"
    ).fetchall()


def document_attribute_votes(db: sqlite_utils.Database) -> list[tuple[str, str, str]]:
    """(doc_id, attribute name, value) once for each distinct (query, chunk) pair graded 1 or
    more whose chunk has a document and whose query has that attribute (not NULL)."""
    return db.conn.execute(
        "SELECT c.doc_id, a.name, a.value FROM (SELECT DISTINCT chunk_id, query_id FROM judgments"
        " WHERE grade >= 1) j JOIN chunks c ON c.id = j.chunk_id"
        " JOIN query_attributes a ON a.query_id = j.query_id"
        " WHERE c.doc_id IS NOT NULL AND a.value IS NOT NULL"
    ).fetchall()


def chunk_document_ids(db: sqlite_utils.Database, chunk_ids: list[str] | None = None
                       ) -> pd.DataFrame:
    """id, doc (the chunk's ``doc_id``, else its own id) of every chunk, or of those of
    ``chunk_ids`` (one indexed lookup)."""
    if chunk_ids is None:
        return pd.read_sql_query("SELECT id, coalesce(doc_id, id) AS doc FROM chunks", db.conn)
    return pd.read_sql_query(
        "SELECT id, coalesce(doc_id, id) AS doc FROM chunks WHERE id IN"
        " (SELECT value FROM json_each(?))", db.conn, params=[json.dumps(chunk_ids)],
    )


def chunks_frame(db: sqlite_utils.Database, chunk_ids: list[str]) -> pd.DataFrame:
    """id, doc_id, text of the chunks of ``chunk_ids`` that exist (one indexed lookup)."""
    return pd.read_sql_query(
        "SELECT id, doc_id, text FROM chunks WHERE id IN (SELECT value FROM json_each(?))",
        db.conn, params=[json.dumps(chunk_ids)],
    )


def chunk_titles(db: sqlite_utils.Database, chunk_ids: list[str]) -> dict[str, str]:
    """chunk id -> title ('' when it has none) of the chunks of ``chunk_ids`` that exist."""
    return dict(db.conn.execute(
        "SELECT id, coalesce(title, '') FROM chunks WHERE id IN (SELECT value FROM json_each(?))",
        [json.dumps(chunk_ids)],
    ).fetchall())


def chunk_documents_known(db: sqlite_utils.Database) -> pd.DataFrame:
    """id, doc_id of every chunk that names its document."""
    return pd.read_sql_query("SELECT id, doc_id FROM chunks WHERE doc_id IS NOT NULL", db.conn)


def run_chunk_spans(db: sqlite_utils.Database, run: str) -> pd.DataFrame:
    """chunk_id, doc_id, doc_version, start, end (offsets as in ``chunk_spans``) of the chunks
    run ``run`` retrieved that have a span."""
    return pd.read_sql_query(
        'SELECT p.chunk_id, p.doc_id, p.doc_version, p.start, p."end" AS "end"'
        " FROM chunk_spans p WHERE p.chunk_id IN (SELECT DISTINCT chunk_id FROM run_results"
        " WHERE run_id = (SELECT id FROM runs WHERE name = ?))", db.conn, params=[run])
