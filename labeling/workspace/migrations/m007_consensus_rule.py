"""Migration 7: the consensus rule a saved score and a split lock were computed under.

- ``evaluation_snapshots.rule`` and ``split_locks.rule``: a consensus rule of
  ``labeling.judging.consensus.RULES``. Rows written before were computed under ``default``
  (the only rule the history and the lock used), which is what they get.
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
ALTER TABLE evaluation_snapshots ADD COLUMN rule TEXT NOT NULL DEFAULT 'default';
ALTER TABLE split_locks ADD COLUMN rule TEXT NOT NULL DEFAULT 'default';
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
