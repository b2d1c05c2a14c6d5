"""Migration 1: the core tables (scale, chunks, queries, attributes, runs, judgments)."""

from __future__ import annotations

import sqlite3

from labeling.workspace.sqlscript import execute_script

# The statements are kept byte for byte as released: SQLite stores each CREATE's text.
SCHEMA = """
        CREATE TABLE scale (
            grade INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            guideline TEXT NOT NULL DEFAULT ''
        );
        CREATE TABLE chunks (
            id TEXT PRIMARY KEY,
            doc_id TEXT,
            title TEXT,
            text TEXT,
            metadata TEXT NOT NULL DEFAULT '{}',
            placeholder INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX chunks_doc_id ON chunks(doc_id);
        CREATE TABLE queries (
            id TEXT PRIMARY KEY,
            text TEXT,
            source TEXT CHECK (source IN ('real', 'synthetic')),
            split TEXT CHECK (split IN ('dev', 'test')),
            metadata TEXT NOT NULL DEFAULT '{}',
            placeholder INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE query_attributes (
            query_id TEXT NOT NULL REFERENCES queries(id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            value TEXT,
            PRIMARY KEY (query_id, name)
        );
        CREATE INDEX query_attributes_name ON query_attributes(name, value);
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            index_build TEXT,
            chunk_size INTEGER,
            embedding_model TEXT,
            query_set_version TEXT,
            created_at TEXT NOT NULL,
            notes TEXT,
            metadata TEXT NOT NULL DEFAULT '{}'
        );
        CREATE TABLE run_results (
            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            query_id TEXT NOT NULL REFERENCES queries(id),
            chunk_id TEXT NOT NULL REFERENCES chunks(id),
            rank INTEGER,
            score REAL NOT NULL,
            UNIQUE (run_id, query_id, chunk_id)
        );
        CREATE TABLE judgments (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            query_id TEXT NOT NULL REFERENCES queries(id),
            chunk_id TEXT NOT NULL REFERENCES chunks(id),
            grade INTEGER,
            annotator TEXT NOT NULL,
            created_at TEXT NOT NULL,
            note TEXT,
            flags TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(flags))
        );
        CREATE INDEX judgments_pair ON judgments(query_id, chunk_id, annotator);
        CREATE INDEX judgments_chunk ON judgments(chunk_id);
        CREATE TRIGGER judgments_no_update BEFORE UPDATE ON judgments
        BEGIN SELECT RAISE(ABORT, 'judgments are append-only: UPDATE is not allowed'); END;
        CREATE TRIGGER judgments_no_delete BEFORE DELETE ON judgments
        BEGIN SELECT RAISE(ABORT, 'judgments are append-only: DELETE is not allowed'); END;
        CREATE TRIGGER judgments_grade_in_scale BEFORE INSERT ON judgments
        WHEN NEW.grade IS NOT NULL AND NOT EXISTS (SELECT 1 FROM scale WHERE grade = NEW.grade)
        BEGIN SELECT RAISE(ABORT, 'grade is not on the workspace scale'); END;
        CREATE VIEW current_judgments AS
            SELECT j.* FROM judgments j
            JOIN (SELECT max(id) AS id FROM judgments GROUP BY query_id, chunk_id, annotator)
            USING (id);
        """


def migrate(conn: sqlite3.Connection) -> None:
    execute_script(conn, SCHEMA)
