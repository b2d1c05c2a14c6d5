"""What a label transfer's records say, read back for its report and for the experts who judge
its suggestions (``labeling.rechunking.report``, ``labeling.rechunking.suggestions``); the
tables are those of ``labeling.workspace.transfers``.

Conventions
- ``tid`` is a ``label_transfers`` id. A person's own judgment of a suggested pair is one of
  an origin other than ``transferred``, ``machine`` and ``generator``.
"""

from __future__ import annotations

import sqlite3

import pandas as pd

_INFERRED_LABELS = """
SELECT count(*) FROM transfer_labels t JOIN judgments j ON j.id = t.judgment_id
WHERE t.transfer_id = ? AND coalesce(json_extract(j.flags, '$.inferred'), 0)
"""
_JUDGED_SUGGESTIONS = """
SELECT count(*) FROM transfer_suggestions s JOIN label_transfers t ON t.id = s.transfer_id
WHERE s.transfer_id = ? AND EXISTS (
    SELECT 1 FROM judgments j WHERE j.query_id = s.query_id AND j.chunk_id = s.chunk_id
      AND j.grade IS NOT NULL AND j.origin NOT IN ('transferred', 'machine', 'generator')
      AND j.created_at >= t.created_at)
"""
# What each count of ``record_counts`` counts.
_COUNTS = {
    "labels": "SELECT count(*) FROM transfer_labels WHERE transfer_id = ?",
    "suggestions": "SELECT count(*) FROM transfer_suggestions WHERE transfer_id = ?",
    "suggestions_judged": _JUDGED_SUGGESTIONS,
    "invalidated": "SELECT count(*) FROM transfer_invalidated WHERE transfer_id = ?",
    "inferred_labels": _INFERRED_LABELS,
}
_OPEN_SQL = """
SELECT s.query_id, s.chunk_id, q.text AS query_text, c.title, c.text AS chunk_text
FROM transfer_suggestions s
JOIN queries q ON q.id = s.query_id JOIN chunks c ON c.id = s.chunk_id
WHERE s.transfer_id = :tid AND NOT EXISTS (
    SELECT 1 FROM judgments j WHERE j.query_id = s.query_id AND j.chunk_id = s.chunk_id
      AND j.annotator = :who AND j.origin NOT IN ('transferred', 'machine', 'generator'))
ORDER BY s.query_id, s.chunk_id
LIMIT :limit
"""


def transfers_table(conn: sqlite3.Connection) -> pd.DataFrame:
    """Every transfer: id, from_set, to_set, threshold, transferred_by, created_at."""
    return pd.read_sql_query(
        "SELECT id, from_set, to_set, threshold, transferred_by, created_at"
        " FROM label_transfers ORDER BY id", conn)


def labels_written(conn: sqlite3.Connection, tid: int) -> pd.DataFrame:
    """Every label transfer ``tid`` wrote: query_id, chunk_id, annotator, grade, source_chunk,
    share_of_judged, share_of_chunk (0-1), split (0/1)."""
    return pd.read_sql_query(
        "SELECT n.query_id, n.chunk_id, n.annotator, n.grade, o.chunk_id AS source_chunk,"
        " t.share_of_judged, t.share_of_chunk, t.split FROM transfer_labels t"
        " JOIN judgments n ON n.id = t.judgment_id JOIN judgments o ON o.id = t.source_judgment_id"
        " WHERE t.transfer_id = ? ORDER BY n.query_id, n.chunk_id, n.annotator",
        conn, params=[tid])


def record_counts(conn: sqlite3.Connection, tid: int) -> dict[str, int]:
    """Counts of transfer ``tid``: labels (written), suggestions, suggestions_judged (by a
    person since the transfer, with a grade), invalidated (old judgments), inferred_labels."""
    return {name: int(conn.execute(sql, [tid]).fetchone()[0]) for name, sql in _COUNTS.items()}


def pairs_by_decision(conn: sqlite3.Connection, tid: int) -> dict[str, int]:
    """Decision -> number of new pairs transfer ``tid`` decided so."""
    return dict(conn.execute(
        "SELECT decision, count(*) FROM transfer_pairs WHERE transfer_id = ?"
        " GROUP BY decision", [tid]).fetchall())


def invalidated_queries(conn: sqlite3.Connection, tid: int) -> list[str]:
    """The queries (sorted) of the old judgments transfer ``tid`` invalidated."""
    return [r[0] for r in conn.execute(
        "SELECT DISTINCT j.query_id FROM transfer_invalidated i JOIN judgments j"
        " ON j.id = i.judgment_id WHERE i.transfer_id = ? ORDER BY 1", [tid])]


def sources_with_segment(conn: sqlite3.Connection, tid: int, segment: str) -> pd.DataFrame:
    """Each old judgment transfer ``tid`` read: query_id, grade, outcome, split, segment (the
    query's ``source`` or ``split`` column, or the value of attribute ``segment``; None when
    the query lacks it)."""
    if segment in ("source", "split"):
        value = f"q.{segment}"
        join = ""
    else:
        value = "a.value"
        join = "LEFT JOIN query_attributes a ON a.query_id = j.query_id AND a.name = :segment"
    return pd.read_sql_query(
        f"SELECT j.query_id, j.grade, s.outcome, s.split, {value} AS segment"
        " FROM transfer_sources s JOIN judgments j ON j.id = s.judgment_id"
        f" JOIN queries q ON q.id = j.query_id {join} WHERE s.transfer_id = :tid",
        conn, params={"tid": tid, "segment": segment},
    )


def unjudged_suggestions(
    conn: sqlite3.Connection, tid: int, annotator: str, limit: int
) -> pd.DataFrame:
    """Up to ``limit`` suggestions of transfer ``tid`` that ``annotator`` has no own judgment
    of: query_id, chunk_id, query_text, title, chunk_text, by (query, chunk)."""
    return pd.read_sql_query(_OPEN_SQL, conn, params={
        "tid": tid, "who": annotator, "limit": int(limit)})


def latest_own_judgment(
    conn: sqlite3.Connection, query_id: str, chunk_id: str, annotator: str
) -> tuple[int | None, bool] | None:
    """(grade, can't judge) of ``annotator``'s latest own judgment of the pair; None when they
    have none."""
    row = conn.execute(
        "SELECT grade, coalesce(json_extract(flags, '$.cant_judge'), 0) FROM judgments"
        " WHERE query_id = ? AND chunk_id = ? AND annotator = ?"
        " AND origin NOT IN ('transferred', 'machine', 'generator') ORDER BY id DESC LIMIT 1",
        [query_id, chunk_id, annotator],
    ).fetchone()
    return None if row is None else (row[0], bool(row[1]))


def suggestion_detail(
    conn: sqlite3.Connection, tid: int, query_id: str, chunk_id: str
) -> str | None:
    """The JSON list of old grades stored with a suggested pair of transfer ``tid``; None when
    the pair is not one of its suggestions."""
    row = conn.execute(
        "SELECT detail FROM transfer_suggestions WHERE transfer_id = ? AND query_id = ?"
        " AND chunk_id = ?", [tid, query_id, chunk_id]).fetchone()
    return None if row is None else row[0]
