"""The tuning loop of live runs: a new version against the previous one (the paired test the
Dashboard's comparison uses) and its new unjudged results sent to the labeling queue.

Conventions: the *previous version* of a live run is the live run made through the same
connection (by name) just before it (creation time, then row id); runs imported from files are
no versions. *New unjudged results* are the run's results at rank <= ``k`` that nobody has
judged and that are not queued already.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from labeling.evaluation.inputs.score_controls import DEFAULT_K, DEFAULT_MEASURES, SEED, Controls
from labeling.evaluation.scores.run_comparison import compare_runs, paired_scores
from labeling.judging.queue import enqueue_pairs
from labeling.metrics.statistics import bootstrap_ci
from labeling.workspace import contents

if TYPE_CHECKING:
    import sqlite_utils


def previous_version(db: sqlite_utils.Database, run_name: str) -> str | None:
    """The live run made through the same connection just before ``run_name``, or None."""
    runs = contents.live_run_connections(db)
    names = [name for name, _ in runs]
    if run_name not in names:
        return None
    connection = dict(runs)[run_name]
    earlier = [name for name, used in runs[: names.index(run_name)] if used == connection]
    return earlier[-1] if earlier else None


def setup_change(db: sqlite_utils.Database, old: str, new: str) -> dict[str, tuple]:
    """The parameters (and k, split) that differ between two live runs: {name: (old, new)}."""
    def setup(name: str) -> dict:
        live = contents.run_metadata(db, name).get("live_run", {})
        return {**live.get("params", {}), "k": live.get("k"), "split": live.get("split")}
    before, after = setup(old), setup(new)
    return {key: (before.get(key), after.get(key)) for key in sorted(before.keys() | after.keys())
            if before.get(key) != after.get(key)}


def compare_with_previous(db: sqlite_utils.Database, run_name: str,
                          measures: Sequence[str] = DEFAULT_MEASURES,
                          k: int = DEFAULT_K) -> pd.DataFrame | None:
    """``compare_runs`` of ``run_name`` against its previous version (None when it has none):
    per measure, the means, their difference, the randomization p-value and the wins; with
    ``diff_low``/``diff_high``, the 95% percentile bootstrap interval of the mean paired
    difference (queries resampled, seed ``SEED``)."""
    previous = previous_version(db, run_name)
    if previous is None:
        return None
    controls = Controls(previous, measures=tuple(measures), k=k)
    frame = compare_runs(db, controls, [run_name])
    intervals = [bootstrap_ci(paired_scores(db, controls, run_name, m)["difference"]
                              .to_numpy(), seed=SEED) for m in frame["measure"]]
    frame.insert(6, "diff_low", [i.low for i in intervals])
    frame.insert(7, "diff_high", [i.high for i in intervals])
    return frame


def new_unjudged_results(db: sqlite_utils.Database, run_name: str,
                         k: int = DEFAULT_K) -> list[tuple[str, str]]:
    """The run's results at rank <= ``k`` that nobody judged and nobody queued, by rank."""
    return contents.unjudged_run_results(db, run_name, k)


def queue_new_results(db: sqlite_utils.Database, run_name: str, k: int = DEFAULT_K) -> int:
    """Send ``new_unjudged_results`` to the labeling queue; how many were queued."""
    return enqueue_pairs(db, new_unjudged_results(db, run_name, k), f"live run {run_name}")
