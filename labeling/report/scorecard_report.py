"""The shareable scorecard: one run's scores by segment, against a baseline, as HTML, Markdown
or JSON.

Every number comes from ``labeling.evaluation`` (the engine, ``labeling.metrics.engine``, on the
consensus labels; intervals and tests from ``labeling.metrics.statistics``) under one
``score_controls.Controls`` (run, measures, unit, policy, split, consensus rule, relevance
threshold, queries without results), which the file names; this module gathers them into a
``Scorecard`` and writes it. A scorecard speaks first in one sentence (``verdict``), states
"n evaluated, of which m returned nothing", warns where the numbers could mislead (a run older
than the query set, recall as deep as the labels go) and lists the worst queries the run
retrieved badly apart from those it returned nothing for.

- HTML (``card_html``) is one file that opens offline: plotly's JavaScript is inlined once,
  there is no other resource to fetch, and every piece of user text (workspace, run metadata,
  segment names, queries, chunks) goes through ``html.escape`` -- a chunk holding
  ``<script>`` shows as text.
- Markdown (``card_markdown``) is for a pull-request comment; user text is escaped with
  ``labeling.markdown.escape_inline``.
- JSON is for machines: plain numbers, ``null`` for a missing value.

Values are fractions in [0, 1]; intervals are percentile bootstrap intervals over queries;
significance is the paired randomization test, Holm-adjusted, at ``alpha``; the conventions
quote their settings, the constants of ``labeling.evaluation.inputs.score_controls``.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from labeling.errors import ScorecardError
from labeling.evaluation.inputs import (
    chunk_set_labels,
    label_sets,
    run_freshness,
    score_controls,
    segmenting,
)
from labeling.evaluation.inputs.score_controls import (
    ALPHA,
    BOOTSTRAP_RESAMPLES,
    CONFIDENCE,
    SEED,
    Controls,
)
from labeling.evaluation.scores import label_depth, run_comparison, scoring
from labeling.evaluation.views import drilldown
from labeling.files.formats.values import plain_value
from labeling.judging import label_sources
from labeling.machine_judging import corrected_scores, machine_agreement
from labeling.metrics.engine import QueryCount
from labeling.report.card_html import to_html
from labeling.report.card_markdown import to_markdown
from labeling.report.scorecard import Scorecard
from labeling.report.verdict import build_verdict
from labeling.workspace import chunk_store, contents, file_identity, grading, store

if TYPE_CHECKING:
    import sqlite_utils

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


def _conventions(controls: Controls, n_resamples: int, threshold: str) -> list[str]:
    return [
        "Measures use trec_eval's conventions: a run is ordered by score descending, ties by "
        "chunk id descending; P@k divides by k; AP divides by every relevant chunk; nDCG's gain "
        "is the grade and its ideal list ranks every judged chunk; RR is not cut unless "
        "written RR@k.",
        f"Labels: one consensus grade per (query, chunk), rule {controls.rule}: "
        + score_controls.CONSENSUS_RULES[controls.rule]
        + f". Grades >= {controls.relevance} are relevant. " + threshold
        + " Whose labels: " + label_sources.describe(controls.label_source, controls.judge)
        + " (chosen before the consensus: people and machines never vote together).",
        "Policy: " + score_controls.POLICIES[controls.policy] + ".",
        f"Unit: {controls.unit}. Split: {controls.split}.",
        "Recall is measured against the labeled chunks, not the whole corpus.",
        "The evaluated queries are those with at least one label; labeled queries the run "
        f"returned nothing for {score_controls.MISSING_QUERIES[controls.missing]}.",
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
    segment = _checked_segment(db, segment or default_segment(db))
    run_meta = _run_meta(db, run)
    base_meta = _run_meta(db, baseline) if baseline else None

    labels = label_sets.labels_for(db, controls)
    queries = segmenting.query_table(db)
    values = scoring.per_query(db, controls)
    card = scoring.scorecard(values, queries, segment, n_resamples=n_resamples)

    base_values, baseline_card, comparison = _baseline_parts(db, controls, baseline, queries,
                                                             n_resamples)
    unanswered = scoring.unanswered_queries(db, controls)
    worst = _worst_queries(db, controls, values, queries, worst_measure, segment, n_worst,
                           base_values, unanswered)
    not_retrieved = _not_retrieved(db, controls, queries, worst_measure, segment,
                                   unanswered[:n_worst])
    counts = scoring.query_count(db, controls)
    depth = label_depth.label_depth(db, controls)
    threshold = score_controls.threshold_sentence(controls.relevance, grading.get_scale(db))
    return Scorecard(
        workspace=Path(_db_path(db)).name, generated_at=store.utc_now(), run=run_meta,
        baseline=base_meta, snapshot=labels.snapshot, measures=measures, segment=segment,
        controls=controls, n_queries=len(values), n_labels=len(labels.qrels),
        conventions=_conventions(controls, n_resamples, threshold), card=card,
        baseline_card=baseline_card, comparison=comparison, worst_measure=worst_measure,
        worst=worst, gate_example=_gate_example(db, controls), counts=counts,
        not_retrieved=not_retrieved,
        verdict=build_verdict(db, controls, card, comparison, baseline, n_resamples=n_resamples),
        threshold=threshold, label_depth=depth,
        warnings=_warnings(db, controls, baseline, counts, depth),
        assistance=machine_agreement.assistance(db, controls),
        corrected=corrected_scores.corrected_scores(db, controls),
    )


def _checked_segment(db: sqlite_utils.Database, segment: str) -> str:
    """``segment`` when it is one of ``segmenting.segment_options``; else ``ScorecardError``."""
    if segment not in segmenting.segment_options(db):
        raise ScorecardError(
            f"no segment {segment!r} (choose from {', '.join(segmenting.segment_options(db)[1:])})"
        )
    return segment


def _baseline_parts(
    db: sqlite_utils.Database, controls: Controls, baseline: str | None, queries: pd.DataFrame,
    n_resamples: int,
) -> tuple[pd.DataFrame | None, pd.DataFrame | None, pd.DataFrame | None]:
    """(per-query values, scorecard, comparison with ``controls.run``) of ``baseline`` under
    ``controls``; all None without a baseline."""
    if not baseline:
        return None, None, None
    base_values = scoring.per_query(db, controls.for_run(baseline))
    baseline_card = scoring.scorecard(base_values, queries, score_controls.NO_SEGMENT,
                                      n_resamples=n_resamples)
    comparison = run_comparison.compare_runs(db, controls.for_run(baseline), [controls.run],
                                             alpha=ALPHA)
    return base_values, baseline_card, comparison


def _warnings(
    db: sqlite_utils.Database, controls: Controls, baseline: str | None, counts: QueryCount,
    depth: label_depth.LabelDepth,
) -> list[str]:
    """What could make the numbers mislead: queries without results, a run older than the
    query set or naming no chunk set among several, recall measured as deep as the labels
    go."""
    warnings = [counts.sentence()] if counts.returned_nothing else []
    for name in filter(None, (controls.run, baseline)):
        age = run_freshness.run_age(db, name, controls.rule)
        if age.stale:
            warnings.append(age.sentence(scoring.query_count(db, controls.for_run(name))))
        warnings += filter(None, [chunk_set_labels.unstated_chunk_set(db, name)])
    warnings += filter(None, (depth.warning(m) for m in controls.measures))
    return warnings


def _worst_queries(
    db: sqlite_utils.Database, controls: Controls, values: pd.DataFrame, queries: pd.DataFrame,
    worst_measure: str, segment: str, n_worst: int, base_values: pd.DataFrame | None,
    unanswered: pd.Index,
) -> list[dict[str, Any]]:
    """The ``n_worst`` queries by ``worst_measure`` among those the run returned something for,
    with the relevant chunks they missed (``drilldown.missed_at_k``, as the dashboard)."""
    # Ties on the sorting measure are broken by the other measures (lowest first), so that
    # among queries with equal recall the ones with the worst ranking come first.
    others = [m for m in values.columns if m != worst_measure]
    ordered = values.sort_values([worst_measure, *others], kind="stable")
    worst_rows = drilldown.worst_queries(ordered, queries, worst_measure, segment=segment,
                                         limit=n_worst, exclude=unanswered)
    worst = []
    for row in worst_rows.to_dict("records"):
        item = {"query_id": str(row["query_id"]), "text": row["text"], "segment": row["segment"],
                "value": row["value"]}
        if base_values is not None:
            item["baseline"] = base_values[worst_measure].get(item["query_id"], math.nan)
        item["missed"] = _missed(db, controls, item["query_id"], worst_measure)
        worst.append(item)
    return worst


def _not_retrieved(
    db: sqlite_utils.Database, controls: Controls, queries: pd.DataFrame, worst_measure: str,
    segment: str, unanswered: pd.Index,
) -> list[dict[str, Any]]:
    """The evaluated queries the run returned nothing for (``unanswered``: the first
    ``n_worst`` by id; ``Scorecard.counts`` has how many there are), with their relevant
    chunks."""
    rows = drilldown.not_retrieved(queries, unanswered, segment=segment)
    return [{**{k: str(v) for k, v in row.items()},
             "missed": _missed(db, controls, str(row["query_id"]), worst_measure)}
            for row in rows.to_dict("records")]


def _missed(
    db: sqlite_utils.Database, controls: Controls, query_id: str, worst_measure: str
) -> list[dict[str, Any]]:
    """The query's relevant chunks outside the top k of the sorting measure (its ``rel=`` and
    cutoff, else the controls'), with their full text."""
    scoped, k = drilldown.miss_scope(controls, worst_measure)
    missed = drilldown.missed_at_k(db, scoped, query_id, k)
    texts = _chunk_texts(db, list(missed["chunk_id"]))
    return [
        {"chunk_id": c, "doc_id": plain_value(d), "grade": int(g), "grade_name": name,
         "rank": plain_value(r), "where": where, "text": texts[c]}
        for c, d, g, name, r, where in zip(missed["chunk_id"], missed["doc_id"],
                                           missed["grade"], missed["grade_name"],
                                           missed["rank"], missed["where"], strict=True)
    ]


def _gate_example(db: sqlite_utils.Database, controls: Controls) -> str:
    """The ``scorecard evaluate`` line that gates the first measure under the same controls."""
    options = []
    if controls.rule != "default":
        options.append(f"--consensus {controls.rule}")
    if controls.judged_only:
        options.append("--judged-only")
    if controls.skip_missing:
        options.append("--skip-missing")
    if controls.relevance != score_controls.DEFAULT_RELEVANCE:
        options.append(f"--relevance {controls.relevance}")
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
    rows = chunk_store.chunk_texts_of(db, ids)
    return {chunk: contents.shown_text(text, chunk) for chunk, text in rows.items()}


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
