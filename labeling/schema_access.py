"""Schema migration for the access tables (see `labeling.store.MIGRATIONS`)."""

from __future__ import annotations

import sqlite3

from labeling.sqlscript import execute_script

SCRIPT = """
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
