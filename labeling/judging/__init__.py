"""Judging: the labeling queue and pooling, consensus of several annotators, agreement and
adjudication, keyboard shortcuts, the blind rule for what one sees of others' grades, corpus
search, the judging guideline, pace and where a session stands."""
