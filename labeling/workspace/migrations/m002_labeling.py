"""Schema migration for the labeling tables (see ``labeling.workspace.migrations``).

- ``label_queue``: one row per pair waiting to be judged (or judged through the queue). ``needed``
  is how many people must judge it (2 for the overlap share), ``judged`` how many have a vote on
  it since it was (re-)queued, kept by the triggers below. ``shuffle_key`` is a stable
  pseudo-random order (blind judging: no run, rank or score is stored here).
- ``queue_done``: who has handled a queued pair since it was (re-)queued and with which judgment;
  ``voted`` is 0 for "can't judge" (handled by that person, no vote); ``queued`` is 1 while the
  pair is in ``label_queue`` (for a cheap progress count). Filled by a trigger on every human
  judgment, so imports and other pages count too. Re-judging deletes rows here; the
  judgments themselves stay (append-only).
- ``queue_skips``: pairs an annotator skipped; served to them again only after everything else.
- ``queue_leases``: the card an annotator has open, so two people working at once do not get the
  same single-judgment pair.
- ``labeling_settings``: name -> value (``overlap_share``).
- ``rejudge_requests``: the audit trail of bulk re-judge actions.
- A judgment by ``generator`` (synthetic questions awaiting confirmation) queues its pair.
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
CREATE TABLE label_queue (
    query_id TEXT NOT NULL REFERENCES queries(id) ON DELETE CASCADE,
    chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    reason TEXT NOT NULL,
    needed INTEGER NOT NULL DEFAULT 1 CHECK (needed >= 1),
    judged INTEGER NOT NULL DEFAULT 0,
    shuffle_key INTEGER NOT NULL,
    added_at TEXT NOT NULL,
    PRIMARY KEY (query_id, chunk_id)
);
CREATE INDEX label_queue_open ON label_queue(shuffle_key) WHERE judged < needed;
CREATE INDEX label_queue_reason ON label_queue(reason);
CREATE TABLE queue_done (
    query_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    annotator TEXT NOT NULL,
    judgment_id INTEGER NOT NULL,
    voted INTEGER NOT NULL,
    queued INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (query_id, chunk_id, annotator)
);
CREATE INDEX queue_done_mine ON queue_done(annotator) WHERE queued;
CREATE TABLE queue_skips (
    annotator TEXT NOT NULL,
    query_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    skipped_at TEXT NOT NULL,
    PRIMARY KEY (annotator, query_id, chunk_id)
);
CREATE TABLE queue_leases (
    query_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    annotator TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    PRIMARY KEY (query_id, chunk_id, annotator)
);
CREATE INDEX queue_leases_annotator ON queue_leases(annotator);
CREATE TABLE labeling_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE rejudge_requests (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    scope TEXT NOT NULL CHECK (scope IN ('query', 'segment', 'annotator', 'pairs')),
    target TEXT NOT NULL,
    pairs INTEGER NOT NULL,
    requested_by TEXT,
    requested_at TEXT NOT NULL
);
CREATE TRIGGER queue_done_from_judgment AFTER INSERT ON judgments
WHEN NEW.annotator <> 'generator'
    AND coalesce(json_extract(NEW.flags, '$.generator'), 0) = 0
BEGIN
    INSERT OR REPLACE INTO queue_done (query_id, chunk_id, annotator, judgment_id, voted, queued)
    VALUES (NEW.query_id, NEW.chunk_id, NEW.annotator, NEW.id, NEW.grade IS NOT NULL,
            EXISTS (SELECT 1 FROM label_queue l
                    WHERE l.query_id = NEW.query_id AND l.chunk_id = NEW.chunk_id));
END;
CREATE TRIGGER queue_done_queued AFTER INSERT ON label_queue
BEGIN
    UPDATE queue_done SET queued = 1 WHERE query_id = NEW.query_id AND chunk_id = NEW.chunk_id;
END;
CREATE TRIGGER queue_done_unqueued AFTER DELETE ON label_queue
BEGIN
    UPDATE queue_done SET queued = 0 WHERE query_id = OLD.query_id AND chunk_id = OLD.chunk_id;
END;
CREATE TRIGGER queue_from_generator AFTER INSERT ON judgments
WHEN NEW.annotator = 'generator' OR coalesce(json_extract(NEW.flags, '$.generator'), 0) <> 0
BEGIN
    INSERT OR IGNORE INTO label_queue (query_id, chunk_id, reason, needed, judged, shuffle_key,
                                       added_at)
    VALUES (NEW.query_id, NEW.chunk_id, 'confirm', 1,
            (SELECT count(*) FROM queue_done d
             WHERE d.query_id = NEW.query_id AND d.chunk_id = NEW.chunk_id AND d.voted),
            abs(random()) % 9007199254740991, NEW.created_at);
END;
CREATE TRIGGER queue_done_count_insert AFTER INSERT ON queue_done
BEGIN
    UPDATE label_queue SET judged = (
        SELECT count(*) FROM queue_done d
        WHERE d.query_id = NEW.query_id AND d.chunk_id = NEW.chunk_id AND d.voted)
    WHERE query_id = NEW.query_id AND chunk_id = NEW.chunk_id;
END;
CREATE TRIGGER queue_done_count_delete AFTER DELETE ON queue_done
BEGIN
    UPDATE label_queue SET judged = (
        SELECT count(*) FROM queue_done d
        WHERE d.query_id = OLD.query_id AND d.chunk_id = OLD.chunk_id AND d.voted)
    WHERE query_id = OLD.query_id AND chunk_id = OLD.chunk_id;
END;
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
