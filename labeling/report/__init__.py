"""The shareable scorecard: one HTML, Markdown or JSON file per run (``scorecard_report``)."""
