"""Retrieval Scorecard's core library: workspace store, file formats and the metric engine.

Nothing in this package imports streamlit; the app in ``app.py`` and ``pages/`` is a thin layer
over it, and the ``scorecard`` command line calls the same functions.
"""

__version__ = "0.1.0"

from labeling.lazy_names import facade  # noqa: E402  (after the package constants)

# The public names the app's pages import; each module is imported on first use.
__getattr__, __all__ = facade(__name__, {
    "chunk_markup": "labeling.chunk_markup",
    "ScorecardError": "labeling.errors:ScorecardError",
    "describe_failure": "labeling.errors:describe_failure",
    "evidence_marks": "labeling.evidence_marks",
    "placed_chunk": "labeling.evidence_marks:placed_chunk",
    "escape_chart_frame": "labeling.markdown:escape_chart_frame",
    "escape_chart_text": "labeling.markdown:escape_chart_text",
    "escape_inline": "labeling.markdown:escape_inline",
    "escape_markdown": "labeling.markdown:escape_markdown",
    "module_of": "labeling.lazy_names:module_of",
    "readable_times": "labeling.readable_times",
})
