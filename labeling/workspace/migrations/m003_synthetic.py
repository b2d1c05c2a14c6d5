"""Schema migration for the synthetic tables (see ``labeling.workspace.migrations``).

``synthetic_candidates``: one generated or imported question waiting for review. Answer offsets
are characters into the source chunk's text (end exclusive). ``outranking`` is a JSON list of
the chunk ids BM25 ranked above the source for this question (the round-trip check);
``source_rank`` is NULL when the source was not in the top ``roundtrip_k``.
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
CREATE TABLE synthetic_candidates (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    batch TEXT NOT NULL,
    chunk_id TEXT NOT NULL REFERENCES chunks(id),
    question TEXT NOT NULL,
    generated_question TEXT NOT NULL,
    sentence TEXT NOT NULL DEFAULT '',
    answer TEXT NOT NULL DEFAULT '',
    answer_start INTEGER,
    answer_end INTEGER,
    kind TEXT NOT NULL DEFAULT '',
    generator TEXT NOT NULL,
    rubric_problems TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(rubric_problems)),
    overlap REAL,
    n_words INTEGER,
    duplicate_of TEXT,
    duplicate_similarity REAL,
    source_rank INTEGER,
    roundtrip_k INTEGER,
    outranking TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(outranking)),
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'accepted', 'rejected')),
    reject_reason TEXT,
    reviewer TEXT,
    query_id TEXT REFERENCES queries(id),
    created_at TEXT NOT NULL,
    reviewed_at TEXT
);
CREATE INDEX synthetic_candidates_status ON synthetic_candidates(status);
CREATE INDEX synthetic_candidates_chunk ON synthetic_candidates(chunk_id);
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
