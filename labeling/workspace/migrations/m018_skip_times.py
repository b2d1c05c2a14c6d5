"""Migration 18: every skip of a card, kept.

- ``skip_times``: one row per skip (annotator, pair, ``skipped_at`` UTC ISO time), never
  deleted: ``queue_skips`` holds only a pair's latest skip and loses it once the pair is judged,
  and judging pace (``labeling.judging.pace``) must know when each skip happened so that the
  time spent on a skipped card is not counted as the next judgment's. The skips stored before
  this migration are copied in.
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
CREATE TABLE skip_times (
    id INTEGER PRIMARY KEY,
    annotator TEXT NOT NULL,
    query_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    skipped_at TEXT NOT NULL
);
CREATE INDEX skip_times_annotator ON skip_times(annotator, skipped_at);
INSERT INTO skip_times (annotator, query_id, chunk_id, skipped_at)
    SELECT annotator, query_id, chunk_id, skipped_at FROM queue_skips ORDER BY skipped_at;
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
