"""The scorecard as one self-contained HTML document: plotly's JavaScript inlined once, no
other resource to fetch, every piece of user text through ``html.escape``. The reported run has
one colour in every chart and the baseline another (``labeling.report.verdict``)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

import pandas as pd
import plotly.graph_objects as go

from labeling.evaluation.inputs import score_controls
from labeling.evaluation.inputs.score_controls import ALPHA
from labeling.evaluation.scores import scoring
from labeling.evaluation.views import drilldown
from labeling.report.card_tables import comparison_table, fmt, interval_table
from labeling.report.verdict import BASELINE_COLOUR, GLOSSARY, RUN_COLOUR
from labeling.teaching import guide

if TYPE_CHECKING:
    from labeling.report.scorecard import Scorecard

# ---------------------------------------------------------------------------------------------
# Charts


def _charts(card: Scorecard) -> list[go.Figure]:
    """Overall means with intervals (run vs baseline), and the run's means by segment."""
    figures = []
    overall = card.card.loc[card.card["segment"] == score_controls.OVERALL]
    bars = go.Figure()
    sources = [(card.run["name"], overall, RUN_COLOUR)]
    if card.baseline_card is not None and card.baseline is not None:
        sources.insert(0, (card.baseline["name"], card.baseline_card, BASELINE_COLOUR))
    for name, frame, colour in sources:
        with_bars = scoring.with_error_bars(frame)
        bars.add_bar(
            name=html.escape(str(name)), x=[html.escape(m) for m in with_bars["measure"]],
            y=with_bars["mean"], marker_color=colour,
            error_y={"type": "data", "array": with_bars["err_plus"],
                     "arrayminus": with_bars["err_minus"]},
        )
    bars.update_layout(title="Means with 95% intervals", barmode="group", yaxis_range=[0, 1],
                       height=380, margin={"t": 50, "b": 40, "l": 40, "r": 10})
    figures.append(bars)

    matrix = scoring.scorecard_matrix(card.card)
    matrix = matrix.loc[list(dict.fromkeys(card.card["segment"])),
                        list(dict.fromkeys(card.card["measure"]))]
    heat = go.Figure(go.Heatmap(
        z=matrix.to_numpy(), x=[html.escape(str(c)) for c in matrix.columns],
        y=[html.escape(str(i)) for i in matrix.index], zmin=0, zmax=1,
        colorscale=[[0.0, "#f4f8fc"], [1.0, RUN_COLOUR]],
        texttemplate="%{z:.2f}",
    ))
    heat.update_layout(title=f"{html.escape(str(card.run['name']))}: means by "
                       f"{html.escape(card.segment)}", yaxis_autorange="reversed",
                       height=120 + 40 * len(matrix), margin={"t": 50, "b": 40, "l": 10, "r": 10})
    figures.append(heat)
    return figures


