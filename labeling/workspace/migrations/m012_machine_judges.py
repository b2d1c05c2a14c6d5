"""Migration 12: machine judges (labels by a model), their call cache, batches and audit samples.

- ``machine_prompts``: each prompt template a judge used, by its SHA-256 (``prompt_hash``), with
  the version name the team gave it: a label can always be traced to the exact text sent.
- ``machine_calls``: the call cache, one row per (model, prompt hash, query, chunk) that got a
  usable reply: grade, reason, the raw reply and the token counts the server reported (NULL when
  it reported none). A second run of the same judge on the same pair reads it instead of calling.
- ``machine_batches``: one row per batch a team started (judge = ``model@prompt-version``, the
  judgments' annotator and ``origin_source``; the pair set it covers; when it finished).
  ``machine_batch_pairs``: its pairs in order, ``pending`` until labeled (``done``) or left out
  (``skipped``, e.g. a locked split); the last failure and the raw reply of a malformed answer
  are kept, so nothing a model said is lost and a resumed batch retries only what is pending.
- ``machine_labels``: the details of each machine judgment (``judgments.origin = 'machine'``):
  model, prompt version and hash, temperature, the reason and the raw reply.
- ``audit_samples`` / ``audit_pairs``: a sample of one judge's pairs for people to verify. Every
  pair of the sampled queries' label pools is stored with its place in the query's audit order,
  its weight and its inclusion probability (1 for pairs people had labeled when the sample was
  drawn, ``known``), whether the audit took it (``sampled``) and the machine's grade then:
  enough to recompute the prediction-powered estimates without bias.
- Machine judgments are not votes in the labeling queue: the trigger that counts who handled a
  queued pair now leaves them out, so a pair a model graded still waits for a person.
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
CREATE TABLE machine_prompts (
    prompt_hash TEXT PRIMARY KEY,
    version TEXT NOT NULL,
    template TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE machine_calls (
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
    PRIMARY KEY (model, prompt_hash, query_id, chunk_id)
);
CREATE TABLE machine_batches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    judge TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    prompt_hash TEXT NOT NULL REFERENCES machine_prompts(prompt_hash),
    temperature REAL NOT NULL,
    pair_set TEXT NOT NULL,
    created_by TEXT,
    created_at TEXT NOT NULL,
    finished_at TEXT
);
CREATE TABLE machine_batch_pairs (
    batch_id INTEGER NOT NULL REFERENCES machine_batches(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    query_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'skipped')),
    attempts INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    reply TEXT,
    judgment_id INTEGER REFERENCES judgments(id),
    PRIMARY KEY (batch_id, query_id, chunk_id)
);
CREATE INDEX machine_batch_pending ON machine_batch_pairs(batch_id, position)
    WHERE state = 'pending';
CREATE TABLE machine_labels (
    judgment_id INTEGER PRIMARY KEY REFERENCES judgments(id),
    batch_id INTEGER REFERENCES machine_batches(id),
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    prompt_hash TEXT NOT NULL,
    temperature REAL NOT NULL,
    reason TEXT NOT NULL,
    reply TEXT NOT NULL,
    cached INTEGER NOT NULL
);
CREATE TABLE audit_samples (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    judge TEXT NOT NULL,
    budget REAL NOT NULL CHECK (budget > 0),
    relevance INTEGER NOT NULL,
    runs TEXT NOT NULL,
    segment TEXT,
    seed INTEGER NOT NULL,
    pairs INTEGER NOT NULL,
    created_by TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE audit_pairs (
    sample_id INTEGER NOT NULL REFERENCES audit_samples(id) ON DELETE CASCADE,
    query_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    position INTEGER NOT NULL CHECK (position >= 1),
    known INTEGER NOT NULL,
    machine_grade INTEGER,
    weight REAL NOT NULL,
    inclusion REAL NOT NULL CHECK (inclusion > 0 AND inclusion <= 1),
    sampled INTEGER NOT NULL,
    PRIMARY KEY (sample_id, query_id, chunk_id)
);
CREATE INDEX audit_pairs_order ON audit_pairs(sample_id, query_id, position);
DROP TRIGGER queue_done_from_judgment;
CREATE TRIGGER queue_done_from_judgment AFTER INSERT ON judgments
WHEN NEW.annotator <> 'generator'
    AND coalesce(json_extract(NEW.flags, '$.generator'), 0) = 0
    AND NEW.origin <> 'machine'
BEGIN
    INSERT OR REPLACE INTO queue_done (query_id, chunk_id, annotator, judgment_id, voted, queued)
    VALUES (NEW.query_id, NEW.chunk_id, NEW.annotator, NEW.id, NEW.grade IS NOT NULL,
            EXISTS (SELECT 1 FROM label_queue l
                    WHERE l.query_id = NEW.query_id AND l.chunk_id = NEW.chunk_id));
END;
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
