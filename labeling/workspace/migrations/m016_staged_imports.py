"""Migration 16: runs staged while they import, and one counter of the data scores depend on.

- ``runs.importing``: 1 while a run file is being stored (``labeling.files.importers.runs``):
  the run's rows go in by short transactions, so saves never wait behind the whole import,
  and nobody sees the run until one short final transaction sets ``importing = 0`` and gives
  it its name. Every reader of ``runs`` lists only ``importing = 0``; a staged run's name is
  ``STAGED_PREFIX`` + a random token, which no run name can be (it holds a control character).
- ``change_counters`` row ``data``: counts every insert, update and delete of a table that a
  score depends on besides the judgments (chunks and their documents, runs, chunk sets and
  spans, the scale, the labeling settings, split locks; a staged
  run counts when it is published, not while it imports or when a failed import drops it). The
  result caches key on it with the queries counter (``labeling.evaluation.inputs.result_cache``), so
  a write from anywhere (a page, the command line, another process) invalidates what it
  changes. Judgments are append-only with increasing ids: their version is the newest id
  (machine and transferred labels reach the scores as judgments too).
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

STAGED_PREFIX = "\x00staged "
SCORED_TABLES = (
    "scale", "chunks", "documents", "run_values", "chunk_sets", "chunk_spans",
    "chunk_set_members", "labeling_settings", "split_locks",
)
SCRIPT = """
ALTER TABLE runs ADD COLUMN importing INTEGER NOT NULL DEFAULT 0;
INSERT INTO change_counters (name, value) VALUES ('data', 0);
"""
COUNTED = "".join(
    f"CREATE TRIGGER {table}_data_{event.lower()} AFTER {event} ON {table}\n"
    "BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'data'; END;\n"
    for table in SCORED_TABLES for event in ("INSERT", "UPDATE", "DELETE")
)
# Runs count when they become visible (published, renamed, edited) or visible ones go; a staged
# run that is discarded (a failed import) leaves the counter as it was.
COUNTED_RUNS = "".join(
    f"CREATE TRIGGER runs_data_{event.lower()} AFTER {event} ON runs{when}\n"
    "BEGIN UPDATE change_counters SET value = value + 1 WHERE name = 'data'; END;\n"
    for event, when in (("INSERT", " WHEN NOT NEW.importing"),
                        ("UPDATE", " WHEN NOT (OLD.importing AND NEW.importing)"),
                        ("DELETE", " WHEN NOT OLD.importing"))
)


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT + COUNTED + COUNTED_RUNS)
