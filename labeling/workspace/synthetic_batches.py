"""The generation batches' tables: ``synthetic_batches`` (one row a batch: generator, settings
as JSON, passages, calls, unmatched replies, created_at/finished_at as ISO-8601 UTC),
``synthetic_batch_passages`` (the sampled passages in order: position from 0, status
'pending'/'done'/'failed', calls, candidates, unmatched, error) and ``synthetic_unmatched``
(replies whose answer was not found in their passage).

The writers take the connection of the caller's ``write_transaction`` and neither open nor
commit a transaction of their own.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence

import pandas as pd
import sqlite_utils


def add_batch(conn: sqlite3.Connection, batch: str, generator: str, settings: dict,
              chunk_ids: Sequence[str], created_at: str) -> None:
    """Record batch ``batch`` and its passages ``chunk_ids`` (positions 0, 1, ...)."""
    conn.execute(
        "INSERT INTO synthetic_batches (id, generator, settings, passages, created_at)"
        " VALUES (?, ?, ?, ?, ?)",
        [batch, generator, json.dumps(settings), len(chunk_ids), created_at],
    )
    conn.executemany(
        "INSERT INTO synthetic_batch_passages (batch, position, chunk_id) VALUES (?, ?, ?)",
        [(batch, i, chunk_id) for i, chunk_id in enumerate(chunk_ids)],
    )


def mark_passages_done(conn: sqlite3.Connection, batch: str,
                       candidates: Iterable[tuple[int, int]]) -> None:
    """Mark the passages of ``batch`` done: ``candidates`` holds (position, candidates stored)."""
    conn.executemany(
        "UPDATE synthetic_batch_passages SET status = 'done', candidates = ?"
        " WHERE batch = ? AND position = ?",
        [(stored, batch, position) for position, stored in candidates],
    )


def finish_batch(conn: sqlite3.Connection, batch: str, finished_at: str) -> None:
    """Set the batch's ``finished_at``."""
    conn.execute("UPDATE synthetic_batches SET finished_at = ? WHERE id = ?",
                 [finished_at, batch])


def batch_settings(db: sqlite_utils.Database, batch: str) -> dict:
    """The settings a batch recorded (decoded JSON)."""
    return json.loads(db.conn.execute(
        "SELECT settings FROM synthetic_batches WHERE id = ?", [batch]).fetchone()[0])


def batch_passage_count(db: sqlite_utils.Database, batch: str) -> int:
    """How many passages the batch sampled."""
    return int(db.conn.execute("SELECT passages FROM synthetic_batches WHERE id = ?",
                               [batch]).fetchone()[0])


def passages_not_done(db: sqlite_utils.Database, batch: str
                      ) -> list[tuple[int, str, str | None, str | None, str]]:
    """(position, chunk id, doc_id, title, text or '') of the batch's passages not done, in
    position order."""
    return db.conn.execute(
        "SELECT p.position, c.id, c.doc_id, c.title, coalesce(c.text, '')"
        " FROM synthetic_batch_passages p JOIN chunks c ON c.id = p.chunk_id"
        " WHERE p.batch = ? AND p.status != 'done' ORDER BY p.position", [batch]
    ).fetchall()


def record_passage_reply(conn: sqlite3.Connection, batch: str, position: int, chunk_id: str,
                         calls: int, candidates: int,
                         unmatched: Sequence[tuple[str, str]]) -> None:
    """Store a passage's unmatched (question, answer) replies and mark it done with its calls
    and counts, adding its calls and unmatched replies to the batch's."""
    conn.executemany(
        "INSERT INTO synthetic_unmatched (batch, chunk_id, question, answer)"
        " VALUES (?, ?, ?, ?)", [(batch, chunk_id, q, a) for q, a in unmatched],
    )
    conn.execute(
        "UPDATE synthetic_batch_passages SET status = 'done', calls = calls + ?,"
        " candidates = ?, unmatched = ?, error = NULL WHERE batch = ? AND position = ?",
        [calls, candidates, len(unmatched), batch, position],
    )
    conn.execute(
        "UPDATE synthetic_batches SET calls = calls + ?, unmatched = unmatched + ?"
        " WHERE id = ?", [calls, len(unmatched), batch],
    )


def record_passage_failure(conn: sqlite3.Connection, batch: str, position: int, calls: int,
                           error: str) -> None:
    """Mark a passage failed with ``error`` (kept to 500 characters) and count its calls."""
    conn.execute(
        "UPDATE synthetic_batch_passages SET status = 'failed', calls = calls + ?,"
        " error = ? WHERE batch = ? AND position = ?", [calls, error[:500], batch, position],
    )
    conn.execute("UPDATE synthetic_batches SET calls = calls + ? WHERE id = ?",
                 [calls, batch])


def passages_left(db: sqlite_utils.Database, batch: str) -> int:
    """How many passages of the batch are not done."""
    return int(db.conn.execute(
        "SELECT count(*) FROM synthetic_batch_passages WHERE batch = ? AND status != 'done'",
        [batch]).fetchone()[0])


def batch_generator(db: sqlite_utils.Database, batch: str) -> str | None:
    """The batch's generator, or None when there is no such batch."""
    row = db.conn.execute("SELECT generator FROM synthetic_batches WHERE id = ?",
                          [batch]).fetchone()
    return None if row is None else row[0]


def unfinished_batches(db: sqlite_utils.Database) -> list[dict]:
    """Batches with passages not done: id, generator, passages, done, calls, unmatched."""
    rows = db.conn.execute(
        "SELECT b.id, b.generator, b.passages, b.calls, b.unmatched,"
        " sum(p.status = 'done') FROM synthetic_batches b"
        " JOIN synthetic_batch_passages p ON p.batch = b.id"
        " WHERE b.finished_at IS NULL GROUP BY b.id ORDER BY b.created_at"
    ).fetchall()
    return [{"id": r[0], "generator": r[1], "passages": r[2], "calls": r[3],
             "unmatched": r[4], "done": int(r[5] or 0)} for r in rows]


def batches_frame(db: sqlite_utils.Database) -> pd.DataFrame:
    """Every batch: id, generator, passages, done, calls, unmatched, candidates, created_at,
    finished_at (newest first)."""
    return pd.read_sql_query(
        "SELECT b.id, b.generator, b.passages, sum(p.status = 'done') AS done, b.calls,"
        " b.unmatched, sum(p.candidates) AS candidates, b.created_at, b.finished_at"
        " FROM synthetic_batches b LEFT JOIN synthetic_batch_passages p ON p.batch = b.id"
        " GROUP BY b.id ORDER BY b.created_at DESC", db.conn,
    )


def unmatched_frame(db: sqlite_utils.Database, batch: str | None = None) -> pd.DataFrame:
    """The replies whose answer was not found in their passage: batch, chunk_id, question,
    answer (in the order stored)."""
    sql = "SELECT batch, chunk_id, question, answer FROM synthetic_unmatched"
    params: list[str] = []
    if batch:
        sql += " WHERE batch = ?"
        params.append(batch)
    return pd.read_sql_query(sql + " ORDER BY rowid", db.conn, params=params)
