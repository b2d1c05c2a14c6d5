"""Small read helpers over what a workspace holds: table counts, runs, segment attributes.
"""

from __future__ import annotations

import json

import pandas as pd
import sqlite_utils

from labeling.errors import ScorecardError

# What stands for the text of a chunk or query known only by its id (a placeholder made by a
# qrels or run import): shown with the id, never as an empty cell, "None" or "nan".
PLACEHOLDER_TEXT = "text not imported"


def shown_text(text: object, item_id: object) -> str:
    """``text`` as a page or an export shows it: itself, or for a chunk or query without text
    (NULL, NaN, NA) ``"text not imported (id <item_id>)"``."""
    missing = text is None or (pd.api.types.is_scalar(text) and bool(pd.isna(text)))
    return f"{PLACEHOLDER_TEXT} (id {item_id})" if missing else str(text)


# ---------------------------------------------------------------------------------------------
# Small read helpers for the app


def counts(db: sqlite_utils.Database) -> dict[str, int]:
    """Row counts of the main tables (chunks, queries, runs, run_results, judgments)."""
    tables = ("chunks", "queries", "query_attributes", "runs", "run_results", "judgments")
    return {t: db.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables}


def describe_counts(counts: dict[str, int], separator: str = ", ") -> str:
    """The main counts of ``counts(db)`` as words: "12 chunks, 5 queries, 2 runs, 40 judgments"."""
    return separator.join(
        f"{counts[table]} {table}" for table in ("chunks", "queries", "runs", "judgments")
    )


def run_names(db: sqlite_utils.Database) -> list[str]:
    """Names of the stored runs, oldest first."""
    return [r[0] for r in db.conn.execute("SELECT name FROM runs ORDER BY id")]


def get_run(db: sqlite_utils.Database, name: str) -> dict:
    """The ``runs`` row of ``name`` (metadata decoded); ``ScorecardError`` if there is none."""
    rows = list(db.query("SELECT * FROM runs WHERE name = ?", [name]))
    if not rows:
        raise ScorecardError(f"no run named {name!r} (runs: {', '.join(run_names(db)) or 'none'})")
    row = rows[0]
    row["metadata"] = json.loads(row["metadata"])
    return row


def query_segments(db: sqlite_utils.Database, attribute: str) -> dict[str, str | None]:
    """query_id -> value of segment attribute ``attribute`` (queries lacking it are absent)."""
    return dict(
        db.conn.execute(
            "SELECT query_id, value FROM query_attributes WHERE name = ?", [attribute]
        ).fetchall()
    )
