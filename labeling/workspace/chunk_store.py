"""Chunks as stored (table ``chunks``): their texts and titles for the judging card, the
synthetic generator, the search baseline and the report, and the bulk writes of a chunk import.

Conventions: placeholders (``placeholder = 1``) are ids a label or a run named before the chunk
itself was imported; "imported" reads leave them out. Texts are '' where a chunk has none unless
a function says None.
"""

from __future__ import annotations

import json
import sqlite3

import pandas as pd
import sqlite_utils


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


def upsert_chunks(conn: sqlite3.Connection, rows: list[tuple]) -> None:
    """Insert or replace chunks by id, one ``executemany``: rows of (id, doc_id, title, text,
    metadata JSON); a placeholder of that id becomes a real chunk."""
    conn.executemany(
        "INSERT INTO chunks (id, doc_id, title, text, metadata, placeholder)"
        " VALUES (?, ?, ?, ?, ?, 0)"
        " ON CONFLICT (id) DO UPDATE SET doc_id = excluded.doc_id, title = excluded.title,"
        " text = excluded.text, metadata = excluded.metadata, placeholder = 0",
        rows,
    )


def insert_chunk(
    conn: sqlite3.Connection, chunk_id: str, doc_id: str | None, title: str | None, text: str,
    metadata: str,
) -> None:
    """Store a new chunk (``metadata`` JSON text)."""
    conn.execute(
        "INSERT INTO chunks (id, doc_id, title, text, metadata, placeholder)"
        " VALUES (?, ?, ?, ?, ?, 0)",
        [chunk_id, doc_id, title, text, metadata],
    )


def chunk_id_set(conn: sqlite3.Connection) -> set[str]:
    """The ids of every chunk (placeholders too)."""
    return {row[0] for row in conn.execute("SELECT id FROM chunks")}


def search_texts(
    conn: sqlite3.Connection, fields: tuple[str, ...], chunk_set: str | None = None
) -> list[tuple[str, str]]:
    """(id, text) of every non-placeholder chunk (of ``chunk_set`` only, when given) in the
    order stored; the text is the chunk's ``fields`` (``title``, ``text``; a missing one is
    '') joined by a blank line."""
    if not fields or set(fields) - {"title", "text"}:
        raise ValueError(f"fields are among title and text, not {fields!r}")
    text = " || char(10) || char(10) || ".join(f"coalesce({f}, '')" for f in fields)
    members = "" if chunk_set is None else (
        " AND id IN (SELECT chunk_id FROM chunk_set_members WHERE chunk_set = :set)")
    return conn.execute(
        f"SELECT id, {text} FROM chunks WHERE placeholder = 0{members} ORDER BY rowid",
        {"set": chunk_set},
    ).fetchall()


def stored_chunks_frame(conn: sqlite3.Connection) -> pd.DataFrame:
    """Non-placeholder chunks in the order they were added: _id, title, text ('' when
    missing), doc_id, metadata (JSON text)."""
    return pd.read_sql_query(
        "SELECT id AS _id, coalesce(title, '') AS title, coalesce(text, '') AS text, doc_id,"
        " metadata FROM chunks WHERE placeholder = 0 ORDER BY rowid", conn)
