"""The synthetic questions' tables: ``synthetic_candidates`` (one row a generated question with
its quality signals; status 'pending'/'accepted'/'rejected'; JSON columns rubric_problems,
outranking and features; timestamps ISO-8601 UTC), ``synthetic_quality_models`` (the learned
weights of the quality score, newest last) and ``synthetic_settings`` (the team's settings,
name -> JSON value).

The writers taking a ``conn`` run in the caller's ``write_transaction`` and neither open nor
commit a transaction of their own.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping

import pandas as pd
import sqlite_utils

# The columns of a stored candidate, in the order ``add_candidate`` takes them.
CANDIDATE_COLUMNS = (
    "batch", "chunk_id", "question", "generated_question", "sentence", "answer",
    "answer_start", "answer_end", "kind", "generator", "rubric_problems", "overlap", "n_words",
    "duplicate_of", "duplicate_similarity", "source_rank", "roundtrip_k", "outranking",
    "created_at", "form", "subject", "features", "quality", "critic_score", "paragraph_key",
)
_INSERT_CANDIDATE = (
    f"INSERT INTO synthetic_candidates ({', '.join(CANDIDATE_COLUMNS)})"
    f" VALUES ({', '.join('?' * len(CANDIDATE_COLUMNS))})"
)


def add_candidate(conn: sqlite3.Connection, values: Mapping[str, object]) -> int:
    """Store one candidate (``values``: every column of ``CANDIDATE_COLUMNS``, JSON columns
    already encoded); return its id."""
    cursor = conn.execute(_INSERT_CANDIDATE, [values[c] for c in CANDIDATE_COLUMNS])
    return int(cursor.lastrowid)


def open_questions(db: sqlite_utils.Database) -> list[tuple[str, str]]:
    """(key, text) of every question a new candidate must not repeat: stored queries with text
    (key ``q:<query id>``), then candidates not rejected (key ``c:<candidate id>``)."""
    queries = db.conn.execute("SELECT id, text FROM queries WHERE text IS NOT NULL")
    candidates = db.conn.execute(
        "SELECT id, question FROM synthetic_candidates WHERE status != 'rejected'")
    return ([(f"q:{qid}", text) for qid, text in queries]
            + [(f"c:{cid}", text) for cid, text in candidates])


def paragraph_owners(db: sqlite_utils.Database) -> dict[str, str]:
    """paragraph key -> the chunk a candidate not rejected asks about it from."""
    return dict(db.conn.execute(
        "SELECT paragraph_key, chunk_id FROM synthetic_candidates"
        " WHERE status != 'rejected' AND paragraph_key IS NOT NULL"
    ).fetchall())


def open_candidate_questions(db: sqlite_utils.Database) -> list[str]:
    """The question text of every candidate not rejected, in storage order."""
    return [q for (q,) in db.conn.execute(
        "SELECT question FROM synthetic_candidates WHERE status != 'rejected'")]


def candidates_table(db: sqlite_utils.Database, status: str | None = None) -> pd.DataFrame:
    """Every column of the candidates (``status``, when given, filters), in id order; JSON
    columns as stored text."""
    where, params = (" WHERE status = ?", [status]) if status else ("", [])
    return pd.read_sql_query(f"SELECT * FROM synthetic_candidates{where} ORDER BY id", db.conn,
                             params=params)


def review_counts(db: sqlite_utils.Database) -> pd.DataFrame:
    """Counts by generator and status, and rejections by reason: columns generator, status,
    reject_reason ('' when none), candidates."""
    return pd.read_sql_query(
        "SELECT generator, status, coalesce(reject_reason, '') AS reject_reason,"
        " count(*) AS candidates FROM synthetic_candidates"
        " GROUP BY generator, status, reject_reason ORDER BY generator, status, candidates DESC",
        db.conn,
    )


def decisions_table(db: sqlite_utils.Database) -> pd.DataFrame:
    """Every candidate in id order: status, reject_reason, generator, form, question,
    generated_question and source (the passage's document, else its chunk id)."""
    return pd.read_sql_query(
        "SELECT s.status, s.reject_reason, s.generator, s.form, s.question,"
        " s.generated_question, coalesce(c.doc_id, s.chunk_id) AS source"
        " FROM synthetic_candidates s LEFT JOIN chunks c ON c.id = s.chunk_id ORDER BY s.id",
        db.conn,
    )


def candidate_for_decision(conn: sqlite3.Connection, candidate_id: int) -> tuple | None:
    """(id, chunk_id, question, status, outranking JSON, form, generator) of a candidate, or
    None when there is none."""
    return conn.execute(
        "SELECT id, chunk_id, question, status, outranking, form, generator"
        " FROM synthetic_candidates WHERE id = ?", [candidate_id],
    ).fetchone()


def mark_accepted(conn: sqlite3.Connection, candidate_id: int, question: str, reviewer: str,
                  query_id: str, reviewed_at: str) -> None:
    """Record a candidate accepted as ``question``, made query ``query_id``."""
    conn.execute(
        "UPDATE synthetic_candidates SET status = 'accepted', question = ?, reviewer = ?,"
        " query_id = ?, reviewed_at = ? WHERE id = ?",
        [question, reviewer, query_id, reviewed_at, candidate_id],
    )


def mark_rejected(conn: sqlite3.Connection, candidate_id: int, reason: str, reviewer: str,
                  reviewed_at: str) -> None:
    """Record a candidate rejected for ``reason``."""
    conn.execute(
        "UPDATE synthetic_candidates SET status = 'rejected', reject_reason = ?,"
        " reviewer = ?, reviewed_at = ? WHERE id = ?",
        [reason, reviewer, reviewed_at, candidate_id],
    )


# ---------------------------------------------------------------------------------------------
# The quality model


def decided_features(db: sqlite_utils.Database) -> list[tuple[str, str, int, str, str]]:
    """(features JSON, status, 1 when the question is as generated else 0, the generated
    question, its form) of every decided candidate with stored features, in id order."""
    return db.conn.execute(
        "SELECT features, status, question = generated_question, generated_question, form"
        " FROM synthetic_candidates WHERE status != 'pending' AND features != '{}' ORDER BY id"
    ).fetchall()


def decided_scores(db: sqlite_utils.Database) -> tuple[list[float], list[float]]:
    """(stored quality score, 1.0 when accepted as written else 0.0) of every decided, scored
    candidate, in id order: the scores on the scale of the pending ones beside them."""
    rows = db.conn.execute(
        "SELECT quality, status = 'accepted' AND question = generated_question"
        " FROM synthetic_candidates WHERE status != 'pending' AND quality IS NOT NULL"
        " ORDER BY id"
    ).fetchall()
    return [float(q) for q, _ in rows], [float(a) for _, a in rows]


def latest_quality_model(db: sqlite_utils.Database) -> tuple | None:
    """(weights JSON, decisions, accepted, fitted_at, fitted_by) of the newest learned model,
    or None."""
    return db.conn.execute(
        "SELECT weights, decisions, accepted, fitted_at, fitted_by"
        " FROM synthetic_quality_models ORDER BY id DESC LIMIT 1"
    ).fetchone()


def add_quality_model(conn: sqlite3.Connection, weights: Mapping[str, float], decisions: int,
                      accepted: int, fitted_by: str | None, fitted_at: str) -> None:
    """Store learned weights (made from ``decisions`` decided candidates, ``accepted`` of them
    accepted as written)."""
    conn.execute(
        "INSERT INTO synthetic_quality_models (weights, decisions, accepted, fitted_by,"
        " fitted_at) VALUES (?, ?, ?, ?, ?)",
        [json.dumps(weights), decisions, accepted, fitted_by, fitted_at],
    )


def scored_features(db: sqlite_utils.Database) -> list[tuple[int, str, str, str]]:
    """(candidate id, features JSON, generated question, form) of every candidate with
    features."""
    return db.conn.execute(
        "SELECT id, features, generated_question, form FROM synthetic_candidates"
        " WHERE features != '{}'"
    ).fetchall()


def set_quality_scores(conn: sqlite3.Connection, scores: Iterable[tuple[float, int]]) -> None:
    """Store (quality score, candidate id) pairs."""
    conn.executemany("UPDATE synthetic_candidates SET quality = ? WHERE id = ?", scores)


# ---------------------------------------------------------------------------------------------
# The team's settings


def stored_settings(db: sqlite_utils.Database) -> list[tuple[str, str]]:
    """(name, JSON value) of every stored setting."""
    return db.conn.execute("SELECT name, value FROM synthetic_settings").fetchall()


def save_settings(conn: sqlite3.Connection, values: Mapping[str, object], changed_by: str | None,
                  changed_at: str) -> None:
    """Store (replace) each setting of ``values`` as JSON."""
    conn.executemany(
        "INSERT OR REPLACE INTO synthetic_settings (name, value, changed_by, changed_at)"
        " VALUES (?, ?, ?, ?)",
        [(name, json.dumps(value), changed_by, changed_at) for name, value in values.items()],
    )


