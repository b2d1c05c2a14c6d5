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
