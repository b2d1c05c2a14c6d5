"""The labeling queue's tables: label_queue, queue_done, queue_leases, queue_skips, skip_times,
rejudge_requests (the rules of the queue are ``labeling.judging.queue``'s).

Conventions
- A pair is (query id, chunk id). A queued pair is open while ``judged < needed``.
- ``needed`` is 2 for an overlap pair: ``shuffle_key % buckets < threshold`` (the caller's
  bucket count and threshold), else 1; a ``confirm`` pair keeps its own.
- Pairs of reason ``audit`` form the audit queue, every other pair the shared queue.
- Functions taking ``conn`` run inside the caller's ``store.write_transaction`` and neither open
  nor commit one; functions taking ``db`` read.
- Times are ISO 8601 UTC text.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

import pandas as pd
import sqlite_utils

from labeling.errors import InputError

AUDIT_REASON = "audit"

_OPEN_SQL = """
SELECT q.query_id, q.chunk_id
FROM label_queue q INDEXED BY {index}
WHERE q.judged < q.needed
  AND NOT EXISTS (SELECT 1 FROM queue_done d
                  WHERE d.query_id = q.query_id AND d.chunk_id = q.chunk_id AND d.annotator = :a)
  AND NOT EXISTS (SELECT 1 FROM queue_skips s
                  WHERE s.annotator = :a AND s.query_id = q.query_id AND s.chunk_id = q.chunk_id)
  AND (SELECT count(*) FROM queue_leases l
       WHERE l.query_id = q.query_id AND l.chunk_id = q.chunk_id AND l.annotator <> :a
         AND l.expires_at > :now) < q.needed - q.judged
  AND NOT EXISTS (SELECT 1 FROM queries qq JOIN split_locks sl ON sl.split = qq.split
                  WHERE qq.id = q.query_id)
  {extra}
ORDER BY q.shuffle_key
LIMIT 1
"""

_SKIPPED_SQL = """
SELECT q.query_id, q.chunk_id
FROM queue_skips s JOIN label_queue q USING (query_id, chunk_id)
WHERE s.annotator = :a AND q.judged < q.needed
  AND NOT EXISTS (SELECT 1 FROM queue_done d
                  WHERE d.query_id = q.query_id AND d.chunk_id = q.chunk_id AND d.annotator = :a)
  AND NOT EXISTS (SELECT 1 FROM queries qq JOIN split_locks sl ON sl.split = qq.split
                  WHERE qq.id = q.query_id)
  {extra}
ORDER BY s.skipped_at, q.shuffle_key
LIMIT 1
"""

_NEEDED = "CASE WHEN shuffle_key % ? < ? THEN 2 ELSE 1 END"


def queue_condition(audit: bool) -> tuple[str, str]:
    """The SQL condition on ``q`` (label_queue) of a queue, and the index to walk: the audit's
    few pairs by reason, the shared queue's open pairs in shuffled order."""
    if audit:
        return f" AND q.reason = '{AUDIT_REASON}'", "label_queue_reason"
    return f" AND q.reason <> '{AUDIT_REASON}'", "label_queue_open"


# ---------------------------------------------------------------------------------------------
# Filling the queue


def set_overlap_needs(conn: sqlite3.Connection, buckets: int, threshold: int) -> int:
    """Re-mark ``needed`` of every queued pair but ``confirm`` ones; returns how many pairs now
    need two people."""
    conn.execute(f"UPDATE label_queue SET needed = {_NEEDED} WHERE reason <> 'confirm'",
                 [buckets, threshold])
    return conn.execute("SELECT count(*) FROM label_queue WHERE needed >= 2").fetchone()[0]


def add_queue_rows(conn: sqlite3.Connection,
                   rows: Sequence[tuple[str, str, str, int, int, str]]) -> int:
    """Queue (query_id, chunk_id, reason, needed, shuffle_key, added_at) rows, a pair already
    queued keeping its row; ``judged`` counts the votes the pair already has. Returns how many
    rows were inserted; ``InputError`` (nothing queued) for an unknown query or chunk id."""
    try:
        cursor = conn.executemany(
            "INSERT OR IGNORE INTO label_queue"
            " (query_id, chunk_id, reason, needed, judged, shuffle_key, added_at)"
            " VALUES (?1, ?2, ?3, ?4, (SELECT count(*) FROM queue_done d"
            "  WHERE d.query_id = ?1 AND d.chunk_id = ?2 AND d.voted), ?5, ?6)",
            rows,
        )
    except sqlite3.IntegrityError as error:
        raise InputError(
            f"cannot queue pairs: an unknown query or chunk id ({error})", source="queue"
        ) from error
    # The rows this statement inserted: total_changes would also count the rows the
    # queue's triggers write (queue_done and the counts), more than the pairs queued.
    return cursor.rowcount


