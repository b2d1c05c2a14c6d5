"""Migration 9: which queries a score is made of -- the order in which queries arrived, how far
it had got when a run was made, and whether a saved score skipped the queries without results.

- ``query_arrivals``: one row per query, numbered (``seq``) in the order the queries reached the
  workspace (filled by a trigger on every insert into ``queries``, whatever inserts it: an
  import, a query typed in, an accepted synthetic question, a placeholder). Queries present
  before this migration are numbered in their stored order.
- ``runs.newest_query_seq``: the ``seq`` of the newest query when the run was stored (set by a
  trigger). A labeled query with a higher ``seq`` that the run has no result for was added after
  the run was made: the run is older than the query set. Runs stored before this migration have
  NULL: their query set at import is unknown.
- ``evaluation_snapshots.missing``: ``zero`` (queries the run returned nothing for scored 0,
  the only treatment before) or ``skip`` (left out), as ``Controls.missing``.
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
CREATE TABLE query_arrivals (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    query_id TEXT NOT NULL UNIQUE
);
INSERT INTO query_arrivals (query_id) SELECT id FROM queries ORDER BY rowid;
CREATE TRIGGER query_arrival AFTER INSERT ON queries
WHEN NOT EXISTS (SELECT 1 FROM query_arrivals WHERE query_id = NEW.id)
BEGIN
    INSERT INTO query_arrivals (query_id) VALUES (NEW.id);
END;
ALTER TABLE runs ADD COLUMN newest_query_seq INTEGER;
CREATE TRIGGER run_query_set AFTER INSERT ON runs
BEGIN
    UPDATE runs SET newest_query_seq = (SELECT coalesce(max(seq), 0) FROM query_arrivals)
    WHERE id = NEW.id;
END;
ALTER TABLE evaluation_snapshots ADD COLUMN missing TEXT NOT NULL DEFAULT 'zero'
    CHECK (missing IN ('zero', 'skip'));
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
