"""Migration 17: evidence spans of judgments.

- ``judgment_evidence``: the character ranges of the chunk's document that answer the query, per
  judgment (``judgment_id``). Offsets are those of ``chunk_spans``: Python string indices of the
  document version the chunk was cut from, end exclusive; every span lies inside its chunk's
  span. Like ``judgments`` the table is append-only (a judgment and its evidence are one
  decision: a new decision is a new judgment with its own evidence), so a judgment's history
  keeps the evidence each decision had.
- ``transfer_pairs``: what a label transfer decided for each new (query, chunk) pair it wrote
  or queued: ``decision`` ``exact`` (the answer's place is known to be in the chunk),
  ``inferred`` (located by matching the query), ``review`` (sent to the labeling queue) or
  ``not_relevant``; ``how`` says why in words (``labeling.rechunking.answers``).
- ``transfer_invalidated``: the judgments a transfer could not carry because their judged text
  or evidence was edited or deleted in the new document version, with ``how``.
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
CREATE TABLE judgment_evidence (
    judgment_id INTEGER NOT NULL REFERENCES judgments(id),
    start INTEGER NOT NULL CHECK (start >= 0),
    "end" INTEGER NOT NULL,
    CHECK ("end" > start),
    PRIMARY KEY (judgment_id, start, "end")
) WITHOUT ROWID;
CREATE TRIGGER judgment_evidence_no_update BEFORE UPDATE ON judgment_evidence
BEGIN SELECT RAISE(ABORT, 'evidence is append-only: UPDATE is not allowed'); END;
CREATE TRIGGER judgment_evidence_no_delete BEFORE DELETE ON judgment_evidence
BEGIN SELECT RAISE(ABORT, 'evidence is append-only: DELETE is not allowed'); END;
CREATE TABLE transfer_pairs (
    transfer_id INTEGER NOT NULL REFERENCES label_transfers(id),
    query_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('exact', 'inferred', 'review', 'not_relevant')),
    how TEXT NOT NULL,
    PRIMARY KEY (transfer_id, query_id, chunk_id)
) WITHOUT ROWID;
CREATE TABLE transfer_invalidated (
    transfer_id INTEGER NOT NULL REFERENCES label_transfers(id),
    judgment_id INTEGER NOT NULL REFERENCES judgments(id),
    how TEXT NOT NULL,
    PRIMARY KEY (transfer_id, judgment_id)
) WITHOUT ROWID;
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
