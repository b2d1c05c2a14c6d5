"""What the labeling queue holds, read for the tests (the app never lists the queue)."""

from __future__ import annotations

import sqlite_utils


def queued_pairs(db: sqlite_utils.Database, query_id: str | None = None) -> list[dict]:
    """Queue rows (query_id, chunk_id, reason, needed, judged), in the shuffled order."""
    sql = "SELECT query_id, chunk_id, reason, needed, judged FROM label_queue"
    params: list[str] = []
    if query_id is not None:
        sql += " WHERE query_id = ?"
        params.append(query_id)
    return list(db.query(sql + " ORDER BY shuffle_key", params))
