"""Judging: the labeling queue and pooling, consensus of several annotators, agreement and
adjudication, keyboard shortcuts, and the blind rule for what one sees of others' grades."""
