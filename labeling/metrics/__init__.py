"""The metric engine: measure names, ranking, per-query and mean scores, statistics.

Pure numeric layer: it imports numpy, pandas, pyarrow, scipy and ``labeling.errors`` only,
never the workspace, and raises only ``labeling.errors`` types. ``evaluate(qrels, run,
measures)`` is the entry point (``engine``); ``measures`` is the registry of measure families
(each with its parameters and compute function) and parses names such as ``nDCG@10``;
``ranking`` orders a run as trec_eval does and ``ranked_arrays`` holds the counts the measures
share; ``statistics`` holds the bootstrap, paired tests and power calculations.
"""

import importlib

# Public names -> their module; imported on first use (PEP 562), so that importing the package
# (as the app's pages do for ``parse_measure``) loads nothing. Written out here rather than with
# ``labeling.lazy_names``: this layer depends on nothing of ours but the errors.
_PUBLIC = {
    "Evaluation": "labeling.metrics.engine",
    "evaluate": "labeling.metrics.engine",
    "evaluate_ranked": "labeling.metrics.engine",
    "parse_measure": "labeling.metrics.measures",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> object:
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_PUBLIC[name]), name)