# ---------------------------------------------------------------------------------------------
# HTML

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:1100px;
color:#1f2933;padding:0 1rem;line-height:1.45}
h1{margin-bottom:.2rem}h2{margin-top:2rem;border-bottom:1px solid #d9dee3;padding-bottom:.2rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:.92rem}
th,td{border:1px solid #d9dee3;padding:.3rem .55rem;text-align:left;vertical-align:top}
th{background:#f3f5f7}td.num{text-align:right;font-variant-numeric:tabular-nums}
.meta td:first-child{color:#52606d}.note{background:#fff8e1;border-left:4px solid #f0b429;
padding:.6rem .9rem}.chunk{white-space:pre-wrap;font-family:ui-monospace,monospace;
font-size:.85rem;background:#f8f9fa;padding:.4rem;margin:.3rem 0;border-radius:4px}
.sig{font-weight:600;color:#0b6e4f}.muted{color:#7b8794}code{background:#f3f5f7;padding:0 .2rem}
.verdict{font-size:1.2rem;font-weight:600;border-left:6px solid #1f6fb2;padding:.5rem .9rem;
background:#f4f8fc}.warn{background:#fdecea;border-left:4px solid #c0392b;padding:.6rem .9rem}
.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:2px;margin-right:.3rem}
dl.glossary dt{font-weight:600;margin-top:.4rem}dl.glossary dd{margin-left:1.2rem}
"""


def _e(value: Any) -> str:
    """Any value as escaped HTML text."""
    return html.escape("" if value is None or value is pd.NA else str(value), quote=True)


def _table(frame: pd.DataFrame, numeric: set[str]) -> str:
    head = "".join(f"<th>{_e(c)}</th>" for c in frame.columns)
    body = []
    for row in frame.itertuples(index=False):
        cells = []
        for column, value in zip(frame.columns, row, strict=True):
            css = ' class="num"' if column in numeric else ""
            cells.append(f"<td{css}>{_e(fmt(value))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _run_line(meta: dict[str, Any]) -> str:
    shown = [f"{label} {_e(meta.get(f))}" for f, label in (
        ("index_build", "index build"), ("chunk_size", "chunk size"),
        ("embedding_model", "embedding model"), ("query_set_version", "query set"))
        if meta.get(f) not in (None, "")]
    return f"<b>{_e(meta['name'])}</b>" + (": " + " · ".join(shown) if shown else "")


def _meta_table(card: Scorecard) -> str:
    """Run metadata, with the baseline's beside it: what makes the scores reproducible."""
    runs = [card.run] + ([card.baseline] if card.baseline else [])
    fields = list(dict.fromkeys(k for meta in runs for k in meta))
    head = "<tr><th>field</th>" + "".join(
        f"<th>{'run' if i == 0 else 'baseline'}</th>" for i in range(len(runs))) + "</tr>"
    rows = "".join(
        f"<tr><td>{_e(f)}</td>" + "".join(f"<td>{_e(fmt(m.get(f)))}</td>" for m in runs)
        + "</tr>" for f in fields
    )
    return f"<table class='meta'><thead>{head}</thead><tbody>{rows}</tbody></table>"


def _swatch(colour: str) -> str:
    return f"<span class='swatch' style='background:{colour}'></span>"


def _missed_html(missed: list[dict[str, Any]]) -> list[str]:
    parts = []
    for item in missed:
        parts.append(
            f"<div><b>{_e(item['chunk_id'])}</b> <span class='muted'>"
            f"({_e(item['grade_name'])}, {_e(item['where'])}, document {_e(item['doc_id'])})"
            f"</span><div class='chunk'>{_e(item['text'])}</div></div>"
        )
    return parts


def _worst_html(card: Scorecard) -> list[str]:
    """The worst queries the run retrieved badly, then those it returned nothing for."""
    _, k = drilldown.miss_scope(card.controls, card.worst_measure)
    parts = [f"<h2>The {len(card.worst)} worst queries by {_e(card.worst_measure)} "
             "(retrieved badly)</h2>",
             f"<p class='muted'>Queries below 1 on {_e(card.worst_measure)} (a query at 1 lost "
             f"nothing on it and is not listed). Missed: relevant chunks outside the top {k}, "
             "with their rank or “not retrieved”.</p>"]
    for item in card.worst:
        value = f"{_e(card.worst_measure)} = {fmt(item['value'])}"
        if "baseline" in item:
            value += f" (baseline {fmt(item['baseline'])})"
        parts.append(
            f"<h3>{_e(item['query_id'])} <span class='muted'>· {_e(item['segment'])} · "
            f"{value}</span></h3><p>{_e(item['text'])}</p>"
        )
        if item["missed"]:
            parts.append(f"<p class='muted'>{len(item['missed'])} relevant chunk(s) missed:</p>")
            parts += _missed_html(item["missed"])
        else:
            parts.append(f"<p class='muted'>No labeled relevant chunk outside the top {k}: the "
                         "relevant chunks were retrieved, or none is labeled yet.</p>")
    total = card.counts.returned_nothing
    listed = "" if total == len(card.not_retrieved) else f"; the first {len(card.not_retrieved)}"
    parts.append(f"<h2>Not retrieved at all ({total} queries{listed})</h2>")
    if not card.not_retrieved:
        parts.append("<p class='muted'>The run returned results for every evaluated query.</p>")
    for item in card.not_retrieved:
        parts.append(f"<h3>{_e(item['query_id'])} <span class='muted'>· {_e(item['segment'])} "
                     f"· returned nothing</span></h3><p>{_e(item['text'])}</p>")
        parts += _missed_html(item["missed"])
    return parts


def _charts_html(card: Scorecard) -> list[str]:
    """The card's charts as HTML fragments, plotly's script inlined in the first only."""
    return [figure.to_html(
        full_html=False, include_plotlyjs="inline" if index == 0 else False,
        config={"displaylogo": False, "responsive": True},
    ) for index, figure in enumerate(_charts(card))]


def to_html(card: Scorecard) -> str:
    """The scorecard as one self-contained HTML document (plotly inlined once): the verdict
    first, then the warnings, the tables and charts, the worst queries and the glossary."""
    charts = _charts_html(card)
    title = f"Scorecard: {card.run['name']}" + (
        f" vs {card.baseline['name']}" if card.baseline else "")
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
    ]
    for index, line in enumerate(card.headline()):
        parts.append(f"<p class='verdict' id='corrected'>{_e(line)}</p>" if index == 0
                     else f"<p class='warn'>{_e(line)}</p>")
    if card.verdict is not None:
        parts.append(f"<p class='verdict' id='verdict'>{_e(card.verdict.sentence())}</p>")
    parts += [f"<p class='warn'>{_e(w)}</p>" for w in card.warnings]
    parts += [
        f"<p class='muted'>Workspace <b>{_e(card.workspace)}</b> · generated "
        f"{_e(card.generated_at[:19].replace('T', ' '))} UTC · label snapshot "
        f"<code>{_e(card.snapshot)}</code> (consensus rule {_e(card.controls.rule)}) · "
        f"{_e(card.counts.summary())} · {card.n_labels} labels</p>",
        "<p class='note'>" + "<br>".join(_e(line) for line in card.source_lines()) + "</p>",
        f"<p>{_swatch(RUN_COLOUR)}{_run_line(card.run)}" + (
            f"<br>{_swatch(BASELINE_COLOUR)}Baseline {_run_line(card.baseline)}"
            if card.baseline else "") + "</p>",
        f"<p>{_e(card.threshold)}</p>",
        f"<p class='note'>{_e(guide.NOT_MEASURED)}</p>",
    ]
    if card.comparison is not None and card.baseline:
        parts += [
            f"<h2>Against the baseline {_e(card.baseline['name'])}</h2>",
            _table(comparison_table(card), {"queries", "baseline", "run", "difference",
                                             "p (Holm)"}),
            f"<p class='muted'>Difference = run − baseline, on the queries both runs score. "
            f"Significant: Holm-adjusted p &lt; {ALPHA}.</p>",
        ]
    parts += [
        f"<h2>Scores by {_e(card.segment)}</h2>",
        "<p class='muted'>Mean [95% interval] per segment; the first row is every query.</p>",
        _table(interval_table(card.card), set()),
    ]
    if card.label_depth is not None:
        parts.append(f"<p class='muted'>{_e(card.label_depth.sentence())}</p>")
    parts += ["<div class='charts'>", *charts, "</div>", *_worst_html(card)]
    parts += [
        "<h2>Runs</h2>", _meta_table(card),
        "<h2>Glossary</h2><dl class='glossary'>",
        *[f"<dt>{_e(term)}</dt><dd>{_e(text)}</dd>" for term, text in GLOSSARY.items()],
        "</dl>",
        "<h2>Conventions</h2><ul>", *[f"<li>{_e(c)}</li>" for c in card.conventions], "</ul>",
        "<h2>Gate changes in CI</h2><p>Fail a build when a mean drops below its floor:</p>",
        f"<pre class='chunk'>{_e(card.gate_example)}</pre>",
        "</body></html>",
    ]
    return "\n".join(parts)
