"""Schema migration for the dashboard tables (see ``labeling.workspace.migrations``).

- ``failure_tags``: tags the team added to the built-in list
(``labeling.evaluation.views.failure_tags.FAILURE_TAGS``).
- ``failure_reviews``: append-only; one row per (query, run, tag) a reviewer recorded, with a note.
- ``split_locks``: a locked split (``test``); while a row exists, judgments of the split's queries
  and the split membership itself cannot change (enforced by the triggers below and, with a
  friendlier message, in ``labeling.workspace.judgments.add_judgment``).
- ``evaluation_snapshots``: a run's headline means saved for the history, with the hash of the
  label snapshot they were computed on.
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
CREATE TABLE failure_tags (
    name TEXT PRIMARY KEY,
    description TEXT NOT NULL DEFAULT '',
    created_by TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE failure_reviews (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    query_id TEXT NOT NULL REFERENCES queries(id) ON DELETE CASCADE,
    run_name TEXT NOT NULL,
    tag TEXT NOT NULL,
    note TEXT,
    reviewer TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX failure_reviews_query ON failure_reviews(query_id, run_name);
CREATE TABLE split_locks (
    split TEXT PRIMARY KEY CHECK (split IN ('dev', 'test')),
    locked_by TEXT NOT NULL,
    locked_at TEXT NOT NULL,
    snapshot_hash TEXT NOT NULL
);
CREATE TRIGGER split_lock_judgments BEFORE INSERT ON judgments
WHEN EXISTS (
    SELECT 1 FROM split_locks l JOIN queries q ON q.split = l.split WHERE q.id = NEW.query_id
)
BEGIN SELECT RAISE(ABORT, 'the split of this query is locked: its labels cannot change'); END;
CREATE TRIGGER split_lock_membership BEFORE UPDATE OF split ON queries
WHEN NEW.split IS NOT OLD.split AND EXISTS (
    SELECT 1 FROM split_locks WHERE split = OLD.split OR split = NEW.split
)
BEGIN SELECT RAISE(ABORT, 'the split is locked: queries cannot move in or out of it'); END;
CREATE TABLE evaluation_snapshots (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_name TEXT NOT NULL,
    query_set_version TEXT,
    split TEXT NOT NULL,
    unit TEXT NOT NULL,
    policy TEXT NOT NULL,
    snapshot_hash TEXT NOT NULL,
    n_queries INTEGER NOT NULL,
    means TEXT NOT NULL CHECK (json_valid(means)),
    created_by TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX evaluation_snapshots_run ON evaluation_snapshots(run_name, id);
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
