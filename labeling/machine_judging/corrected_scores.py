"""The headline of a report on machine labels: each measure's prediction-powered estimate (the
machine's score corrected by the audit, for the mean people would give) with its interval, and
how many pairs people audited; or, without an audit, a plain warning that the scores are the
machine's alone.

Conventions
- The judge is the controls' (``controls.judge``), or the only judge when none is named; its
  latest audit sample corrects the scores (``machine_estimates.estimates`` on the controls'
  measures, rule, relevance and split, the chunk unit).
- Intervals are clipped to [0, 1] and say what they cover (``machine_estimates.COVERS``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from labeling.errors import ScorecardError
from labeling.evaluation.inputs.score_controls import CONFIDENCE, OVERALL, Controls
from labeling.machine_judging import audit_sample, machine_estimates, machine_judge

if TYPE_CHECKING:
    import sqlite_utils

MACHINE_ALONE = ("The scores below are made of the machine's labels: their intervals cover the "
                 "sampling of queries only and ignore the judge's error.")


@dataclass(frozen=True)
class CorrectedScores:
    """``rows``: measure, mean, ci_low, ci_high, queries (the prediction-powered estimate of
    each measure); ``audited``: pairs drawn for people to verify, ``judged``: those people
    graded; ``note``: why there is no corrected estimate (empty when there is one)."""

    judge: str
    sample_id: int | None = None
    audited: int = 0
    judged: int = 0
    provisional: bool = False
    rows: list[dict] = field(default_factory=list)
    note: str = ""

    def sentences(self) -> list[str]:
        """The headline first (the corrected estimates, or why there are none), then what the
        machine-label scores below are."""
        if not self.rows:
            return [self.note, MACHINE_ALONE]
        scores = ", ".join(f"{r['measure']} {r['mean']:.2f} [{r['ci_low']:.2f}, "
                           f"{r['ci_high']:.2f}]" for r in self.rows)
        waiting = (f" (provisional: {self.audited - self.judged} still wait)"
                   if self.provisional else "")
        return [f"Corrected by the audit of {self.judge} (audit sample {self.sample_id}: people "
                f"audited {self.judged} of the {self.audited} pairs drawn{waiting}): {scores} "
                f"over {self.rows[0]['queries']} queries, "
                f"{machine_estimates.interval_meaning('prediction-powered', CONFIDENCE)}.",
                MACHINE_ALONE]

    def to_dict(self) -> dict:
        return {"judge": self.judge, "audit_sample": self.sample_id,
                "pairs_audited": self.audited, "pairs_judged": self.judged,
                "provisional": self.provisional, "estimates": self.rows, "note": self.note,
                "interval": machine_estimates.interval_meaning("prediction-powered",
                                                               CONFIDENCE),
                "sentences": self.sentences()}


def corrected_scores(db: sqlite_utils.Database, controls: Controls) -> CorrectedScores | None:
    """The corrected headline of scores on ``controls`` (None for people's labels alone)."""
    if not controls.machine_assisted:
        return None
    judges = [controls.judge] if controls.judge else machine_judge.judges(db)
    if len(judges) != 1:
        return CorrectedScores("", note="No corrected estimate: name one machine judge (its "
                               "audit sample corrects the scores).")
    judge = judges[0]
    samples = audit_sample.samples(db, judge)
    if samples.empty:
        return CorrectedScores(judge, note=f"No audit sample of {judge} yet, so no corrected "
                               "estimate: draw one and have people judge it.")
    sample_id = int(samples.iloc[0]["id"])
    progress = audit_sample.audit_progress(db, sample_id)
    found = CorrectedScores(judge, sample_id, progress.drawn, progress.judged)
    people = replace(controls, label_source="people", judge="")
    try:
        table, state = machine_estimates.estimates(db, people, sample_id)
    except ScorecardError as error:
        return replace(found, note=f"No corrected estimate: {error}.")
    powered = table.loc[(table["segment"] == OVERALL)
                        & (table["estimate"] == "prediction-powered")]
    rows = [{"measure": r.measure, "mean": r.mean, "ci_low": r.ci_low, "ci_high": r.ci_high,
             "queries": int(r.queries)} for r in powered.itertuples()]
    return replace(found, rows=rows, provisional=state.provisional)
