"""The shareable scorecard: one HTML, Markdown or JSON file per run (``scorecard_report``, which
gathers it; ``card_html``, ``card_markdown`` and ``card_tables`` write it; ``verdict`` is its
first sentence, its colours and its glossary)."""

from labeling.lazy_names import facade

# The public names the app's pages import; each module is imported on first use.
__getattr__, __all__ = facade(__name__, {
    "scorecard_report": "labeling.report.scorecard_report",
})
