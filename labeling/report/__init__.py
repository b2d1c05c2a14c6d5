"""The shareable scorecard: one HTML, Markdown or JSON file per run (``scorecard_report``, which
gathers it; ``card_html``, ``card_markdown`` and ``card_tables`` write it; ``verdict`` is its
first sentence, its colours and its glossary)."""
