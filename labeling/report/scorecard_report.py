"""The shareable scorecard: one run's scores by segment, against a baseline, as HTML, Markdown
or JSON.

Every number comes from ``labeling.evaluation`` (the engine, ``labeling.metrics.engine``, on the
consensus labels; intervals and tests from ``labeling.metrics.statistics``) under one
``score_controls.Controls`` (run, measures, unit, policy, split, consensus rule, relevance
threshold), which the file names; this module gathers them into a ``Scorecard`` and writes it.

- HTML is one file that opens offline: plotly's JavaScript is inlined once, there is no other
  resource to fetch, and every piece of user text (workspace, run metadata, segment names,
  queries, chunks) goes through ``html.escape`` -- a chunk holding ``<script>`` shows as text.
- Markdown is for a pull-request comment; user text is escaped with
  ``labeling.markdown.escape_inline``.
- JSON is for machines: plain numbers, ``null`` for a missing value.

Values are fractions in [0, 1]; intervals are percentile bootstrap intervals over queries;
significance is the paired randomization test, Holm-adjusted, at ``alpha``; the conventions
quote their settings, the constants of ``labeling.evaluation.score_controls``.
"""

from __future__ import annotations

import html
import json
import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import sqlite_utils

from labeling.errors import ScorecardError
from labeling.evaluation import (
    drilldown,
    label_sets,
    machine_agreement,
    run_comparison,
    score_controls,
    scoring,
    segmenting,
)
from labeling.evaluation.score_controls import (
    ALPHA,
    BOOTSTRAP_RESAMPLES,
    CONFIDENCE,
    SEED,
    Controls,
)
from labeling.files.formats.values import plain_value
from labeling.judging import label_sources
from labeling.markdown import escape_inline
from labeling.metrics.measures import parse_measure
from labeling.teaching import guide
from labeling.workspace import contents, file_identity, grading, store

__all__ = [
    "DEFAULT_MEASURES", "FORMATS", "Scorecard", "build_scorecard", "default_segment", "download",
    "output_format", "render", "report_controls", "to_html", "to_json", "to_markdown",
    "write_scorecard",
]

# The dashboard's headline measures, then a graded and a precision measure (``@k`` takes the
# controls' k).
DEFAULT_MEASURES = (*score_controls.DEFAULT_MEASURES, "nDCG@k", "P@5")
FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".json": "json"}
RUN_FIELDS = ("index_build", "chunk_size", "embedding_model", "query_set_version", "created_at",
              "notes")
N_WORST = 10


