"""What a score depends on besides the run: unit, unjudged policy, split, consensus rule,
and the names the dashboard and the report show for them.
"""

from __future__ import annotations

from collections.abc import Sequence

from labeling.errors import ScorecardError
from labeling.judging import consensus
from labeling.metrics.measures import parse_measure

UNITS = ("chunk", "document")
POLICIES: dict[str, str] = {
    "nonrelevant": "Unjudged retrieved chunks count as not relevant (as trec_eval does)",
    "judged_only": "Judged results only: unjudged chunks are removed before scoring "
    "(trec_eval -J)",
}
SPLITS = ("all", "dev", "test")
CONSENSUS_RULES = consensus.RULES
NO_SEGMENT = "(none)"
OVERALL = "(all queries)"
MISSING = "(missing)"
DEFAULT_MEASURES = ("R@10", "RR")


# ---------------------------------------------------------------------------------------------
# Scores


def _check_measures(measures: Sequence[str]) -> tuple[str, ...]:
    if not measures:
        raise ScorecardError("choose at least one measure")
    for name in measures:
        parse_measure(name)  # raises MeasureError (a ScorecardError) naming the problem
    return tuple(measures)


def _check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise ScorecardError(f"unknown policy {policy!r} (use {' or '.join(POLICIES)})")
