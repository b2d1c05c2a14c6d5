"""What the pages and the report show of a score: the worst-query drill-down, failure tags, the
pairs that decide a comparison and the one-line note on the scoring rules."""
