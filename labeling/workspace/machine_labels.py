"""The machine judges' tables: machine_prompts, machine_batches, machine_batch_pairs,
machine_calls, machine_labels, audit_samples, audit_pairs (the rules are
``labeling.machine_judging``'s).

Conventions
- A pair is (query id, chunk id). A batch pair's ``state`` is ``pending``, ``done``,
  ``skipped`` or ``set_aside``; ``position`` is its 1-based place in the batch.
- The call cache ``machine_calls`` is keyed by (connection id, base URL, model, prompt hash,
  pair).
- Functions taking ``conn`` run inside the caller's ``store.write_transaction`` and neither open
  nor commit one; functions taking ``db`` read. Times are ISO 8601 UTC text.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

import pandas as pd
import sqlite_utils

Pair = tuple[str, str]


def _insert(conn: sqlite3.Connection, table: str, columns: Sequence[str], row: dict, *,
            verb: str = "INSERT", returning: bool = False) -> int | None:
    """Insert ``row``'s ``columns`` into ``table`` (a constant of this module); with
    ``returning``, the new row's id."""
    sql = (f"{verb} INTO {table} ({', '.join(columns)})"
           f" VALUES ({', '.join('?' for _ in columns)})")
    if not returning:
        conn.execute(sql, [row[c] for c in columns])
        return None
    return int(conn.execute(sql + " RETURNING id", [row[c] for c in columns]).fetchone()[0])


# ---------------------------------------------------------------------------------------------
# Batches


def remember_prompt(conn: sqlite3.Connection, prompt_hash: str, version: str, template: str,
                    created_at: str) -> None:
    """Store a prompt template under its hash (kept as first stored)."""
    conn.execute(
        "INSERT OR IGNORE INTO machine_prompts (prompt_hash, version, template, created_at)"
        " VALUES (?, ?, ?, ?)", [prompt_hash, version, template, created_at])


def add_batch(conn: sqlite3.Connection, batch: dict,
              pairs: Sequence[tuple[str, str, str, str | None]]) -> int:
    """Insert a ``machine_batches`` row (``batch``: judge, model, prompt_version, prompt_hash,
    temperature, pair_set, created_by, created_at, connection_id, base_url) and its
    (query_id, chunk_id, state, error) pairs in order; returns the batch id."""
    columns = ("judge", "model", "prompt_version", "prompt_hash", "temperature", "pair_set",
               "created_by", "created_at", "connection_id", "base_url")
    batch_id = _insert(conn, "machine_batches", columns, batch, returning=True)
    conn.executemany(
        "INSERT INTO machine_batch_pairs (batch_id, position, query_id, chunk_id, state,"
        " error) VALUES (?, ?, ?, ?, ?, ?)",
        [(batch_id, i, q, c, state, error)
         for i, (q, c, state, error) in enumerate(pairs, start=1)],
    )
    return int(batch_id)


def batch_setup(db: sqlite_utils.Database, batch_id: int) -> tuple | None:
    """(model, prompt version, prompt template, temperature, base URL ('' if none),
    connection id (0 if none)) a batch was started with; None for an unknown batch."""
    return db.conn.execute(
        "SELECT b.model, b.prompt_version, p.template, b.temperature, coalesce(b.base_url, ''),"
        " coalesce(b.connection_id, 0) FROM machine_batches b"
        " JOIN machine_prompts p USING (prompt_hash) WHERE b.id = ?", [batch_id]).fetchone()


def pending_pairs(db: sqlite_utils.Database, batch_id: int) -> list[Pair]:
    """The pending pairs of a batch, in batch order."""
    return [tuple(r) for r in db.conn.execute(
        "SELECT query_id, chunk_id FROM machine_batch_pairs WHERE batch_id = ?"
        " AND state = 'pending' ORDER BY position", [batch_id])]


def count_in_state(db: sqlite_utils.Database, batch_id: int, state: str) -> int:
    """How many pairs of a batch are in ``state``."""
    return int(db.conn.execute(
        "SELECT count(*) FROM machine_batch_pairs WHERE batch_id = ? AND state = ?",
        [batch_id, state]).fetchone()[0])


def finish_batch(conn: sqlite3.Connection, batch_id: int, finished_at: str) -> None:
    """Stamp the batch finished (a first stamp is kept)."""
    conn.execute("UPDATE machine_batches SET finished_at = coalesce(finished_at, ?)"
                 " WHERE id = ?", [finished_at, batch_id])


