"""Migration 15: connections to outside servers, kept by admins; the machine-call cache keyed
by the connection; pairs a batch sets aside.

- ``connections``: one row per named connection an admin stored. ``kind`` says what it is
  (``model_server`` now; other kinds share the table, the roles and the rules); ``base_url``;
  ``model`` (a model server's model name, '' for kinds without one); ``key_env``: the *name* of
  the environment variable that holds the key ('' for none; the key itself is never stored);
  ``call_ceiling``: the most requests one batch may send through it; ``options``: JSON for what
  a kind needs beyond these.
- ``machine_calls`` is rebuilt with ``connection_id`` (0: a server named on the command line)
  and ``base_url`` in its key, so an answer from one server is never reused for another with
  the same model name. Rows cached before this migration have ``base_url`` '' (the server is
  unknown) and are never reused.
- ``machine_batches`` records the connection and base URL it was started with; a resume goes
  to the same connection.
- ``machine_batch_pairs`` is rebuilt with ``failures`` (times the pair itself failed: a
  malformed or unusable reply, an error; not a rate limit) and the state ``set_aside``: a pair
  that failed too often is put aside so the batch can finish; its last error and raw reply stay.
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
CREATE TABLE connections (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    base_url TEXT NOT NULL,
    model TEXT NOT NULL DEFAULT '',
    key_env TEXT NOT NULL DEFAULT '',
    call_ceiling INTEGER NOT NULL CHECK (call_ceiling >= 1),
    options TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(options)),
    changed_by TEXT,
    changed_at TEXT NOT NULL,
    UNIQUE (kind, name)
);
CREATE TABLE machine_calls_keyed (
    connection_id INTEGER NOT NULL,
    base_url TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_hash TEXT NOT NULL REFERENCES machine_prompts(prompt_hash),
    query_id TEXT NOT NULL REFERENCES queries(id) ON DELETE CASCADE,
    chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    temperature REAL NOT NULL,
    grade INTEGER NOT NULL,
    reason TEXT NOT NULL,
    reply TEXT NOT NULL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    created_at TEXT NOT NULL,
    PRIMARY KEY (connection_id, base_url, model, prompt_hash, query_id, chunk_id)
);
INSERT INTO machine_calls_keyed
SELECT 0, '', model, prompt_hash, query_id, chunk_id, temperature, grade, reason, reply,
       prompt_tokens, completion_tokens, created_at FROM machine_calls;
DROP TABLE machine_calls;
ALTER TABLE machine_calls_keyed RENAME TO machine_calls;
ALTER TABLE machine_batches ADD COLUMN connection_id INTEGER;
ALTER TABLE machine_batches ADD COLUMN base_url TEXT;
CREATE TABLE machine_batch_pairs_kept (
    batch_id INTEGER NOT NULL REFERENCES machine_batches(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    query_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending'
        CHECK (state IN ('pending', 'done', 'skipped', 'set_aside')),
    attempts INTEGER NOT NULL DEFAULT 0,
    failures INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    reply TEXT,
    judgment_id INTEGER REFERENCES judgments(id),
    PRIMARY KEY (batch_id, query_id, chunk_id)
);
INSERT INTO machine_batch_pairs_kept (batch_id, position, query_id, chunk_id, state, attempts,
                                      failures, error, reply, judgment_id)
SELECT batch_id, position, query_id, chunk_id, state, attempts,
       CASE WHEN state = 'pending' THEN attempts ELSE 0 END, error, reply, judgment_id
FROM machine_batch_pairs;
DROP TABLE machine_batch_pairs;
ALTER TABLE machine_batch_pairs_kept RENAME TO machine_batch_pairs;
CREATE INDEX machine_batch_pending ON machine_batch_pairs(batch_id, position)
    WHERE state = 'pending';
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
