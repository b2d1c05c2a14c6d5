"""The metric engine: measure names, ranking, per-query and mean scores, statistics.

Pure numeric layer: it imports numpy, pandas, pyarrow, scipy and ``labeling.errors`` only,
never the workspace, and raises only ``labeling.errors`` types. ``evaluate(qrels, run,
measures)`` is the entry point (``engine``); ``measures`` is the registry of measure families
(each with its parameters and compute function) and parses names such as ``nDCG@10``;
``ranking`` orders a run as trec_eval does and ``ranked_arrays`` holds the counts the measures
share; ``statistics`` holds the bootstrap, paired tests and power calculations.
"""

from labeling.metrics.engine import Evaluation, evaluate, evaluate_ranked

__all__ = ["Evaluation", "evaluate", "evaluate_ranked"]