def record_failure(conn: sqlite3.Connection, batch_id: int, pair: Pair, own: int, error: str,
                   reply: str | None) -> int:
    """Count an attempt of a batch pair (``own`` 1 when the failure is the pair's own, else 0),
    keep its error and raw reply (a None reply keeps the last); returns its own failures."""
    return conn.execute(
        "UPDATE machine_batch_pairs SET attempts = attempts + 1, failures = failures + ?,"
        " error = ?, reply = coalesce(?, reply) WHERE batch_id = ? AND query_id = ?"
        " AND chunk_id = ? RETURNING failures", [own, error, reply, batch_id, *pair],
    ).fetchone()[0]


def set_aside(conn: sqlite3.Connection, batch_id: int, pair: Pair) -> None:
    """Set a batch pair aside: not sent again."""
    conn.execute("UPDATE machine_batch_pairs SET state = 'set_aside' WHERE batch_id = ?"
                 " AND query_id = ? AND chunk_id = ?", [batch_id, *pair])


def mark_done(conn: sqlite3.Connection, batch_id: int, pair: Pair, judgment_id: int,
              called: bool) -> None:
    """Mark a batch pair done with its judgment (an attempt counted when a call was made)."""
    conn.execute(
        "UPDATE machine_batch_pairs SET state = 'done', judgment_id = ?, error = NULL,"
        " attempts = attempts + ? WHERE batch_id = ? AND query_id = ? AND chunk_id = ?",
        [judgment_id, int(called), batch_id, *pair])


# ---------------------------------------------------------------------------------------------
# The call cache and the labels


def cached_calls(db: sqlite_utils.Database, connection_id: int, base_url: str, model: str,
                 prompt_hash: str) -> list[tuple[str, str, int, str, str]]:
    """(query_id, chunk_id, grade, reason, reply) of every cached answer of a server, model
    and prompt."""
    return db.conn.execute(
        "SELECT query_id, chunk_id, grade, reason, reply FROM machine_calls"
        " WHERE connection_id = ? AND base_url = ? AND model = ? AND prompt_hash = ?",
        [connection_id, base_url, model, prompt_hash]).fetchall()


def cache_call(conn: sqlite3.Connection, call: dict) -> None:
    """Cache an answer (``call``: connection_id, base_url, model, prompt_hash, query_id,
    chunk_id, temperature, grade, reason, reply, prompt_tokens, completion_tokens,
    created_at); a cached answer for the same key stays as it was."""
    columns = ("connection_id", "base_url", "model", "prompt_hash", "query_id", "chunk_id",
               "temperature", "grade", "reason", "reply", "prompt_tokens",
               "completion_tokens", "created_at")
    _insert(conn, "machine_calls", columns, call, verb="INSERT OR IGNORE")


def latest_machine_judgment(conn: sqlite3.Connection, pair: Pair,
                            judge: str) -> tuple[int, int | None, str | None] | None:
    """(judgment id, grade, prompt hash) of ``judge``'s latest judgment of the pair (hash None
    without a ``machine_labels`` row); None when it has none."""
    return conn.execute(
        "SELECT j.id, j.grade, m.prompt_hash FROM judgments j"
        " LEFT JOIN machine_labels m ON m.judgment_id = j.id"
        " WHERE j.query_id = ? AND j.chunk_id = ? AND j.annotator = ?"
        " ORDER BY j.id DESC LIMIT 1", [*pair, judge]).fetchone()


def add_machine_label(conn: sqlite3.Connection, label: dict) -> None:
    """The details of a machine judgment (``label``: judgment_id, batch_id, model,
    prompt_version, prompt_hash, temperature, reason, reply, cached)."""
    columns = ("judgment_id", "batch_id", "model", "prompt_version", "prompt_hash",
               "temperature", "reason", "reply", "cached")
    _insert(conn, "machine_labels", columns, label)


# ---------------------------------------------------------------------------------------------
# Reading batches and labels


def batches_table(db: sqlite_utils.Database) -> pd.DataFrame:
    """Every batch, newest first: id, judge, pair_set, pairs, done, pending, skipped,
    set_aside, created_at, finished_at."""
    return pd.read_sql_query(
        "SELECT b.id, b.judge, b.pair_set, count(p.query_id) AS pairs,"
        " sum(p.state = 'done') AS done, sum(p.state = 'pending') AS pending,"
        " sum(p.state = 'skipped') AS skipped, sum(p.state = 'set_aside') AS set_aside,"
        " b.created_at, b.finished_at"
        " FROM machine_batches b LEFT JOIN machine_batch_pairs p ON p.batch_id = b.id"
        " GROUP BY b.id ORDER BY b.id DESC", db.conn)


