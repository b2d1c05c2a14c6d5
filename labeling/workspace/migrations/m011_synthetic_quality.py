"""Migration 11: quality, forms and resumable batches of synthetic questions.

- ``synthetic_candidates`` gains ``form`` (how-to | what-why | comparison | keyword, '' for
  rows written before), ``subject`` (what the question names), ``features`` (JSON of the
  quality features, ``labeling.synthetic.features``; '{}' before), ``quality`` (the score in
  [0, 1] under the weights in force when it was written or last rescored; NULL before),
  ``critic_score`` (the LLM critic's score in [0, 1], NULL when none) and ``paragraph_key``
  (hash of the normalised paragraph holding the answer: one question per repeated paragraph).
  ``answer_start``/``answer_end`` (already there) are character offsets into the chunk text.
- ``synthetic_settings``: name -> JSON value set by the team (quality floor, form mix, LLM
  domain, persona and call cap); who changed it and when.
- ``synthetic_quality_models``: every learned set of weights (JSON), how many decisions and
  acceptances as written it was fitted on, by whom and when; the newest is in force.
- ``synthetic_batches``: one generation run: generator, its settings (JSON), passages planned,
  calls made, replies whose answer was not found in the passage (``unmatched``).
- ``synthetic_batch_passages``: the passages of a batch in order with their state (pending |
  done | failed): a passage is marked done in the transaction that stores its candidates, so
  an interrupted batch resumes from the first passage not done, repeating nothing.
- ``synthetic_unmatched``: the replies counted in ``unmatched`` (question and answer as given).
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
ALTER TABLE synthetic_candidates ADD COLUMN form TEXT NOT NULL DEFAULT '';
ALTER TABLE synthetic_candidates ADD COLUMN subject TEXT NOT NULL DEFAULT '';
ALTER TABLE synthetic_candidates ADD COLUMN features TEXT NOT NULL DEFAULT '{}'
    CHECK (json_valid(features));
ALTER TABLE synthetic_candidates ADD COLUMN quality REAL;
ALTER TABLE synthetic_candidates ADD COLUMN critic_score REAL;
ALTER TABLE synthetic_candidates ADD COLUMN paragraph_key TEXT;
CREATE INDEX synthetic_candidates_queue ON synthetic_candidates(status, quality);
CREATE INDEX synthetic_candidates_paragraph ON synthetic_candidates(paragraph_key);
CREATE TABLE synthetic_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL CHECK (json_valid(value)),
    changed_by TEXT,
    changed_at TEXT NOT NULL
);
CREATE TABLE synthetic_quality_models (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    weights TEXT NOT NULL CHECK (json_valid(weights)),
    decisions INTEGER NOT NULL,
    accepted INTEGER NOT NULL,
    fitted_by TEXT,
    fitted_at TEXT NOT NULL
);
CREATE TABLE synthetic_batches (
    id TEXT PRIMARY KEY,
    generator TEXT NOT NULL,
    settings TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(settings)),
    passages INTEGER NOT NULL,
    calls INTEGER NOT NULL DEFAULT 0,
    unmatched INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    finished_at TEXT
);
CREATE TABLE synthetic_batch_passages (
    batch TEXT NOT NULL REFERENCES synthetic_batches(id),
    position INTEGER NOT NULL,
    chunk_id TEXT NOT NULL REFERENCES chunks(id),
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
    calls INTEGER NOT NULL DEFAULT 0,
    candidates INTEGER NOT NULL DEFAULT 0,
    unmatched INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    PRIMARY KEY (batch, position)
);
CREATE TABLE synthetic_unmatched (
    batch TEXT NOT NULL REFERENCES synthetic_batches(id),
    chunk_id TEXT NOT NULL,
    question TEXT NOT NULL,
    answer TEXT NOT NULL
);
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
