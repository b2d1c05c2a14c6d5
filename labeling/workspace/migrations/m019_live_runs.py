"""Migration 19: the progress of live runs (a retriever called through a connection).

- ``live_run_queries``: one row per (run name, query) a live run has asked: ``status`` ``done``
  (``hits`` holds the retriever's (id, score) pairs as JSON, best first) or ``failed`` (``error``
  says why). ``setup_hash`` is the hash of the connection, template, parameters, k and split the
  run was started with: running the same name again with the same setup asks only the queries
  not done yet; another setup under that name is refused. The run itself is stored in ``runs``
  once every query was asked (failed ones listed in its metadata).
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
CREATE TABLE live_run_queries (
    run_name TEXT NOT NULL,
    setup_hash TEXT NOT NULL,
    query_id TEXT NOT NULL REFERENCES queries(id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('done', 'failed')),
    hits TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(hits)),
    error TEXT NOT NULL DEFAULT '',
    asked_at TEXT NOT NULL,
    PRIMARY KEY (run_name, query_id)
);
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
