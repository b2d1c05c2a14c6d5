"""Migration 10: a full-text index over the chunks, and the information need of each query.

- ``chunk_search``: an FTS5 index of ``chunks.title`` and ``chunks.text`` (external content:
  the text stays in ``chunks`` alone; the index row of a chunk has the chunk's ``rowid``).
  Words are folded to lower case without diacritics and Porter-stemmed (``holidays`` finds
  ``holiday``). Its ``rank`` is BM25 with the title weighted twice the text
  (``labeling.judging.corpus_search`` runs the searches).
- Triggers keep the index in step with every insert, change of title or text, and delete of a
  chunk, so an import indexes its chunks in its own transaction (and a failed import leaves
  the index as it was). Existing chunks are indexed here. ``INSERT OR REPLACE INTO chunks``
  would bypass the delete trigger (SQLite fires it only with recursive triggers on); the
  importers upsert with ``ON CONFLICT ... DO UPDATE``, which keeps the chunk's rowid. A
  ``VACUUM`` may renumber the rowids of ``chunks`` (its key is text): nothing here runs one;
  after one, ``INSERT INTO chunk_search (chunk_search) VALUES ('rebuild')`` re-indexes.
- ``queries.narrative``: what the person asking wants to know, for the judges (shown on the
  judging card when present); NULL when the query has none.
"""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

SCRIPT = """
CREATE VIRTUAL TABLE chunk_search USING fts5(
    title, text,
    content = 'chunks', content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO chunk_search (chunk_search, rank) VALUES ('rank', 'bm25(2.0, 1.0)');
CREATE TRIGGER chunk_search_insert AFTER INSERT ON chunks
BEGIN
    INSERT INTO chunk_search (rowid, title, text) VALUES (NEW.rowid, NEW.title, NEW.text);
END;
CREATE TRIGGER chunk_search_delete AFTER DELETE ON chunks
BEGIN
    INSERT INTO chunk_search (chunk_search, rowid, title, text)
    VALUES ('delete', OLD.rowid, OLD.title, OLD.text);
END;
CREATE TRIGGER chunk_search_update AFTER UPDATE OF title, text ON chunks
WHEN OLD.title IS NOT NEW.title OR OLD.text IS NOT NEW.text
BEGIN
    INSERT INTO chunk_search (chunk_search, rowid, title, text)
    VALUES ('delete', OLD.rowid, OLD.title, OLD.text);
    INSERT INTO chunk_search (rowid, title, text) VALUES (NEW.rowid, NEW.title, NEW.text);
END;
INSERT INTO chunk_search (chunk_search) VALUES ('rebuild');
ALTER TABLE queries ADD COLUMN narrative TEXT;
"""


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCRIPT)