# ---------------------------------------------------------------------------------------------
# Serving pairs


def next_open_pair(
    db: sqlite_utils.Database, annotator: str, now: str, *, audit: bool,
    query_id: str | None = None, exclude: Sequence[tuple[str, str]] = (),
) -> tuple[tuple[str, str] | None, bool]:
    """(pair, skipped): the first open pair of a queue in shuffled order that ``annotator`` has
    not handled or skipped, that no colleague holds at ``now`` and whose split is not locked;
    else the first pair they skipped (``skipped`` True); (None, False) when nothing is left.
    ``query_id``: only that query's pairs; ``exclude``: pairs not to serve."""
    extra, index = queue_condition(audit)
    params = {"a": annotator, "now": now}
    if query_id is not None:
        extra += " AND q.query_id = :qid"
        params["qid"] = query_id
    if exclude:
        # Few pairs (the page's current card); a VALUES list keeps it one statement.
        values = ", ".join(f"(:xq{i}, :xc{i})" for i in range(len(exclude)))
        extra += f" AND (q.query_id, q.chunk_id) NOT IN (VALUES {values})"
        for i, (q, c) in enumerate(exclude):
            params[f"xq{i}"], params[f"xc{i}"] = q, c
    row = db.conn.execute(_OPEN_SQL.format(extra=extra, index=index), params).fetchone()
    if row is not None:
        return (row[0], row[1]), False
    params.pop("now")
    row = db.conn.execute(_SKIPPED_SQL.format(extra=extra), params).fetchone()
    return (None, False) if row is None else ((row[0], row[1]), True)


def take_lease(conn: sqlite3.Connection, annotator: str, query_id: str, chunk_id: str,
               expires_at: str) -> None:
    """Hold the pair for ``annotator`` until ``expires_at``, dropping their other lease."""
    conn.execute("DELETE FROM queue_leases WHERE annotator = ?", [annotator])
    conn.execute(
        "INSERT INTO queue_leases (query_id, chunk_id, annotator, expires_at) VALUES (?, ?, ?, ?)",
        [query_id, chunk_id, annotator, expires_at],
    )


def card_row(db: sqlite_utils.Database, query_id: str, chunk_id: str) -> tuple | None:
    """(query text, chunk text, title, doc_id, reason, needed, judged, narrative) of a pair,
    queued or not (reason '', needed 1, judged 0 when not queued; texts may be NULL); None
    when the query or chunk is unknown."""
    return db.conn.execute(
        "SELECT qu.text, c.text, coalesce(c.title, ''),"
        " coalesce(c.doc_id, ''), coalesce(l.reason, ''), coalesce(l.needed, 1),"
        " coalesce(l.judged, 0), coalesce(qu.narrative, '')"
        " FROM queries qu JOIN chunks c ON c.id = ?2"
        " LEFT JOIN label_queue l ON l.query_id = qu.id AND l.chunk_id = c.id"
        " WHERE qu.id = ?1",
        [query_id, chunk_id],
    ).fetchone()


def open_pairs(db: sqlite_utils.Database) -> list[tuple[str, str]]:
    """The open pairs of both queues, in shuffled order."""
    return [(str(q), str(c)) for q, c in db.conn.execute(
        "SELECT query_id, chunk_id FROM label_queue WHERE judged < needed ORDER BY shuffle_key")]


# ---------------------------------------------------------------------------------------------
# Session writes


def forget_pair(conn: sqlite3.Connection, tables: Sequence[str], annotator: str,
                query_id: str, chunk_id: str) -> None:
    """Delete ``annotator``'s row of a pair from each of ``tables`` (queue_skips, queue_leases,
    queue_done)."""
    for table in tables:
        if table not in ("queue_skips", "queue_leases", "queue_done"):
            raise ValueError(f"not a table of the queue's people: {table!r}")
        conn.execute(
            f"DELETE FROM {table} WHERE annotator = ? AND query_id = ? AND chunk_id = ?",
            [annotator, query_id, chunk_id],
        )


