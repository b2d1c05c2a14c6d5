"""The metric engine: measure names, ranking, per-query and mean scores, statistics.

Pure numeric layer: it imports numpy, pandas, pyarrow, scipy and ``labeling.errors`` only,
never the workspace. ``evaluate(qrels, run, measures)`` is the entry point (``engine``);
``measures`` parses names such as ``nDCG@10``; ``ranking`` orders a run as trec_eval does;
``statistics`` holds the bootstrap, paired tests and power calculations.
"""

from labeling.metrics.engine import Evaluation, evaluate, evaluate_ranked

__all__ = ["Evaluation", "evaluate", "evaluate_ranked"]
