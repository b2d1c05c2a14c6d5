"""Migration 8: where every judgment came from, and how every judged pair came to be judged.

- ``judgments.origin``: who or what made the decision, one of
  ``labeling.workspace.provenance.ORIGINS``; ``judgments.origin_source`` says which one (the
  file an import came from, a model and prompt version, a chunk set...), NULL for a person.
  Rows written before this migration are ``unknown`` (a hand judgment and an import were stored
  alike), except those the synthetic-question generator flagged, which are ``generator``.
- ``pair_sources``: one row per way a (query, chunk) pair reached the judges: a pool of a run
  cut at ``pool_depth``, a corpus search, an import, a synthetic question, a label transferred
  from another chunk set, or a pair queued by hand. A pair may have several.
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
ALTER TABLE judgments ADD COLUMN origin TEXT NOT NULL DEFAULT 'unknown'
    CHECK (origin IN ('person', 'import', 'generator', 'machine', 'transferred', 'unknown'));
ALTER TABLE judgments ADD COLUMN origin_source TEXT;
-- The append-only rule is lifted for this one backfill and restored as it was.
DROP TRIGGER judgments_no_update;
UPDATE judgments SET origin = 'generator'
    WHERE coalesce(json_extract(flags, '$.generator'), 0);
CREATE TRIGGER judgments_no_update BEFORE UPDATE ON judgments
BEGIN SELECT RAISE(ABORT, 'judgments are append-only: UPDATE is not allowed'); END;
CREATE INDEX judgments_origin ON judgments(origin);
CREATE TABLE pair_sources (
    id INTEGER PRIMARY KEY,
    query_id TEXT NOT NULL REFERENCES queries(id),
    chunk_id TEXT NOT NULL REFERENCES chunks(id),
    source TEXT NOT NULL
        CHECK (source IN ('pool', 'search', 'import', 'synthetic', 'transfer', 'queue')),
    pool_depth INTEGER CHECK (pool_depth IS NULL OR pool_depth > 0),
    detail TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX pair_sources_pair ON pair_sources(query_id, chunk_id);
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
