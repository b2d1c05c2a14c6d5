"""Saved scorecards over time, with the label snapshot and query set they were computed on.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import pandas as pd

from labeling.errors import ScorecardError
from labeling.evaluation.inputs.label_sets import labels_for
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores.scoring import per_query
from labeling.workspace import contents, evaluation_records, store

if TYPE_CHECKING:
    import sqlite_utils

# ---------------------------------------------------------------------------------------------
# History


def save_snapshot(
    db: sqlite_utils.Database, controls: Controls, *, created_by: str | None = None
) -> str:
    """Save the headline means of ``controls.run`` on the current labels under ``controls``
    for the history; returns the hash of the label snapshot (under ``controls.rule``).

    The history keeps people's scores only: a machine-assisted ``controls.label_source`` is
    refused, so a saved number never silently rests on machine labels."""
    if controls.machine_assisted:
        raise ScorecardError("the history keeps scores on people's labels only: choose the label "
                             "source 'people' to save")
    values = per_query(db, controls)
    labels = labels_for(db, controls)
    version = contents.get_run(db, controls.run)["query_set_version"]
    with store.write_transaction(db, action="save_scores") as conn:
        evaluation_records.add_snapshot(conn, {
            "run_name": controls.run, "query_set_version": version, "split": controls.split,
            "unit": controls.unit, "policy": controls.policy, "rule": controls.rule,
            "missing": controls.missing, "snapshot_hash": labels.snapshot,
            "n_queries": len(values), "created_by": created_by, "created_at": store.utc_now(),
        }, _means(values))
    return labels.snapshot


def _means(values: pd.DataFrame) -> dict[str, float]:
    """Each column's mean (0 over no query, as the engine reports it)."""
    return {m: float(values[m].mean()) if len(values) else 0.0 for m in values.columns}


def readable_time(stamp: str | None) -> str | None:
    """A workspace timestamp (ISO-8601) as people read it: ``2026-05-09 07:35 UTC`` (None
    stays None; text that is not a timestamp is returned as it is)."""
    if stamp is None:
        return None
    try:
        moment = datetime.fromisoformat(str(stamp))
    except ValueError:
        return str(stamp)
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def query_set_versions(db: sqlite_utils.Database) -> list[str]:
    """Distinct ``runs.query_set_version`` values (``(unversioned)`` for NULL), oldest first."""
    return contents.query_set_versions(db)


def history(
    db: sqlite_utils.Database, controls: Controls, query_set_version: str
) -> tuple[pd.DataFrame, list[str]]:
    """Runs of one query set in creation order with their headline means under ``controls``
    (its measures, unit, policy, split and consensus rule; ``controls.run`` is replaced by each
    run), and warnings.

    Rows: run, created (when the run was stored, ``readable_time``), measure, now (on the
    current labels), saved (the latest saved snapshot with the same unit, policy, split, rule
    and treatment of queries without results; NaN if none), saved_snapshot, saved_at
    (readable; None when nothing was saved).
    A warning names runs whose saved numbers come from different label snapshots.
    """
    runs = contents.runs_of_query_set(db, query_set_version)
    rows = []
    snapshots: dict[str, str] = {}
    for run in runs:
        now = _means(per_query(db, controls.for_run(run["name"])))
        saved = evaluation_records.latest_snapshot(db, run["name"], {
            "unit": controls.unit, "policy": controls.policy, "split": controls.split,
            "rule": controls.rule, "missing": controls.missing})
        saved_means = saved[0] if saved else {}
        if saved:
            snapshots[run["name"]] = saved[1]
        for measure in controls.measures:
            rows.append({
                "run": run["name"], "created": readable_time(run["created_at"]),
                "measure": measure, "now": now[measure],
                "saved": saved_means.get(measure, math.nan),
                "saved_snapshot": saved[1] if saved else None,
                "saved_at": readable_time(saved[2]) if saved else None,
            })
    warnings = []
    if controls.machine_assisted:
        warnings.append(
            "The 'now' column uses the label source "
            f"{controls.label_source!r}; saved scores are on people's labels only.")
    if len(set(snapshots.values())) > 1:
        groups: dict[str, list[str]] = {}
        for run, digest in snapshots.items():
            groups.setdefault(digest, []).append(run)
        listing = "; ".join(f"{digest}: {', '.join(names)}" for digest, names in groups.items())
        warnings.append(
            "Saved scores come from different label snapshots, so they are not directly "
            f"comparable ({listing}). Compare the 'now' column, computed on today's labels."
        )
    return pd.DataFrame(rows, columns=["run", "created", "measure", "now", "saved",
                                       "saved_snapshot", "saved_at"]), warnings
