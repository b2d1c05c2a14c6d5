"""The per-query values the regression gate decides on, with the run's best and worst case over
its unjudged results (``labeling.metrics.unjudged_fillings``), from stored runs or from files.

Conventions
- Stored runs are scored on the consensus labels under the rule, each run on its chunk set's
  labels (as ``labeling.evaluation.scores.scoring`` scores it), by chunk; the evaluated queries of
  ``split``. Unjudged results are filled up to the top grade of the workspace's scale.
- Files: the labels as read; unjudged results are filled up to the highest grade in them (at
  least 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pandas as pd

from labeling.errors import ScorecardError
from labeling.evaluation.inputs.chunk_set_labels import labels_for_chunk_set, run_chunk_set
from labeling.evaluation.inputs.label_sets import labels_for
from labeling.evaluation.inputs.outside_values import outside_values
from labeling.evaluation.inputs.ranked_runs import stored_run
from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores.scoring import in_split
from labeling.metrics.unjudged_fillings import GateValues, filled_changes
from labeling.workspace import grading

if TYPE_CHECKING:
    import sqlite_utils

RUN_COLUMNS = ["query_id", "doc_id", "score"]


def file_pair(qrels: pd.DataFrame, run: pd.DataFrame, baseline: pd.DataFrame,
              measures: Sequence[str], ks: Sequence[int]) -> GateValues:
    """The gate's values from frames as ``labeling.files.formats`` reads them."""
    top = max(1, int(qrels["relevance"].max())) if len(qrels) else 1
    return filled_changes(qrels, run, qrels, baseline, measures, top, slot_ks=ks)


def stored_pair(db: sqlite_utils.Database, run: str, baseline: str, measures: Sequence[str],
                ks: Sequence[int], *, rule: str, split: str) -> GateValues:
    """The gate's values of two stored runs (see the module docstring)."""
    for name in (run, baseline):
        if outside_values(db, name) is not None:
            raise ScorecardError(f"run {name!r} was scored outside the workspace: the gate "
                                 "needs its results to fill its unjudged ones; gate its run "
                                 "file with --qrels instead")
    labels = labels_for(db, Controls(baseline, rule=rule)).qrels
    qrels = [labels_for_chunk_set(db, run_chunk_set(db, name), labels) for name in (run, baseline)]
    frames = [stored_run(db, name).frame[RUN_COLUMNS] for name in (run, baseline)]
    top = max(grade for grade, _, _ in grading.get_scale(db))
    values = filled_changes(qrels[0], frames[0], qrels[1], frames[1], measures, top, slot_ks=ks)
    return values.restricted(in_split(db, values.run, split).index)
