"""Scores by segment (``scoring``), run comparison, per-chunk-set scores, how deep the relevant
labels go, the labels inferred by overlap, judged coverage and the score history."""