def record_skip(conn: sqlite3.Connection, annotator: str, query_id: str, chunk_id: str,
                skipped_at: str) -> None:
    """Put the pair at the end of ``annotator``'s queue, keep the skip's time (judging pace: a
    skipped card's time is not judging time) and drop their lease."""
    conn.execute(
        "INSERT OR REPLACE INTO queue_skips (annotator, query_id, chunk_id, skipped_at)"
        " VALUES (?, ?, ?, ?)",
        [annotator, query_id, chunk_id, skipped_at],
    )
    conn.execute(
        "INSERT INTO skip_times (annotator, query_id, chunk_id, skipped_at) VALUES (?, ?, ?, ?)",
        [annotator, query_id, chunk_id, skipped_at])
    conn.execute("DELETE FROM queue_leases WHERE annotator = ?", [annotator])


# ---------------------------------------------------------------------------------------------
# Progress


def audit_progress_counts(conn: sqlite3.Connection, annotator: str) -> tuple[int, int, int, int]:
    """(pooled, complete, mine, left for ``annotator``) of the audit queue (few pairs: read
    through the reason index)."""
    pooled, complete, mine, left = conn.execute(
        "SELECT count(*), coalesce(sum(q.judged >= q.needed), 0),"
        " coalesce(sum(d.annotator IS NOT NULL), 0),"
        " coalesce(sum(q.judged < q.needed AND d.annotator IS NULL), 0)"
        " FROM label_queue q INDEXED BY label_queue_reason"
        " LEFT JOIN queue_done d ON d.query_id = q.query_id AND d.chunk_id = q.chunk_id"
        "  AND d.annotator = ? AND d.queued"
        f" WHERE q.reason = '{AUDIT_REASON}'", [annotator]).fetchone()
    return int(pooled), int(complete), int(mine), int(left)


def all_progress_counts(conn: sqlite3.Connection, annotator: str) -> tuple[int, int, int, int]:
    """(pooled, complete, mine, left for ``annotator``) of every queued pair, both queues."""
    # Counted on the partial indexes (open pairs; an annotator's queued pairs), not the tables.
    pooled = conn.execute("SELECT count(*) FROM label_queue").fetchone()[0]
    open_ = conn.execute(
        "SELECT count(*) FROM label_queue INDEXED BY label_queue_open WHERE judged < needed"
    ).fetchone()[0]
    mine = conn.execute(
        "SELECT count(*) FROM queue_done INDEXED BY queue_done_mine"
        " WHERE annotator = ? AND queued",
        [annotator],
    ).fetchone()[0]
    # Open pairs minus those the annotator handled: walk the cheaper set (measured: a step of
    # the join costs about a third of a NOT EXISTS probe).
    if mine < 3 * open_:
        handled_open = conn.execute(
            "SELECT count(*) FROM queue_done d INDEXED BY queue_done_mine JOIN label_queue q"
            " ON q.query_id = d.query_id AND q.chunk_id = d.chunk_id"
            " WHERE d.annotator = ? AND d.queued AND q.judged < q.needed",
            [annotator],
        ).fetchone()[0]
        left = open_ - handled_open
    else:
        left = conn.execute(
            "SELECT count(*) FROM label_queue q INDEXED BY label_queue_open"
            " WHERE q.judged < q.needed AND NOT EXISTS (SELECT 1 FROM queue_done d"
            "  WHERE d.query_id = q.query_id AND d.chunk_id = q.chunk_id AND d.annotator = ?)",
            [annotator],
        ).fetchone()[0]
    return int(pooled), int(pooled - open_), int(mine), int(left)


# ---------------------------------------------------------------------------------------------
# Re-judging


