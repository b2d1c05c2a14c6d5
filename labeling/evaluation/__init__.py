"""What the dashboard and the report compute from a workspace: scores by segment, coverage,
run comparison, drill-down, failure tags, history and the locked test split."""
