"""The scorecard as Markdown for a pull-request comment; user text is escaped with
``labeling.markdown.escape_inline``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from labeling.markdown import escape_inline
from labeling.report.card_tables import comparison_table, fmt, interval_table
from labeling.report.verdict import GLOSSARY
from labeling.teaching import guide

if TYPE_CHECKING:
    from labeling.report.scorecard import Scorecard

# ---------------------------------------------------------------------------------------------
# Markdown

_md = escape_inline


def _md_table(frame: pd.DataFrame, user: tuple[str, ...] = ()) -> str:
    """A Markdown table; cells of the ``user`` columns (user text) are escaped."""
    lines = ["| " + " | ".join(str(c) for c in frame.columns) + " |",
             "|" + "---|" * len(frame.columns)]
    for row in frame.itertuples(index=False):
        cells = [_md(fmt(v)) if c in user else fmt(v).replace("|", "\\|")
                 for c, v in zip(frame.columns, row, strict=True)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _md_run(meta: dict[str, Any]) -> str:
    """One run's metadata as a Markdown line (user text escaped)."""
    return "; ".join(f"{_md(k)}: {_md(fmt(v))}" for k, v in meta.items()
                     if k != "name" and v not in (None, ""))


def _md_missed(missed: list[dict[str, Any]]) -> str:
    return ", ".join(f"{_md(m['chunk_id'])} ({_md(m['grade_name'])}, {m['where']})"
                     for m in missed) or "none"


def to_markdown(card: Scorecard) -> str:
    """The scorecard as Markdown for a pull-request comment (user text escaped): the verdict
    first, both runs' metadata, the warnings, the tables, the worst queries, the glossary."""
    run = card.run
    lines = [
        f"## Retrieval scorecard: {_md(run['name'])}"
        + (f" vs {_md(card.baseline['name'])}" if card.baseline else ""),
        "",
    ]
    lines += [f"**{_md(line)}**" if i == 0 else _md(line)
              for i, line in enumerate(card.headline())] + ([""] if card.headline() else [])
    if card.verdict is not None:
        lines += [f"**{_md(card.verdict.sentence())}**", ""]
    lines += [f"> ⚠ {_md(w)}" for w in card.warnings] + ([""] if card.warnings else [])
    lines += [
        f"Workspace {_md(card.workspace)} · {card.generated_at[:10]} · label snapshot "
        f"`{card.snapshot}` (consensus rule {card.controls.rule}) · "
        f"{_md(card.counts.summary())} · {card.n_labels} labels",
        "",
        *[f"- {_md(line)}" for line in card.source_lines()],
        "",
        f"Run {_md(run['name'])}: " + _md_run(run),
        "",
    ]
    if card.baseline:
        lines += [f"Baseline {_md(card.baseline['name'])}: " + _md_run(card.baseline), ""]
    lines += [_md(card.threshold), "", f"> {guide.NOT_MEASURED}", ""]
    if card.comparison is not None and card.baseline:
        lines += [f"### Against {_md(card.baseline['name'])}", "",
                  _md_table(comparison_table(card)), ""]
    lines += [f"### By {_md(card.segment)} (mean [95% interval])", "",
              _md_table(interval_table(card.card), ("segment",)), ""]
    if card.label_depth is not None:
        lines += [_md(card.label_depth.sentence()), ""]
    lines += [f"### Worst queries by {_md(card.worst_measure)} (retrieved badly)", "",
              f"Queries below 1 on {_md(card.worst_measure)}: a query at 1 lost nothing on it "
              "and is not listed.", ""]
    for item in card.worst:
        lines.append(f"- **{_md(item['query_id'])}** ({fmt(item['value'])}): "
                     f"{_md(item['text'])} — missed: {_md_missed(item['missed'])}")
    total = card.counts.returned_nothing
    listed = "" if total == len(card.not_retrieved) else f"; the first {len(card.not_retrieved)}"
    lines += ["", f"### Not retrieved at all ({total} queries{listed})", ""]
    for item in card.not_retrieved:
        lines.append(f"- **{_md(item['query_id'])}**: {_md(item['text'])} — relevant: "
                     f"{_md_missed(item['missed'])}")
    lines += ["", "Glossary: " + "; ".join(f"**{_md(term)}**: {_md(text)}"
                                           for term, text in GLOSSARY.items()) + "."]
    lines += ["", "<details><summary>Conventions</summary>", ""]
    lines += [f"- {_md(c)}" for c in card.conventions]  # they quote the scale's grade names
    lines += ["", "</details>", ""]
    return "\n".join(lines)
