"""Migration: source documents, chunk sets (chunkings) with each chunk's character span, the
chunk set a run retrieves from, and the records of label transfers between chunk sets.

- ``documents``: one row per (document id, version). ``text`` is the document exactly as
  imported; offsets into it are Python string indices (code points), end exclusive. A version
  given by the file is kept; otherwise it is the first 12 hex digits of the SHA-256 of the text,
  so re-importing the same text is harmless and an edited document becomes a new version.
- ``chunk_sets``: a named chunking (splitter, size and overlap as the team states them, in
  characters unless the splitter says otherwise). A chunk set is immutable once imported.
- ``chunk_spans``: the document span a chunk covers: ``text[start:end]`` of that document
  version is the chunk's text (up to whitespace: see ``labeling.files.importers.chunk_sets``).
- ``chunk_set_members``: which chunks make up a chunk set (``position`` is the file order); a
  chunk with the same id, document and span may belong to several chunk sets.
- ``runs.chunk_set``: the chunk set a run retrieves from (NULL: not stated).
- ``label_transfers``: one row per transfer of labels from one chunk set to another, with the
  overlap threshold it used. ``transfer_sources``: what became of each judgment it read
  (``outcome``). ``transfer_labels``: each label it wrote (a ``transferred`` judgment) with the
  judgment it came from and the overlap. ``transfer_suggestions``: each pair it sent to the
  labeling queue instead, with the old grades (``detail``, JSON) shown after a person judged it.
- The trigger that marks a queued pair handled by whoever judges it (``queue_done_from_judgment``
  of migration 2, as migration 12 left it) is recreated to skip labels of origin ``transferred``
  as well as ``machine``: neither is a person's judging of that pair, so a queued pair stays
  open for the people it waits for.
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
CREATE TABLE documents (
    id TEXT NOT NULL,
    version TEXT NOT NULL,
    title TEXT,
    text TEXT NOT NULL,
    metadata TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
    imported_at TEXT NOT NULL,
    PRIMARY KEY (id, version)
);
CREATE TABLE chunk_sets (
    name TEXT PRIMARY KEY,
    splitter TEXT,
    size INTEGER CHECK (size IS NULL OR size > 0),
    overlap INTEGER CHECK (overlap IS NULL OR overlap >= 0),
    notes TEXT,
    created_at TEXT NOT NULL
);
CREATE TABLE chunk_spans (
    chunk_id TEXT PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    doc_id TEXT NOT NULL,
    doc_version TEXT NOT NULL,
    start INTEGER NOT NULL CHECK (start >= 0),
    "end" INTEGER NOT NULL,
    CHECK ("end" >= start),
    FOREIGN KEY (doc_id, doc_version) REFERENCES documents(id, version)
);
CREATE INDEX chunk_spans_document ON chunk_spans(doc_id, doc_version, start);
CREATE TABLE chunk_set_members (
    chunk_set TEXT NOT NULL REFERENCES chunk_sets(name) ON DELETE CASCADE,
    chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (chunk_set, chunk_id)
) WITHOUT ROWID;
CREATE INDEX chunk_set_members_chunk ON chunk_set_members(chunk_id);
ALTER TABLE runs ADD COLUMN chunk_set TEXT REFERENCES chunk_sets(name);
CREATE TABLE label_transfers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    from_set TEXT NOT NULL REFERENCES chunk_sets(name),
    to_set TEXT NOT NULL REFERENCES chunk_sets(name),
    threshold REAL NOT NULL CHECK (threshold > 0 AND threshold <= 1),
    transferred_by TEXT,
    created_at TEXT NOT NULL,
    UNIQUE (from_set, to_set),
    CHECK (from_set <> to_set)
);
CREATE TABLE transfer_sources (
    transfer_id INTEGER NOT NULL REFERENCES label_transfers(id),
    judgment_id INTEGER NOT NULL REFERENCES judgments(id),
    outcome TEXT NOT NULL
        CHECK (outcome IN ('carried', 'suggested', 'kept', 'frozen', 'dropped', 'lost')),
    split INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (transfer_id, judgment_id)
) WITHOUT ROWID;
CREATE TABLE transfer_labels (
    judgment_id INTEGER PRIMARY KEY REFERENCES judgments(id),
    transfer_id INTEGER NOT NULL REFERENCES label_transfers(id),
    source_judgment_id INTEGER NOT NULL REFERENCES judgments(id),
    share_of_judged REAL NOT NULL,
    share_of_chunk REAL NOT NULL,
    split INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX transfer_labels_transfer ON transfer_labels(transfer_id);
DROP TRIGGER queue_done_from_judgment;
CREATE TRIGGER queue_done_from_judgment AFTER INSERT ON judgments
WHEN NEW.origin NOT IN ('transferred', 'machine') AND NEW.annotator <> 'generator'
    AND coalesce(json_extract(NEW.flags, '$.generator'), 0) = 0
BEGIN
    INSERT OR REPLACE INTO queue_done (query_id, chunk_id, annotator, judgment_id, voted, queued)
    VALUES (NEW.query_id, NEW.chunk_id, NEW.annotator, NEW.id, NEW.grade IS NOT NULL,
            EXISTS (SELECT 1 FROM label_queue l
                    WHERE l.query_id = NEW.query_id AND l.chunk_id = NEW.chunk_id));
END;
CREATE TABLE transfer_suggestions (
    transfer_id INTEGER NOT NULL REFERENCES label_transfers(id),
    query_id TEXT NOT NULL REFERENCES queries(id),
    chunk_id TEXT NOT NULL REFERENCES chunks(id),
    grade INTEGER NOT NULL,
    detail TEXT NOT NULL CHECK (json_valid(detail)),
    PRIMARY KEY (transfer_id, query_id, chunk_id)
) WITHOUT ROWID;
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
