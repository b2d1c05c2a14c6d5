"""What evaluation keeps in the workspace: ``evaluation_snapshots`` (saved headline means of a
run under its scoring controls, with the label snapshot's hash; means as JSON),
``failure_tags`` (the team's own failure tags) and ``failure_reviews`` (one row per tag a
reviewer gave a run's query). (The named values of ``labeling_settings`` are
``contents.setting`` and ``contents.save_setting``.)

Timestamps are ISO-8601 UTC strings. The writers taking a ``conn`` run in the caller's
``write_transaction`` and neither open nor commit a transaction of their own.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence

import pandas as pd
import sqlite_utils

# ---------------------------------------------------------------------------------------------
# Failure tags and reviews


def team_failure_tags(db: sqlite_utils.Database) -> list[str]:
    """The team's own tags in the order they were added."""
    return [r[0] for r in db.conn.execute("SELECT name FROM failure_tags ORDER BY rowid")]


def add_failure_tag(conn: sqlite3.Connection, name: str, description: str,
                    created_by: str | None, created_at: str) -> None:
    """Store a team tag (an existing name is left as it is)."""
    conn.execute(
        "INSERT OR IGNORE INTO failure_tags (name, description, created_by, created_at)"
        " VALUES (?, ?, ?, ?)", (name, description, created_by, created_at),
    )


def add_failure_reviews(conn: sqlite3.Connection, query_id: str, run_name: str,
                        tags: Sequence[str], note: str | None, reviewer: str,
                        created_at: str) -> None:
    """Store one review row per tag of ``tags``."""
    conn.executemany(
        "INSERT INTO failure_reviews (query_id, run_name, tag, note, reviewer, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        [(query_id, run_name, tag, note, reviewer, created_at) for tag in tags],
    )


def failure_reviews(db: sqlite_utils.Database, query_id: str | None = None) -> pd.DataFrame:
    """Review rows (newest first): query_id, run_name, tag, note, reviewer, created_at;
    ``query_id``, when given, filters."""
    sql = "SELECT query_id, run_name, tag, note, reviewer, created_at FROM failure_reviews"
    params: list[str] = []
    if query_id is not None:
        sql += " WHERE query_id = ?"
        params.append(query_id)
    return pd.read_sql_query(sql + " ORDER BY id DESC", db.conn, params=params)


# ---------------------------------------------------------------------------------------------
# Saved scores


def add_snapshot(conn: sqlite3.Connection, row: Mapping[str, object],
                 means: Mapping[str, float]) -> None:
    """Store a saved scorecard: ``row`` holds run_name, query_set_version, split, unit,
    policy, rule, missing, snapshot_hash, n_queries, created_by and created_at; ``means``
    measure -> mean (stored as JSON)."""
    conn.execute(
        "INSERT INTO evaluation_snapshots (run_name, query_set_version, split, unit, policy,"
        " rule, missing, snapshot_hash, n_queries, means, created_by, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (row["run_name"], row["query_set_version"], row["split"], row["unit"], row["policy"],
         row["rule"], row["missing"], row["snapshot_hash"], row["n_queries"],
         json.dumps(dict(means)), row["created_by"], row["created_at"]),
    )


def latest_snapshot(db: sqlite_utils.Database, run_name: str, controls: Mapping[str, object]
                    ) -> tuple[dict[str, float], str, str] | None:
    """(means, snapshot hash, saved at) of the newest snapshot of ``run_name`` saved under the
    same ``controls`` (unit, policy, split, rule, missing), or None."""
    row = db.conn.execute(
        "SELECT means, snapshot_hash, created_at FROM evaluation_snapshots WHERE run_name = ?"
        " AND unit = ? AND policy = ? AND split = ? AND rule = ? AND missing = ?"
        " ORDER BY id DESC LIMIT 1",
        [run_name, controls["unit"], controls["policy"], controls["split"], controls["rule"],
         controls["missing"]],
    ).fetchone()
    return None if row is None else (json.loads(row[0]), row[1], row[2])
