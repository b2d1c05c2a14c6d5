"""Saved scorecards over time, with the label snapshot and query set they were computed on.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

import pandas as pd
import sqlite_utils

from labeling.evaluation.label_sets import label_snapshot
from labeling.evaluation.scoring import per_query
from labeling.workspace import contents, store

# ---------------------------------------------------------------------------------------------
# History


def save_snapshot(
    db: sqlite_utils.Database, run: str, measures: Sequence[str], *, unit: str = "chunk",
    policy: str = "nonrelevant", split: str = "all", created_by: str | None = None,
) -> str:
    """Save ``run``'s headline means on the current labels for the history; returns the hash."""
    values = per_query(db, run, measures, unit=unit, policy=policy, split=split)
    labels = label_snapshot(db)
    means = {m: float(values[m].mean()) if len(values) else 0.0 for m in values.columns}
    version = contents.get_run(db, run)["query_set_version"]
    with store.write_transaction(db, action="save_scores") as conn:
        conn.execute(
            "INSERT INTO evaluation_snapshots (run_name, query_set_version, split, unit, policy,"
            " snapshot_hash, n_queries, means, created_by, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run, version, split, unit, policy, labels.snapshot, len(values), json.dumps(means),
             created_by, store.utc_now()),
        )
    return labels.snapshot


def query_set_versions(db: sqlite_utils.Database) -> list[str]:
    """Distinct ``runs.query_set_version`` values (``(unversioned)`` for NULL), oldest first."""
    rows = db.conn.execute(
        "SELECT coalesce(query_set_version, '(unversioned)') FROM runs GROUP BY 1 ORDER BY min(id)"
    )
    return [r[0] for r in rows]


def history(
    db: sqlite_utils.Database, query_set_version: str, measures: Sequence[str], *,
    unit: str = "chunk", policy: str = "nonrelevant", split: str = "all",
) -> tuple[pd.DataFrame, list[str]]:
    """Runs of one query set in creation order with their headline means, and warnings.

    Rows: run, created_at, measure, now (on the current labels), saved (the latest saved
    snapshot with the same unit, policy and split; NaN if none), saved_snapshot, saved_at.
    A warning names runs whose saved numbers come from different label snapshots.
    """
    runs = list(db.query(
        "SELECT name, created_at FROM runs WHERE coalesce(query_set_version, '(unversioned)') = ?"
        " ORDER BY created_at, id", [query_set_version]))
    rows = []
    snapshots: dict[str, str] = {}
    for run in runs:
        values = per_query(db, run["name"], measures, unit=unit, policy=policy, split=split)
        saved = db.conn.execute(
            "SELECT means, snapshot_hash, created_at FROM evaluation_snapshots WHERE run_name = ?"
            " AND unit = ? AND policy = ? AND split = ? ORDER BY id DESC LIMIT 1",
            [run["name"], unit, policy, split]).fetchone()
        saved_means = json.loads(saved[0]) if saved else {}
        if saved:
            snapshots[run["name"]] = saved[1]
        for measure in measures:
            rows.append({
                "run": run["name"], "created_at": run["created_at"], "measure": measure,
                "now": float(values[measure].mean()) if len(values) else 0.0,
                "saved": saved_means.get(measure, math.nan),
                "saved_snapshot": saved[1] if saved else None,
                "saved_at": saved[2] if saved else None,
            })
    warnings = []
    if len(set(snapshots.values())) > 1:
        groups: dict[str, list[str]] = {}
        for run, digest in snapshots.items():
            groups.setdefault(digest, []).append(run)
        listing = "; ".join(f"{digest}: {', '.join(names)}" for digest, names in groups.items())
        warnings.append(
            "Saved scores come from different label snapshots, so they are not directly "
            f"comparable ({listing}). Compare the 'now' column, computed on today's labels."
        )
    return pd.DataFrame(rows, columns=["run", "created_at", "measure", "now", "saved",
                                       "saved_snapshot", "saved_at"]), warnings
