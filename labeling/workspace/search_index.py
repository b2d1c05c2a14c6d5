"""The full-text index of the chunks (``chunk_search``, migration 10) after an import.

The triggers index each chunk as it is stored, in small segments; searches then read every
segment. After an import that stored at least ``OPTIMIZE_SHARE`` of the workspace's chunks, the
index is merged into one segment (FTS5 ``optimize``) in the import's own transaction: measured
on a million chunks, 8 s after a 170 s import, and the median search of the demo's queries went
from 143 ms to 32 ms (``benchmarks/bench_search.py``). Smaller imports leave the merging to
FTS5's own (it merges as segments pile up).
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
