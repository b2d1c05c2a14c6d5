"""What the dashboard, the report and ``scorecard evaluate --db`` compute from a workspace, each
under one ``score_controls.Controls`` (run, measures, k, unit, unjudged policy, split, consensus
rule, relevance threshold, queries without results): scores by segment, coverage, run
comparison, drill-down, failure tags, history and the locked test split, and what the scores
are made of (runs older than the query set: ``run_freshness``; how deep the relevant labels go:
``label_depth``). Labels and per-query values are kept up to date judgment by judgment
(``label_sets``, ``scoring``); runs scored on a cluster bring their per-query values
(``outside_values``)."""