def rejudge_scope_pairs(
    conn: sqlite3.Connection, *, query_id: str | None = None,
    segment: tuple[str, str] | None = None, annotator: str | None = None,
) -> list[tuple[str, str]]:
    """The pairs of one scope (exactly one given): a query's or a segment's (attribute, value)
    pairs judged by people or queued, or every pair ``annotator`` judged."""
    human = "annotator <> 'generator'"
    if query_id is not None:
        sql = (f"SELECT query_id, chunk_id FROM judgments WHERE query_id = ?1 AND {human}"
               " UNION SELECT query_id, chunk_id FROM label_queue WHERE query_id = ?1")
        params: list[str] = [query_id]
    elif segment is not None:
        inner = "SELECT query_id FROM query_attributes WHERE name = ?1 AND value = ?2"
        sql = (f"SELECT query_id, chunk_id FROM judgments WHERE query_id IN ({inner})"
               f" AND {human} UNION SELECT query_id, chunk_id FROM label_queue"
               f" WHERE query_id IN ({inner})")
        params = [segment[0], segment[1]]
    else:
        sql = "SELECT DISTINCT query_id, chunk_id FROM judgments WHERE annotator = ?1"
        params = [str(annotator)]
    return conn.execute(sql, params).fetchall()


def requeue_pairs(conn: sqlite3.Connection, rows: Sequence[tuple[str, str, int, str]],
                  buckets: int, threshold: int) -> None:
    """Send (query_id, chunk_id, shuffle_key, added_at) pairs back to the queue, open to
    everyone: queued (reason ``rejudge``) if they were not, their handled and skipped marks
    cleared, ``judged`` 0 and ``needed`` set by the overlap rule."""
    pairs = [(q, c) for q, c, _, _ in rows]
    conn.executemany(
        "INSERT OR IGNORE INTO label_queue"
        " (query_id, chunk_id, reason, needed, judged, shuffle_key, added_at)"
        " VALUES (?, ?, 'rejudge', 1, 0, ?, ?)",
        rows,
    )
    conn.executemany("DELETE FROM queue_done WHERE query_id = ? AND chunk_id = ?", pairs)
    conn.executemany("DELETE FROM queue_skips WHERE query_id = ? AND chunk_id = ?", pairs)
    conn.executemany(
        f"UPDATE label_queue SET needed = {_NEEDED},"
        " judged = 0 WHERE query_id = ? AND chunk_id = ?",
        [(buckets, threshold, q, c) for q, c in pairs],
    )


def add_rejudge_request(conn: sqlite3.Connection, scope: str, target: str, pairs: int,
                        requested_by: str | None, requested_at: str) -> None:
    """Append a row of the re-judge audit trail."""
    conn.execute(
        "INSERT INTO rejudge_requests (scope, target, pairs, requested_by, requested_at)"
        " VALUES (?, ?, ?, ?, ?)",
        [scope, target, pairs, requested_by, requested_at],
    )


# ---------------------------------------------------------------------------------------------
# Queries and pairs of a queue


def query_pairs(db: sqlite_utils.Database, query_id: str, annotator: str,
                audit: bool) -> pd.DataFrame:
    """The pairs of one query queued in a queue, by chunk id: chunk_id, title, text (NULL when
    not imported), my_grade (``annotator``'s latest grade, NULL when none), judged, needed."""
    where, _ = queue_condition(audit)
    return pd.read_sql_query(
        f"""
        SELECT q.chunk_id, coalesce(c.title, '') AS title, c.text,
               (SELECT j.grade FROM judgments j WHERE j.query_id = q.query_id
                 AND j.chunk_id = q.chunk_id AND j.annotator = ?
                ORDER BY j.id DESC LIMIT 1) AS my_grade,
               q.judged, q.needed
        FROM label_queue q JOIN chunks c ON c.id = q.chunk_id
        WHERE q.query_id = ? {where}
        ORDER BY q.chunk_id
        """,
        db.conn,
        params=[annotator, query_id],
    )


def queue_queries(db: sqlite_utils.Database, audit: bool) -> pd.DataFrame:
    """Queries with pairs queued in a queue: query_id, text, pairs, complete (by query id)."""
    where, _ = queue_condition(audit)
    return pd.read_sql_query(
        f"""
        SELECT q.query_id, coalesce(qq.text, '') AS text, count(*) AS pairs,
               sum(q.judged >= q.needed) AS complete
        FROM label_queue q JOIN queries qq ON qq.id = q.query_id
        WHERE 1 {where}
        GROUP BY q.query_id ORDER BY q.query_id
        """,
        db.conn,
    )


