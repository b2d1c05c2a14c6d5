"""Run a multi-statement SQL script inside the caller's transaction."""

from __future__ import annotations

import sqlite3


def execute_script(conn: sqlite3.Connection, script: str) -> None:
    """Run statements one by one: ``executescript`` would COMMIT the open transaction."""
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            conn.execute(statement)
            statement = ""
    if statement.strip():
        raise ValueError(f"incomplete SQL statement: {statement!r}")
