"""What a scorecard file shows: the ``Scorecard`` record and its JSON form.

``labeling.report.scorecard_report`` builds it; ``card_html`` and ``card_markdown`` draw it.
Values are fractions in [0, 1]; intervals are percentile bootstrap intervals over queries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from labeling.evaluation.inputs.score_controls import Controls
from labeling.evaluation.scores import label_depth
from labeling.files.formats.values import plain_value
from labeling.judging import label_sources
from labeling.machine_judging import corrected_scores, machine_agreement
from labeling.metrics.engine import QueryCount
from labeling.report.verdict import GLOSSARY, Verdict
from labeling.teaching import guide


@dataclass
class Scorecard:
    """Everything a scorecard file shows; ``to_dict`` is the JSON form."""

    workspace: str
    generated_at: str  # ISO-8601 UTC
    run: dict[str, Any]
    baseline: dict[str, Any] | None
    snapshot: str
    measures: list[str]
    segment: str
    controls: Controls  # what every number was computed under
    n_queries: int
    n_labels: int
    conventions: list[str]
    card: pd.DataFrame  # segment, measure, mean, ci_low, ci_high, n (the run)
    baseline_card: pd.DataFrame | None  # the same for the baseline, overall only
    comparison: pd.DataFrame | None  # run_comparison.compare_runs
    worst_measure: str
    worst: list[dict[str, Any]] = field(default_factory=list)
    gate_example: str = ""
    counts: QueryCount = QueryCount(0, 0, False)  # n evaluated, m returned nothing
    # The first ``n_worst`` queries the run returned nothing for (by id), as ``worst`` without
    # a value; ``counts.returned_nothing`` says how many there are.
    not_retrieved: list[dict[str, Any]] = field(default_factory=list)
    verdict: Verdict | None = None  # the first sentence
    threshold: str = ""  # the relevance threshold in the scale's words
    label_depth: label_depth.LabelDepth | None = None
    warnings: list[str] = field(default_factory=list)  # stale runs, recall vs pool depth
    # Per machine judge the scores use: labels, audit sample size, kappa against people.
    assistance: list[dict[str, Any]] = field(default_factory=list)
    # On machine labels: the audit-corrected estimates, the report's headline (None: people).
    corrected: corrected_scores.CorrectedScores | None = None

    def headline(self) -> list[str]:
        """What a report on machine labels says before anything else: the corrected estimates
        with their interval and the pairs people audited (empty for people's labels)."""
        return [] if self.corrected is None else self.corrected.sentences()

    @property
    def label_source(self) -> str:
        """Whose labels the scores are made of, in words."""
        return label_sources.describe(self.controls.label_source, self.controls.judge)

    def source_lines(self) -> list[str]:
        """The label source and, for machine-assisted scores, each judge's audit and kappa."""
        return [f"Labels: {self.label_source}.",
                *machine_agreement.describe_assistance(self.assistance)]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (NaN becomes None)."""
        def records(frame: pd.DataFrame | None) -> list[dict[str, Any]] | None:
            if frame is None:
                return None
            return [{k: plain_value(v) for k, v in row.items()} for row in frame.to_dict("records")]

        return {
            "workspace": self.workspace, "generated_at": self.generated_at,
            "run": {k: plain_value(v) for k, v in self.run.items()},
            "baseline": None if self.baseline is None
            else {k: plain_value(v) for k, v in self.baseline.items()},
            "label_snapshot": self.snapshot, "measures": self.measures,
            "segment": self.segment, "policy": self.controls.policy,
            "consensus_rule": self.controls.rule, "unit": self.controls.unit,
            "label_source": self.controls.label_source, "judge": self.controls.judge or None,
            "label_source_text": self.label_source,
            "corrected": None if self.corrected is None else {
                k: ([{a: plain_value(b) for a, b in r.items()} for r in v]
                    if k == "estimates" else v)
                for k, v in self.corrected.to_dict().items()},
            "machine_assistance": [{k: plain_value(v) if not isinstance(v, dict) else v
                                    for k, v in item.items()} for item in self.assistance],
            "split": self.controls.split, "relevance": self.controls.relevance,
            "queries": self.n_queries,
            "labels": self.n_labels, "conventions": self.conventions,
            "not_measured": guide.NOT_MEASURED,
            "scorecard": records(self.card), "baseline_scorecard": records(self.baseline_card),
            "comparison": records(self.comparison), "worst_measure": self.worst_measure,
            "worst_queries": [
                {k: ([{a: plain_value(b) for a, b in m.items()} for m in v] if k == "missed"
                     else plain_value(v)) for k, v in item.items()}
                for item in self.worst
            ],
            "gate_example": self.gate_example,
            "verdict": None if self.verdict is None else {
                k: plain_value(v) for k, v in self.verdict.to_dict().items()},
            "evaluated_queries": self.counts.evaluated,
            "returned_nothing": self.counts.returned_nothing,
            "missing": self.controls.missing, "query_count": self.counts.sentence(),
            "not_retrieved_queries": [
                {k: (v if k == "missed" else plain_value(v)) for k, v in item.items()}
                for item in self.not_retrieved
            ],
            "threshold": self.threshold,
            "label_depth": None if self.label_depth is None else {
                "relevant_labels": self.label_depth.relevant,
                "chunk_set": self.label_depth.chunk_set,
                "pools": {str(d): n for d, n in self.label_depth.pools.items()},
                "others": self.label_depth.others, "sentence": self.label_depth.sentence()},
            "warnings": self.warnings, "glossary": GLOSSARY,
        }
