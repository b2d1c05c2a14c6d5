"""The answers of a live run as they arrive (``live_run_queries``): one row per (run name,
query), its status (``done`` or ``failed``), hits (JSON list of [chunk id, score]) or error,
and the SHA-256 of the setup that asked it (``labeling.files.live_runs``).

Each answer is committed by the caller's write transaction as it arrives; nothing here opens
or commits one.
"""

from __future__ import annotations

import sqlite3


def other_setup_answered(conn: sqlite3.Connection, run_name: str, digest: str) -> bool:
    """Whether ``run_name`` holds answers asked with a setup other than ``digest``."""
    return conn.execute("SELECT 1 FROM live_run_queries WHERE run_name = ? AND"
                        " setup_hash != ? LIMIT 1", [run_name, digest]).fetchone() is not None


def has_answers(conn: sqlite3.Connection, run_name: str) -> bool:
    """Whether any answer is stored under ``run_name``."""
    return conn.execute("SELECT 1 FROM live_run_queries WHERE run_name = ? LIMIT 1",
                        [run_name]).fetchone() is not None


def done_queries(conn: sqlite3.Connection, run_name: str) -> set[str]:
    """The queries of ``run_name`` answered without error."""
    return {row[0] for row in conn.execute(
        "SELECT query_id FROM live_run_queries WHERE run_name = ? AND status = 'done'",
        [run_name])}


def record_answer(
    conn: sqlite3.Connection, run_name: str, digest: str, query_id: str, *, hits: str,
    error: str | None, asked_at: str,
) -> None:
    """Store (or replace) the answer to ``query_id``: ``hits`` JSON text, ``error`` None when
    it succeeded (status ``done``, else ``failed``)."""
    conn.execute(
        "INSERT INTO live_run_queries (run_name, setup_hash, query_id, status, hits, error,"
        " asked_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_name, query_id) DO UPDATE"
        " SET status = excluded.status, hits = excluded.hits, error = excluded.error,"
        " asked_at = excluded.asked_at",
        [run_name, digest, query_id, "failed" if error else "done", hits, error or "",
         asked_at])


def answers(conn: sqlite3.Connection, run_name: str) -> list[tuple[str, str, str, str]]:
    """(query_id, status, hits JSON, error) of every answer stored under ``run_name``."""
    return conn.execute("SELECT query_id, status, hits, error FROM live_run_queries"
                        " WHERE run_name = ?", [run_name]).fetchall()
