"""Migration 5: ``users``, one row per account (see ``labeling.workspace.accounts``).

``password_hash`` is an argon2id PHC string (salt and parameters inside it); the clear password
is never stored. No row at all means sign-in is off.
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
CREATE TABLE users (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('admin', 'annotator', 'viewer')),
    password_hash TEXT NOT NULL CHECK (password_hash LIKE '$argon2%'),
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
"""



def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