@dataclass
class Scorecard:
    """Everything a scorecard file shows; ``to_dict`` is the JSON form."""

    workspace: str
    generated_at: str  # ISO-8601 UTC
    run: dict[str, Any]
    baseline: dict[str, Any] | None
    snapshot: str
    measures: list[str]
    segment: str
    controls: Controls  # what every number was computed under
    n_queries: int
    n_labels: int
    conventions: list[str]
    card: pd.DataFrame  # segment, measure, mean, ci_low, ci_high, n (the run)
    baseline_card: pd.DataFrame | None  # the same for the baseline, overall only
    comparison: pd.DataFrame | None  # run_comparison.compare_runs
    worst_measure: str
    worst: list[dict[str, Any]] = field(default_factory=list)
    gate_example: str = ""
    # Per machine judge the scores use: labels, audit sample size, kappa against people.
    assistance: list[dict[str, Any]] = field(default_factory=list)

    @property
    def label_source(self) -> str:
        """Whose labels the scores are made of, in words."""
        return label_sources.describe(self.controls.label_source, self.controls.judge)

    def source_lines(self) -> list[str]:
        """The label source and, for machine-assisted scores, each judge's audit and kappa."""
        return [f"Labels: {self.label_source}.",
                *machine_agreement.describe_assistance(self.assistance)]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (NaN becomes None)."""
        def records(frame: pd.DataFrame | None) -> list[dict[str, Any]] | None:
            if frame is None:
                return None
            return [{k: plain_value(v) for k, v in row.items()} for row in frame.to_dict("records")]

        return {
            "workspace": self.workspace, "generated_at": self.generated_at,
            "run": {k: plain_value(v) for k, v in self.run.items()},
            "baseline": None if self.baseline is None
            else {k: plain_value(v) for k, v in self.baseline.items()},
            "label_snapshot": self.snapshot, "measures": self.measures,
            "segment": self.segment, "policy": self.controls.policy,
            "consensus_rule": self.controls.rule, "unit": self.controls.unit,
            "label_source": self.controls.label_source, "judge": self.controls.judge or None,
            "label_source_text": self.label_source,
            "machine_assistance": [{k: plain_value(v) if not isinstance(v, dict) else v
                                    for k, v in item.items()} for item in self.assistance],
            "split": self.controls.split, "relevance": self.controls.relevance,
            "queries": self.n_queries,
            "labels": self.n_labels, "conventions": self.conventions,
            "not_measured": guide.NOT_MEASURED,
            "scorecard": records(self.card), "baseline_scorecard": records(self.baseline_card),
            "comparison": records(self.comparison), "worst_measure": self.worst_measure,
            "worst_queries": [
                {k: ([{a: plain_value(b) for a, b in m.items()} for m in v] if k == "missed"
                     else plain_value(v)) for k, v in item.items()}
                for item in self.worst
            ],
            "gate_example": self.gate_example,
        }


def report_controls(run: str, **settings: Any) -> Controls:
    """The ``Controls`` of a report on ``run``: ``DEFAULT_MEASURES`` unless ``settings`` name
    other measures, the ``Controls`` defaults for the rest."""
    settings.setdefault("measures", DEFAULT_MEASURES)
    return Controls(run, **settings)


def default_segment(db: sqlite_utils.Database) -> str:
    """The first query attribute (e.g. ``topic``), else ``source`` (real vs synthetic)."""
    options = segmenting.segment_options(db)
    attributes = [o for o in options if o not in (score_controls.NO_SEGMENT, "source", "split")]
    return attributes[0] if attributes else "source"


def _run_meta(db: sqlite_utils.Database, name: str) -> dict[str, Any]:
    row = contents.get_run(db, name)
    meta = {"name": name, **{f: row.get(f) for f in RUN_FIELDS}}
    meta.update({f"meta.{k}": v for k, v in (row.get("metadata") or {}).items()})
    return meta


def _conventions(controls: Controls, n_resamples: int) -> list[str]:
    return [
        "Measures use trec_eval's conventions: a run is ordered by score descending, ties by "
        "chunk id descending; P@k divides by k; AP divides by every relevant chunk; nDCG's gain "
        "is the grade and its ideal list ranks every judged chunk; RR is not cut unless "
        "written RR@k.",
        f"Labels: one consensus grade per (query, chunk), rule {controls.rule}: "
        + score_controls.CONSENSUS_RULES[controls.rule]
        + f". Grades >= {controls.relevance} are relevant. Whose labels: "
        + label_sources.describe(controls.label_source, controls.judge)
        + " (chosen before the consensus: people and machines never vote together).",
        "Policy: " + score_controls.POLICIES[controls.policy] + ".",
        f"Unit: {controls.unit}. Split: {controls.split}.",
        "Recall is measured against the labeled chunks, not the whole corpus.",
        "The evaluated queries are those with at least one label; a labeled query the run "
        "returned nothing for scores 0.",
        f"Intervals: {CONFIDENCE:.0%} percentile bootstrap over queries ({n_resamples} "
        f"resamples, seed {SEED}).",
        f"Significance: paired randomization test on the queries both runs score, Holm-adjusted "
        f"across candidates, at alpha = {ALPHA}.",
    ]


def build_scorecard(
    db: sqlite_utils.Database,
    controls: Controls,
    *,
    baseline: str | None = None,
    segment: str | None = None,
    worst_measure: str | None = None,
    n_worst: int = N_WORST,
    n_resamples: int = BOOTSTRAP_RESAMPLES,
) -> Scorecard:
    """Gather the scorecard of ``controls.run`` on ``controls.measures`` (and its comparison
    with ``baseline``, under the same controls).

    ``segment``: a query attribute, ``source`` or ``split`` (default: ``default_segment``).
    ``worst_measure``: the measure the worst queries are sorted by (default: the first one);
    a worst query's missed chunks are its chunks relevant to that measure (its ``rel=``)
    outside its top k (anywhere outside the run for a measure without cutoff).
    """
    run = controls.run
    if baseline == run:
        raise ScorecardError("the baseline must be another run")
    worst_measure = controls.with_measures([worst_measure or controls.measures[0]]).measures[0]
    controls = controls.with_measures([*controls.measures, worst_measure])
    measures = list(controls.measures)
    segment = segment or default_segment(db)
    if segment not in segmenting.segment_options(db):
        raise ScorecardError(
            f"no segment {segment!r} (choose from {', '.join(segmenting.segment_options(db)[1:])})"
        )
    run_meta = _run_meta(db, run)
    base_meta = _run_meta(db, baseline) if baseline else None

    labels = label_sets.labels_for(db, controls)
    queries = segmenting.query_table(db)
    values = scoring.per_query(db, controls)
    card = scoring.scorecard(values, queries, segment, n_resamples=n_resamples)

    baseline_card = comparison = base_values = None
    if baseline:
        base_values = scoring.per_query(db, controls.for_run(baseline))
        baseline_card = scoring.scorecard(base_values, queries, score_controls.NO_SEGMENT,
                                          n_resamples=n_resamples)
        comparison = run_comparison.compare_runs(db, controls.for_run(baseline), [run],
                                                 alpha=ALPHA)

    worst = _worst_queries(db, controls, values, queries, worst_measure, segment, n_worst,
                           base_values)
    return Scorecard(
        workspace=Path(_db_path(db)).name, generated_at=store.utc_now(), run=run_meta,
        baseline=base_meta, snapshot=labels.snapshot, measures=measures, segment=segment,
        controls=controls, n_queries=len(values), n_labels=len(labels.qrels),
        conventions=_conventions(controls, n_resamples), card=card, baseline_card=baseline_card,
        comparison=comparison, worst_measure=worst_measure, worst=worst,
        gate_example=_gate_example(db, controls),
        assistance=machine_agreement.assistance(db, controls),
    )


def _worst_queries(
    db: sqlite_utils.Database, controls: Controls, values: pd.DataFrame, queries: pd.DataFrame,
    worst_measure: str, segment: str, n_worst: int, base_values: pd.DataFrame | None,
) -> list[dict[str, Any]]:
    """The ``n_worst`` queries by ``worst_measure`` with the relevant chunks they missed."""
    # Ties on the sorting measure are broken by the other measures (lowest first), so that
    # among queries with equal recall the ones with the worst ranking come first.
    others = [m for m in values.columns if m != worst_measure]
    ordered = values.sort_values([worst_measure, *others], kind="stable")
    worst_rows = drilldown.worst_queries(ordered, queries, worst_measure, segment=segment,
                                         limit=n_worst)
    sorting = parse_measure(worst_measure)
    # Missed means relevant to the sorting measure: its own rel= when it has one (the controls'
    # threshold is written into it), else the controls' threshold (nDCG).
    missing = replace(controls.with_measures([worst_measure]),
                      relevance=dict(sorting.params).get("rel", controls.relevance))
    scale = {g: name for g, name, _ in grading.get_scale(db)}
    worst = []
    for row in worst_rows.to_dict("records"):
        query_id = str(row["query_id"])
        _, missed = drilldown.drill_down(db, missing, query_id, depth=sorting.cutoff)
        texts = _chunk_texts(db, list(missed["chunk_id"]))
        item = {"query_id": query_id, "text": row["text"], "segment": row["segment"],
                "value": row["value"]}
        if base_values is not None:
            item["baseline"] = base_values[worst_measure].get(query_id, math.nan)
        item["missed"] = [
            {"chunk_id": c, "doc_id": d, "grade": g, "grade_name": scale.get(g, str(g)),
             "text": texts.get(c, "")}
            for c, d, g in zip(missed["chunk_id"], missed["doc_id"], missed["grade"],
                               strict=True)
        ]
        worst.append(item)
    return worst


def _gate_example(db: sqlite_utils.Database, controls: Controls) -> str:
    """The ``scorecard evaluate`` line that gates the first measure under the same controls."""
    options = []
    if controls.rule != "default":
        options.append(f"--consensus {controls.rule}")
    if controls.judged_only:
        options.append("--judged-only")
    if controls.label_source != label_sources.DEFAULT_SOURCE:
        options.append(f"--label-source {_shell_word(controls.label_source)}")
    if controls.judge:
        options.append(f"--judge {_shell_word(controls.judge)}")
    return " ".join(
        ["scorecard evaluate --db", _shell_word(Path(_db_path(db)).name), "--run",
         _shell_word(controls.run), *options]
        + [f"-m {_shell_word(m)}" for m in controls.measures[:2]]
        + [f"--fail-under {_shell_word(m + '=0.6')}" for m in controls.measures[:1]]
    )


def _db_path(db: sqlite_utils.Database) -> str:
    path = file_identity.database_file(db)
    return str(path) if path is not None else "workspace"


def _shell_word(text: str) -> str:
    safe = all(c.isalnum() or c in "@._-=/()" for c in text)
    return text if safe and "(" not in text else "'" + text.replace("'", "'\\''") + "'"


def _chunk_texts(db: sqlite_utils.Database, ids: list[str]) -> dict[str, str]:
    if not ids:
        return {}
    rows = db.conn.execute(
        "SELECT id, coalesce(text, '') FROM chunks WHERE id IN (SELECT value FROM json_each(?))",
        [json.dumps(ids)],
    )
    return dict(rows.fetchall())


# ---------------------------------------------------------------------------------------------
# Charts


def _charts(card: Scorecard) -> list[go.Figure]:
    """Overall means with intervals (run vs baseline), and the run's means by segment."""
    figures = []
    overall = card.card.loc[card.card["segment"] == score_controls.OVERALL]
    bars = go.Figure()
    sources = [(card.run["name"], overall)]
    if card.baseline_card is not None and card.baseline is not None:
        sources.insert(0, (card.baseline["name"], card.baseline_card))
    for name, frame in sources:
        with_bars = scoring.with_error_bars(frame)
        bars.add_bar(
            name=html.escape(str(name)), x=[html.escape(m) for m in with_bars["measure"]],
            y=with_bars["mean"],
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
        y=[html.escape(str(i)) for i in matrix.index], zmin=0, zmax=1, colorscale="Blues",
        texttemplate="%{z:.2f}",
    ))
    heat.update_layout(title=f"Means by {html.escape(card.segment)}", yaxis_autorange="reversed",
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
"""


def _e(value: Any) -> str:
    """Any value as escaped HTML text."""
    return html.escape("" if value is None or value is pd.NA else str(value), quote=True)


def _fmt(value: Any, digits: int = 3) -> str:
    value = plain_value(value)
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _table(frame: pd.DataFrame, numeric: set[str]) -> str:
    head = "".join(f"<th>{_e(c)}</th>" for c in frame.columns)
    body = []
    for row in frame.itertuples(index=False):
        cells = []
        for column, value in zip(frame.columns, row, strict=True):
            css = ' class="num"' if column in numeric else ""
            cells.append(f"<td{css}>{_e(_fmt(value))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _interval_table(card: pd.DataFrame) -> pd.DataFrame:
    wide = card.pivot_table(index="segment", columns="measure", values=["mean", "ci_low",
                                                                      "ci_high"], sort=False)
    counts = card.groupby("segment", sort=False)["n"].first()
    rows = []
    for segment in dict.fromkeys(card["segment"]):
        row: dict[str, Any] = {"segment": segment, "queries": int(counts[segment])}
        for measure in dict.fromkeys(card["measure"]):
            mean = wide.loc[segment, ("mean", measure)]
            low, high = wide.loc[segment, ("ci_low", measure)], wide.loc[segment,
                                                                          ("ci_high", measure)]
            row[measure] = f"{mean:.3f} [{low:.3f}, {high:.3f}]"
        rows.append(row)
    return pd.DataFrame(rows)


def _comparison_table(card: Scorecard) -> pd.DataFrame:
    frame = card.comparison
    assert frame is not None
    return pd.DataFrame({
        "measure": frame["measure"], "queries": frame["n"], "baseline": frame["baseline"],
        "run": frame["candidate_mean"], "difference": frame["difference"],
        "p (Holm)": frame["p_holm"],
        "significant": frame["significant"].map({True: "yes", False: "no"}),
        "wins / ties / losses": [f"{w} / {t} / {lo}" for w, t, lo in
                                 zip(frame["wins"], frame["ties"], frame["losses"],
                                     strict=True)],
    })


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
        f"<tr><td>{_e(f)}</td>" + "".join(f"<td>{_e(_fmt(m.get(f)))}</td>" for m in runs)
        + "</tr>" for f in fields
    )
    return f"<table class='meta'><thead>{head}</thead><tbody>{rows}</tbody></table>"


def to_html(card: Scorecard) -> str:
    """The scorecard as one self-contained HTML document (plotly inlined once)."""
    charts = []
    for index, figure in enumerate(_charts(card)):
        charts.append(figure.to_html(
            full_html=False, include_plotlyjs="inline" if index == 0 else False,
            config={"displaylogo": False, "responsive": True},
        ))
    title = f"Scorecard: {card.run['name']}" + (
        f" vs {card.baseline['name']}" if card.baseline else "")
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p class='muted'>Workspace <b>{_e(card.workspace)}</b> · generated "
        f"{_e(card.generated_at[:19].replace('T', ' '))} UTC · label snapshot "
        f"<code>{_e(card.snapshot)}</code> (consensus rule {_e(card.controls.rule)}) · "
        f"{card.n_queries} queries evaluated · "
        f"{card.n_labels} labels</p>",
        "<p class='note'>" + "<br>".join(_e(line) for line in card.source_lines()) + "</p>",
        f"<p>{_run_line(card.run)}" + (f"<br>Baseline {_run_line(card.baseline)}"
                                       if card.baseline else "") + "</p>",
        f"<p class='note'>{_e(guide.NOT_MEASURED)}</p>",
    ]
    if card.comparison is not None and card.baseline:
        parts += [
            f"<h2>Against the baseline {_e(card.baseline['name'])}</h2>",
            _table(_comparison_table(card), {"queries", "baseline", "run", "difference",
                                             "p (Holm)"}),
            f"<p class='muted'>Difference = run − baseline, on the queries both runs score. "
            f"Significant: Holm-adjusted p &lt; {ALPHA}.</p>",
        ]
    parts += [
        f"<h2>Scores by {_e(card.segment)}</h2>",
        "<p class='muted'>Mean [95% interval] per segment; the first row is every query.</p>",
        _table(_interval_table(card.card), set()),
        "<div class='charts'>", *charts, "</div>",
    ]
    parts.append(f"<h2>The {len(card.worst)} worst queries by {_e(card.worst_measure)}</h2>")
    for item in card.worst:
        value = f"{_e(card.worst_measure)} = {_fmt(item['value'])}"
        if "baseline" in item:
            value += f" (baseline {_fmt(item['baseline'])})"
        parts.append(
            f"<h3>{_e(item['query_id'])} <span class='muted'>· {_e(item['segment'])} · "
            f"{value}</span></h3><p>{_e(item['text'])}</p>"
        )
        if item["missed"]:
            parts.append(f"<p class='muted'>{len(item['missed'])} relevant chunk(s) missed:</p>")
            for missed in item["missed"]:
                parts.append(
                    f"<div><b>{_e(missed['chunk_id'])}</b> <span class='muted'>"
                    f"({_e(missed['grade_name'])}, document {_e(missed['doc_id'])})</span>"
                    f"<div class='chunk'>{_e(missed['text'])}</div></div>"
                )
        else:
            parts.append("<p class='muted'>No labeled relevant chunk was missed: the relevant "
                         "chunks were retrieved low, or none is labeled yet.</p>")
    parts += [
        "<h2>Runs</h2>", _meta_table(card),
        "<h2>Conventions</h2><ul>", *[f"<li>{_e(c)}</li>" for c in card.conventions], "</ul>",
        "<h2>Gate changes in CI</h2><p>Fail a build when a mean drops below its floor:</p>",
        f"<pre class='chunk'>{_e(card.gate_example)}</pre>",
        "</body></html>",
    ]
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# Markdown

_md = escape_inline


def _md_table(frame: pd.DataFrame, user: tuple[str, ...] = ()) -> str:
    """A Markdown table; cells of the ``user`` columns (user text) are escaped."""
    lines = ["| " + " | ".join(str(c) for c in frame.columns) + " |",
             "|" + "---|" * len(frame.columns)]
    for row in frame.itertuples(index=False):
        cells = [_md(_fmt(v)) if c in user else _fmt(v).replace("|", "\\|")
                 for c, v in zip(frame.columns, row, strict=True)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def to_markdown(card: Scorecard) -> str:
    """The scorecard as Markdown for a pull-request comment (user text escaped)."""
    run = card.run
    lines = [
        f"## Retrieval scorecard: {_md(run['name'])}"
        + (f" vs {_md(card.baseline['name'])}" if card.baseline else ""),
        "",
        f"Workspace {_md(card.workspace)} · {card.generated_at[:10]} · label snapshot "
        f"`{card.snapshot}` (consensus rule {card.controls.rule}) · {card.n_queries} queries · "
        f"{card.n_labels} labels",
        "",
        *[f"- {_md(line)}" for line in card.source_lines()],
        "",
        "Run: " + "; ".join(f"{_md(k)}: {_md(_fmt(v))}" for k, v in run.items()
                            if k != "name" and v not in (None, "")),
        "",
        f"> {guide.NOT_MEASURED}",
        "",
    ]
    if card.comparison is not None and card.baseline:
        lines += [f"### Against {_md(card.baseline['name'])}", "",
                  _md_table(_comparison_table(card)), ""]
    lines += [f"### By {_md(card.segment)} (mean [95% interval])", "",
              _md_table(_interval_table(card.card), ("segment",)), "",
              f"### Worst queries by {_md(card.worst_measure)}", ""]
    for item in card.worst:
        missed = ", ".join(_md(m["chunk_id"]) for m in item["missed"]) or "none"
        lines.append(f"- **{_md(item['query_id'])}** ({_fmt(item['value'])}): "
                     f"{_md(item['text'])} — missed: {missed}")
    lines += ["", "<details><summary>Conventions</summary>", ""]
    lines += [f"- {c}" for c in card.conventions]
    lines += ["", "</details>", ""]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# JSON and files


def to_json(card: Scorecard) -> str:
    """The scorecard as indented JSON (``null`` for missing values)."""
    return json.dumps(card.to_dict(), indent=2, ensure_ascii=False, allow_nan=False)


def render(card: Scorecard, fmt: str) -> str:
    """``fmt``: ``html``, ``markdown`` or ``json``."""
    writers = {"html": to_html, "markdown": to_markdown, "json": to_json}
    if fmt not in writers:
        raise ScorecardError(f"unknown scorecard format {fmt!r} (html, markdown or json)")
    return writers[fmt](card)


def output_format(path: str | Path) -> str:
    """The format a file name asks for (``html``, ``markdown`` or ``json``)."""
    fmt = FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise ScorecardError(f"{path}: name the scorecard file .html, .md or .json")
    return fmt


def write_scorecard(card: Scorecard, path: str | Path) -> str:
    """Write ``card`` to ``path`` in the format its suffix names; returns the format."""
    fmt = output_format(path)
    Path(path).write_text(render(card, fmt), encoding="utf-8")
    return fmt


MIME = {"html": "text/html", "markdown": "text/markdown", "json": "application/json"}
SUFFIX = {"html": "html", "markdown": "md", "json": "json"}


def download(card: Scorecard, fmt: str) -> tuple[bytes, str, str]:
    """For a download button: the file's bytes (UTF-8), a file name and its MIME type.

    The name is ``scorecard-<run>[-vs-<baseline>]-<YYYY-MM-DD>.<suffix>``, with characters
    other than letters, digits, ``.``, ``_`` and ``-`` replaced by ``_``.
    """
    name = card.run["name"] + (f"-vs-{card.baseline['name']}" if card.baseline else "")
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in str(name))
    stamp = card.generated_at[:10]
    return (render(card, fmt).encode("utf-8"), f"scorecard-{safe}-{stamp}.{SUFFIX[fmt]}",
            MIME[fmt])
