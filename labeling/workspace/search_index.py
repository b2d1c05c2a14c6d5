"""The full-text index of the chunks (``chunk_search``, migration 10) after an import.

The triggers index each chunk as it is stored, in small segments that FTS5 merges as they pile
up; a search reads every segment. After an import that stored at least ``OPTIMIZE_SHARE`` of
the workspace's chunks, the index is merged into one segment (FTS5 ``optimize``) in the
import's own transaction, so that a big import never leaves a fragmented index behind. On a
million chunks (``benchmarks/bench_search.py``, two runs) the merge took 8 and 12 s after
imports of 168 and 211 s; the demo queries' median search went from 143 to 32 ms in the first
run and stayed at 46-49 ms in the second. Smaller imports leave the merging to FTS5.
"""

from __future__ import annotations

import sqlite3

OPTIMIZE_SHARE = 0.1


def settle_after_import(conn: sqlite3.Connection, stored: int) -> bool:
    """Merge the index when ``stored`` chunks (new or changed) are at least ``OPTIMIZE_SHARE`` of
    all chunks; inside the caller's transaction. Returns whether it merged."""
    if stored <= 0:
        return False
    total = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    if stored < OPTIMIZE_SHARE * total:
        return False
    conn.execute("INSERT INTO chunk_search (chunk_search) VALUES ('optimize')")
    return True


# ---------------------------------------------------------------------------------------------
# Reads and writes used by labeling.judging

_HOLDING_SQL = """
SELECT count(*) FROM (SELECT rowid FROM chunk_search WHERE chunk_search MATCH ? LIMIT ?)
"""
_SEARCH_SQL = """
SELECT c.id, coalesce(c.doc_id, ''), coalesce(c.title, ''), coalesce(c.text, ''), -hit.rank
FROM (SELECT rowid, rank FROM chunk_search WHERE chunk_search MATCH ?
      ORDER BY rank LIMIT ?) AS hit
JOIN chunks c ON c.rowid = hit.rowid
ORDER BY hit.rank, c.id
"""


def chunks_matching(conn: sqlite3.Connection, match: str, limit: int) -> list[tuple]:
    """(chunk id, doc id, title, text, score) of the ``limit`` chunks the FTS5 query ``match``
    ranks best (score: FTS5's BM25, higher is better), ties by chunk id; '' for a missing doc
    id, title or text."""
    return conn.execute(_SEARCH_SQL, [match, int(limit)]).fetchall()


def chunks_holding(conn: sqlite3.Connection, match: str, cap: int | None) -> int:
    """How many chunks the FTS5 query ``match`` finds, counted up to ``cap`` (None: all)."""
    return int(conn.execute(_HOLDING_SQL, [match, -1 if cap is None else cap]).fetchone()[0])
