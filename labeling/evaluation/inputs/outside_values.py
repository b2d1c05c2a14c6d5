"""Per-query values of a run scored outside the workspace (on a cluster), as the dashboard
uses them.

Such a run is too large to store whole: the workspace holds its per-query values
(``scorecard import DB values``) and, for the drill-down, each query's top rows. Its scores are
those values, not a recomputation on the workspace's labels: they stay as they were computed
(on the labels and policy their file names) when judgments are added, and the dashboard says
so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd
import pyarrow as pa

from labeling.errors import ScorecardError
from labeling.evaluation.inputs.result_cache import _HEAVY, _run_version, _workspace
from labeling.evaluation.inputs.score_controls import Controls
from labeling.workspace import contents

if TYPE_CHECKING:
    import sqlite_utils


@dataclass(frozen=True)
class OutsideValues:
    """A run's imported per-query values (index query_id; one column per measure) and what
    they were computed from (``about``: engine, labels, run, judged_only, missing)."""

    values: pd.DataFrame
    about: dict
    created_at: str

    @property
    def policy(self) -> str:
        """The unjudged policy the values were computed under, in words."""
        if self.about.get("judged_only"):
            return "judged results only"
        return "unjudged results as not relevant"

    def describe(self) -> str:
        """One sentence for a caption."""
        about = self.about
        policy = self.policy
        return (f"Scored outside the workspace by {about.get('engine', 'another engine')} on "
                f"{len(self.values)} queries against the labels in "
                f"{about.get('labels', 'an unnamed file')} ({policy}), imported "
                f"{self.created_at[:10]}; these values do not follow new judgments.")

    def pick(self, controls: Controls) -> pd.DataFrame:
        """The values ``controls`` asks for, or ``ScorecardError`` naming what there is."""
        missing = [m for m in controls.measures if m not in self.values.columns]
        if missing:
            raise ScorecardError(
                f"run {controls.run!r} was scored outside the workspace on "
                f"{', '.join(self.values.columns)}; {', '.join(missing)} is not among them "
                "(score it again with those measures and import the values)")
        if controls.unit != "chunk" or controls.judged_only != bool(
                self.about.get("judged_only", False)):
            raise ScorecardError(
                f"run {controls.run!r} was scored outside the workspace by chunk with "
                f"{self.policy}; choose those controls to see it")
        return self.values[list(controls.measures)]


def outside_values(db: sqlite_utils.Database, run: str) -> OutsideValues | None:
    """The imported per-query values of ``run``, or None (a run scored in the workspace)."""
    run_id, created, _ = _run_version(db, run)
    row = contents.run_values_about(db, run_id)
    if row is None:
        return None

    def load() -> OutsideValues:
        blob = contents.run_values_data(db, run_id)
        table = pa.ipc.open_stream(pa.py_buffer(blob)).read_all()
        frame = table.to_pandas()
        frame.index = pd.Index(frame.pop("query_id").astype("string"), name="query_id")
        return OutsideValues(frame.sort_index(), json.loads(row[0]), str(row[1]))

    return _HEAVY.get(("outside", _workspace(db), run_id, created, str(row[1])), load)