def unqueued_queries(db: sqlite_utils.Database) -> pd.DataFrame:
    """Queries with text and no queued pair: query_id, text (by query id)."""
    return pd.read_sql_query(
        "SELECT id AS query_id, text FROM queries WHERE text IS NOT NULL AND text <> ''"
        " AND id NOT IN (SELECT query_id FROM label_queue) ORDER BY id", db.conn)


def move_to_reason(conn: sqlite3.Connection, pairs: Sequence[tuple[str, str]],
                   reason: str) -> None:
    """Give queued pairs the reason ``reason`` (e.g. an audited pair waiting in the shared
    queue moves to the audit queue)."""
    conn.executemany(
        "UPDATE label_queue SET reason = ? WHERE query_id = ? AND chunk_id = ?"
        " AND reason <> ?",
        [(reason, q, c, reason) for q, c in pairs])


# ---------------------------------------------------------------------------------------------
# Who may see which grades (labeling.judging.visibility)

# The pairs a person has judged (latest judgment a grade or "can't judge") that are not waiting
# for them in the queue. ``queue_done`` holds who handled a queued pair since it was (re-)queued.
_JUDGED_PAIRS = """
WITH latest AS (
    SELECT query_id, chunk_id, grade, flags, max(id) AS id
    FROM judgments WHERE annotator = ?1 {and_query} GROUP BY query_id, chunk_id
)
SELECT query_id, chunk_id FROM latest
WHERE (grade IS NOT NULL OR coalesce(json_extract(flags, '$.cant_judge'), 0))
  AND NOT EXISTS (
    SELECT 1 FROM label_queue l
    WHERE l.query_id = latest.query_id AND l.chunk_id = latest.chunk_id AND l.judged < l.needed
      AND NOT EXISTS (SELECT 1 FROM queue_done d WHERE d.query_id = l.query_id
                      AND d.chunk_id = l.chunk_id AND d.annotator = ?1))
"""

_WAITING = """
SELECT l.query_id, l.chunk_id FROM label_queue l
WHERE l.judged < l.needed {and_query}
  AND NOT EXISTS (SELECT 1 FROM queue_done d WHERE d.query_id = l.query_id
                  AND d.chunk_id = l.chunk_id AND d.annotator = ?1)
"""


def judged_not_waiting(db: sqlite_utils.Database, annotator: str,
                       query_id: str | None = None) -> frozenset[tuple[str, str]]:
    """The pairs ``annotator`` has judged (latest judgment a grade or can't judge) that are not
    open for them in the queue; only ``query_id``'s when given."""
    if query_id is None:
        rows = db.conn.execute(_JUDGED_PAIRS.format(and_query=""), [annotator])
    else:  # a separate statement, so that SQLite reads the query's rows through its index
        rows = db.conn.execute(_JUDGED_PAIRS.format(and_query="AND query_id = ?2"),
                               [annotator, query_id])
    return frozenset((str(q), str(c)) for q, c in rows)


def waiting_for(db: sqlite_utils.Database, annotator: str,
                query_id: str | None = None) -> frozenset[tuple[str, str]]:
    """The open queued pairs ``annotator`` has not handled; only ``query_id``'s when given."""
    if query_id is None:
        rows = db.conn.execute(_WAITING.format(and_query=""), [annotator])
    else:
        rows = db.conn.execute(_WAITING.format(and_query="AND l.query_id = ?2"),
                               [annotator, query_id])
    return frozenset((str(q), str(c)) for q, c in rows)


# ---------------------------------------------------------------------------------------------
# Pace and remaining work


def skip_times(db: sqlite_utils.Database) -> list[tuple[str, str]]:
    """(annotator, skipped_at) of every skip, oldest first."""
    return db.conn.execute("SELECT annotator, skipped_at FROM skip_times ORDER BY id").fetchall()


def open_work(db: sqlite_utils.Database) -> tuple[int, int]:
    """(open pairs, votes they still need) of both queues."""
    open_pairs, votes = db.conn.execute(
        "SELECT count(*), coalesce(sum(needed - judged), 0) FROM label_queue"
        " INDEXED BY label_queue_open WHERE judged < needed"
    ).fetchone()
    return int(open_pairs), int(votes)
