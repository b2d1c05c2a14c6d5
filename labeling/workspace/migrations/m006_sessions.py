"""Migration 6: sessions and sign-in failures; times are Unix seconds (REAL), since the checks
are arithmetic on them.

- ``signing_key``: one row, the secret that signs session tokens (``labeling.workspace.sessions``),
  made once by this migration, so tokens outlive a server restart and a stolen token of another
  workspace does not verify here.
- ``sessions``: one row per sign-in. ``token_hash`` is the SHA-256 of the cookie's token (the
  token itself is never stored); it is NULL until the browser redeemed the one-time
  ``ticket_hash`` for its cookie. ``revoked_at`` is set by a sign-out, a password change or a
  role change; removing the account deletes its rows.
- ``sign_in_failures``: failed (and in-flight) sign-in attempts per ``account`` name and per
  client ``address``, with the time until which that scope is paused.
"""

from __future__ import annotations

import secrets
import sqlite3
import time

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
CREATE TABLE signing_key (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    secret BLOB NOT NULL CHECK (length(secret) >= 32),
    created_at REAL NOT NULL
);
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE,
    token_hash TEXT UNIQUE,
    ticket_hash TEXT UNIQUE,
    ticket_expires_at REAL,
    client TEXT NOT NULL,
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    revoked_at REAL
);
CREATE INDEX sessions_account ON sessions (account);
CREATE TABLE sign_in_failures (
    scope TEXT NOT NULL CHECK (scope IN ('account', 'address')),
    key TEXT NOT NULL,
    failures INTEGER NOT NULL CHECK (failures >= 0),
    last_attempt_at REAL NOT NULL,
    paused_until REAL NOT NULL,
    PRIMARY KEY (scope, key)
) WITHOUT ROWID;
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
    conn.execute(
        "INSERT INTO signing_key (id, secret, created_at) VALUES (1, ?, ?)",
        [secrets.token_bytes(32), time.time()],
    )