def failed_pairs(db: sqlite_utils.Database, batch_id: int | None = None) -> pd.DataFrame:
    """The batch pairs not done that failed at least once (of one batch, or of every batch),
    in batch and pair order: batch_id, query_id, chunk_id, state, failures, attempts, error,
    reply."""
    where = "" if batch_id is None else " AND batch_id = ?"
    return pd.read_sql_query(
        "SELECT batch_id, query_id, chunk_id, state, failures, attempts, error, reply"
        " FROM machine_batch_pairs WHERE (state = 'set_aside' OR (state = 'pending'"
        f" AND attempts > 0)){where} ORDER BY batch_id, position",
        db.conn, params=[] if batch_id is None else [batch_id])


def machine_annotators(db: sqlite_utils.Database) -> list[str]:
    """The names of the machine judges that have judgments, in name order."""
    return [r[0] for r in db.conn.execute(
        "SELECT DISTINCT annotator FROM judgments WHERE origin = 'machine' ORDER BY 1")]


def current_machine_labels(db: sqlite_utils.Database, judge: str) -> pd.DataFrame:
    """The current graded labels of ``judge``: query_id, chunk_id, grade, reason, model,
    prompt_version, prompt_hash, temperature, judgment_id, by pair."""
    return pd.read_sql_query(
        "SELECT j.query_id, j.chunk_id, j.grade, m.reason, m.model, m.prompt_version,"
        " m.prompt_hash, m.temperature, j.id AS judgment_id FROM current_judgments j"
        " LEFT JOIN machine_labels m ON m.judgment_id = j.id"
        " WHERE j.annotator = ? AND j.origin = 'machine' AND j.grade IS NOT NULL"
        " ORDER BY j.query_id, j.chunk_id", db.conn, params=[judge])


# ---------------------------------------------------------------------------------------------
# Audit samples


def add_audit_sample(conn: sqlite3.Connection, sample: dict,
                     pairs: Sequence[tuple]) -> int:
    """Insert an ``audit_samples`` row (``sample``: judge, budget, relevance, runs (a list),
    segment, seed, pairs, created_by, created_at) and its (query_id, chunk_id, position,
    known, machine_grade, weight, inclusion, sampled) pairs; returns the sample id."""
    columns = ("judge", "budget", "relevance", "runs", "segment", "seed", "pairs",
               "created_by", "created_at")
    values = {**sample, "runs": json.dumps(list(sample["runs"]))}
    sample_id = _insert(conn, "audit_samples", columns, values, returning=True)
    conn.executemany(
        "INSERT INTO audit_pairs (sample_id, query_id, chunk_id, position, known,"
        " machine_grade, weight, inclusion, sampled) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(sample_id, *row) for row in pairs],
    )
    return int(sample_id)


def audit_samples_table(db: sqlite_utils.Database, judge: str | None = None) -> pd.DataFrame:
    """The audit samples (of ``judge`` when given), newest first: id, judge, budget, pairs,
    relevance, runs (JSON text), segment, seed, created_by, created_at."""
    where, params = ("WHERE judge = ?", [judge]) if judge else ("", [])
    return pd.read_sql_query(
        f"SELECT id, judge, budget, pairs, relevance, runs, segment, seed, created_by,"
        f" created_at FROM audit_samples {where} ORDER BY id DESC", db.conn, params=params)


def audit_sample(db: sqlite_utils.Database, sample_id: int) -> dict | None:
    """The ``audit_samples`` row of ``sample_id`` (runs decoded), None when there is none."""
    rows = list(db.query("SELECT * FROM audit_samples WHERE id = ?", [sample_id]))
    if not rows:
        return None
    return {**rows[0], "runs": json.loads(rows[0]["runs"])}


def audit_pairs_table(db: sqlite_utils.Database, sample_id: int) -> pd.DataFrame:
    """Every pair of a sample in audit order: query_id, chunk_id, position, known,
    machine_grade, weight, inclusion, sampled (as stored: integers for the flags)."""
    return pd.read_sql_query(
        "SELECT query_id, chunk_id, position, known, machine_grade, weight, inclusion, sampled"
        " FROM audit_pairs WHERE sample_id = ? ORDER BY query_id, position",
        db.conn, params=[sample_id])


def audit_counts(db: sqlite_utils.Database, sample_id: int) -> tuple[int, int]:
    """(drawn, judged) of a sample's audited pairs: judged when a person's current grade
    exists (not a machine's)."""
    drawn, judged = db.conn.execute(
        "SELECT count(*), coalesce(sum(EXISTS (SELECT 1 FROM current_judgments j"
        "  WHERE j.query_id = a.query_id AND j.chunk_id = a.chunk_id AND j.grade IS NOT NULL"
        "  AND j.origin <> 'machine')), 0)"
        " FROM audit_pairs a WHERE a.sample_id = ? AND a.sampled AND NOT a.known",
        [sample_id]).fetchone()
    return int(drawn), int(judged)
