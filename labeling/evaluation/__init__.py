"""What the dashboard, the report and ``scorecard evaluate --db`` compute from a workspace, each
under one ``inputs.score_controls.Controls`` (run, measures, k, unit, unjudged policy, split,
consensus rule, relevance threshold, queries without results).

- ``inputs``: what a score is made of (label sets, ranked runs, segments, locked splits, values
  brought from a cluster, stored defaults, the cache keyed by the workspace's data version);
- ``scores``: scores by segment, run comparison, per-chunk-set scores, label depth, inferred
  labels, judged coverage, history;
- ``views``: the drill-down, failure tags, deciding pairs and the rule note the pages show;
- ``planning``: the judging budget, the CI regression gate and the tuning loop.

Subpackages import downwards only (``views``/``planning`` -> ``scores`` -> ``inputs``)."""

from labeling.lazy_names import facade

# The public names the app's pages import; each module is imported on first use.
__getattr__, __all__ = facade(__name__, {
    "chunk_set_labels": "labeling.evaluation.inputs.chunk_set_labels",
    "label_sets": "labeling.evaluation.inputs.label_sets",
    "locked_splits": "labeling.evaluation.inputs.locked_splits",
    "run_freshness": "labeling.evaluation.inputs.run_freshness",
    "ALPHA": "labeling.evaluation.inputs.score_controls:ALPHA",
    "BOOTSTRAP_RESAMPLES": "labeling.evaluation.inputs.score_controls:BOOTSTRAP_RESAMPLES",
    "CONFIDENCE": "labeling.evaluation.inputs.score_controls:CONFIDENCE",
    "Controls": "labeling.evaluation.inputs.score_controls:Controls",
    "POWER": "labeling.evaluation.inputs.score_controls:POWER",
    "SEED": "labeling.evaluation.inputs.score_controls:SEED",
    "TEST_RESAMPLES": "labeling.evaluation.inputs.score_controls:TEST_RESAMPLES",
    "score_controls": "labeling.evaluation.inputs.score_controls",
    "score_defaults": "labeling.evaluation.inputs.score_defaults",
    "segment_options": "labeling.evaluation.inputs.segmenting:segment_options",
    "segmenting": "labeling.evaluation.inputs.segmenting",
    "judging_budget": "labeling.evaluation.planning.judging_budget",
    "tuning": "labeling.evaluation.planning.tuning",
    "chunk_set_scores": "labeling.evaluation.scores.chunk_set_scores",
    "inferred_labels": "labeling.evaluation.scores.inferred_labels",
    "judged_coverage": "labeling.evaluation.scores.judged_coverage",
    "label_depth": "labeling.evaluation.scores.label_depth",
    "run_comparison": "labeling.evaluation.scores.run_comparison",
    "score_history": "labeling.evaluation.scores.score_history",
    "scoring": "labeling.evaluation.scores.scoring",
    "deciding_pairs": "labeling.evaluation.views.deciding_pairs",
    "drilldown": "labeling.evaluation.views.drilldown",
    "failure_tags": "labeling.evaluation.views.failure_tags",
    "rule_note": "labeling.evaluation.views.rule_note",
})
