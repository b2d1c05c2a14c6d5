"""What a score is computed from: the controls (``score_controls.Controls``: run, measures, k,
unit, unjudged policy, split, consensus rule, relevance threshold), the label sets under a
consensus rule and chunk set, the ranked runs, the query segments and locked splits, the
per-query values brought from a cluster, the workspace's stored defaults and the cache keyed by
the workspace's data version."""
