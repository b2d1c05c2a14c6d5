"""Migration 14: columnar copies of runs, per-query values scored elsewhere, and a counter of
changes to the queries.

- ``run_parts``: a stored run as Arrow IPC blobs (``labeling.workspace.run_parts``), written
  in the run's import transaction: rows ordered by query id (byte order), then as trec_eval
  ranks them (score descending, doc id descending), with that rank. Part ``i`` holds whole
  queries ``first_query`` .. ``last_query``; ``rows`` is its row count. Runs stored before
  this migration get their parts on first use. Deleting a run deletes its parts.
- ``run_values``: per-query values of a run computed outside the workspace (a cluster), one
  Arrow IPC blob per run: query_id plus one float64 column per measure; ``measures`` (JSON
  list), ``labels`` (what they were scored against: file and hash), ``engine``.
- ``change_counters``: ``queries`` counts every insert, update and delete of ``queries`` and
  ``query_attributes`` (triggers below), so that caches of the query table (segments, splits)
  outlive new judgments.
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
CREATE TABLE run_parts (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    part INTEGER NOT NULL,
    first_query TEXT NOT NULL,
    last_query TEXT NOT NULL,
    rows INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (run_id, part)
);
CREATE TABLE run_values (
    run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    measures TEXT NOT NULL CHECK (json_valid(measures)),
    labels TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(labels)),
    engine TEXT NOT NULL,
    queries INTEGER NOT NULL,
    data BLOB NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE change_counters (
    name TEXT PRIMARY KEY,
    value INTEGER NOT NULL DEFAULT 0
);
INSERT INTO change_counters (name, value) VALUES ('queries', 0);
"""
# The counter's triggers: every insert, update and delete of the query tables counts.
COUNTED = "".join(
    f"CREATE TRIGGER {table}_counted_{event.lower()} AFTER {event} ON {table}\n"
    "BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'queries'; END;\n"
    for table in ("queries", "query_attributes") for event in ("INSERT", "UPDATE", "DELETE")
)


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT + COUNTED)
