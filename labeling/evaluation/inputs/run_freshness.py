"""Runs older than the query set: labeled queries added after a run was made, which it never
answered (they score 0 in its means, or are skipped), counted per run.

A workspace numbers its queries in the order they arrive (``query_arrivals``) and records on
each run the newest query it had when the run was stored (``runs.newest_query_seq``, migration
9). A run is *stale* when a query labeled in its chunk set (the labels it is scored on,
``chunk_set_labels``) arrived later and the run has no result for it: an
imported run is fixed, so accepting synthetic questions or adding queries lowers every older
run's scores the same way. Runs stored before the record was kept are never called stale (their
queries without results still show as "returned nothing").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from labeling.evaluation.inputs.chunk_set_labels import labels_for_chunk_set
from labeling.evaluation.inputs.label_sets import label_snapshot
from labeling.evaluation.inputs.result_cache import _CACHE, _db_state, _run_version, _workspace
from labeling.metrics.engine import QueryCount
from labeling.workspace import contents, query_store

if TYPE_CHECKING:
    import sqlite_utils


@dataclass(frozen=True)
class RunAge:
    """``newer``: labeled queries added after ``run`` was stored that it has no result for
    (``None`` when the run predates the record)."""

    run: str
    newer: int | None

    @property
    def stale(self) -> bool:
        return bool(self.newer)

    def label(self) -> str:
        """The run's name as a picker shows it."""
        return f"{self.run} (stale: {self.newer} newer queries)" if self.stale else self.run

    def sentence(self, count: QueryCount) -> str:
        """Why the run is stale and how many of the evaluated queries (``count``) it covers."""
        covered = count.evaluated - count.returned_nothing
        return (f"{self.run} is older than the query set: {self.newer} labeled queries were "
                f"added after it was made and it has no results for them. It covers {covered} "
                f"of the {count.evaluated} evaluated queries; import a new run to score them.")


def run_age(db: sqlite_utils.Database, run: str, rule: str = "default") -> RunAge:
    """How many labeled queries (consensus labels under ``rule``) arrived after ``run`` was
    stored and got no result from it. Cached until the next write to the workspace."""
    labels = label_snapshot(db, rule)
    key = ("run_age", _workspace(db), _run_version(db, run), labels.version, rule,
           _db_state(db))

    def compute() -> RunAge:
        row = contents.get_run(db, run)
        seq = row.get("newest_query_seq")
        if seq is None:
            return RunAge(run, None)
        newer = query_store.queries_arrived_without_results(db, seq, row["id"])
        if not newer:
            return RunAge(run, 0)
        # Labeled for this run: a label of its chunk set's (a synthetic question asked of
        # another chunk set's chunk is not one of its queries until someone labels it here).
        scored = labels_for_chunk_set(db, row.get("chunk_set"), labels.qrels)
        labeled = set(scored["query_id"].astype(str))
        return RunAge(run, len(newer & labeled))

    return _CACHE.get(key, compute)


def run_ages(db: sqlite_utils.Database, rule: str = "default") -> dict[str, RunAge]:
    """``run_age`` of every stored run, by name, oldest run first."""
    return {run: run_age(db, run, rule) for run in contents.run_names(db)}
