"""What the consensus rule changes on the labels at hand, in one sentence beside the control.

The default rule takes a strict majority, else the mean grade rounded half up
(``labeling.judging.consensus``). With two annotators a majority is agreement, and the mean of
two grades one apart rounded half up is the higher one: on labels where every disagreement is
one grade apart, default gives exactly the lenient grades. That is the rule, not a slip, and
the dashboard says so in words, with the counts it is made of.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from labeling.evaluation.inputs.label_sets import label_snapshot
from labeling.evaluation.inputs.score_controls import Controls

if TYPE_CHECKING:
    import sqlite_utils


@dataclass(frozen=True)
class RuleDifferences:
    """Pairs with a consensus grade (``pairs``) and how many of them default grades otherwise
    than lenient and than strict (same label source and judge)."""

    pairs: int
    from_lenient: int
    from_strict: int

    def sentence(self) -> str:
        """The counts in words, with why default can equal lenient."""
        if not self.pairs:
            return "No labels yet: the rules have nothing to differ on."
        counts = (f"Of {self.pairs} labelled pairs, default grades {self.from_lenient} "
                  f"otherwise than lenient and {self.from_strict} otherwise than strict.")
        if self.from_lenient == 0 and self.from_strict > 0:
            return (f"{counts} Default gives exactly the lenient grades here: that is the rule. "
                    "Where the annotators disagree they are one grade apart, and with two "
                    "annotators default takes their mean rounded half up, which is then the "
                    "higher grade. Strict shows how much the disagreements move the scores.")
        if self.from_lenient == 0 == self.from_strict:
            return f"{counts} The annotators agree on every pair (or it was adjudicated)."
        return counts


def rule_differences(db: sqlite_utils.Database, controls: Controls) -> RuleDifferences:
    """``RuleDifferences`` of the labels ``controls`` score on (its label source and judge);
    the three snapshots are the dashboard's own, kept between calls."""
    grades = {rule: label_snapshot(db, rule, controls.label_source, controls.judge).qrels
              for rule in ("default", "lenient", "strict")}
    default = grades["default"]["relevance"].to_numpy(np.int64)

    def differ(rule: str) -> int:
        # Every rule grades the same pairs (any with a vote), sorted alike.
        return int((grades[rule]["relevance"].to_numpy(np.int64) != default).sum())

    return RuleDifferences(len(default), differ("lenient"), differ("strict"))
