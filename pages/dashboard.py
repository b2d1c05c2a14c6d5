"""Dashboard: scorecard by segment, coverage, run comparison, worst queries, reviews, history.

The widgets at the top are read into one ``labeling.evaluation.inputs.score_controls.Controls``;
every tab draws what ``labeling.evaluation`` computes under it, so all tabs use the same run,
measures, unit, policy, split, consensus rule and relevance threshold. One function per tab;
only the open tab runs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, replace

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import sqlite_utils
import streamlit as st

from labeling import (
    ScorecardError,
    chunk_markup,
    escape_chart_frame,
    escape_chart_text,
    escape_inline,
    escape_markdown,
    evidence_marks,
)
from labeling.evaluation import (
    ALPHA,
    BOOTSTRAP_RESAMPLES,
    CONFIDENCE,
    POWER,
    SEED,
    TEST_RESAMPLES,
    Controls,
    chunk_set_labels,
    deciding_pairs,
    drilldown,
    failure_tags,
    inferred_labels,
    judged_coverage,
    judging_budget,
    label_depth,
    label_sets,
    locked_splits,
    rule_note,
    run_comparison,
    run_freshness,
    score_controls,
    score_defaults,
    score_history,
    scoring,
    segmenting,
)
from labeling.files import exporters as exports
from labeling.files import live_runs, uploads
from labeling.judging import label_sources
from labeling.machine_judging import machine_judge
from labeling.metrics import parse_measure
from labeling.workspace import contents, grading
from pages import _auth, _common, _search

WHERE = "dashboard"
WHERE_DRILL = "dashboard_drill"
WHERE_COVERAGE = "dashboard_coverage"
WHERE_HISTORY = "dashboard_history"
# Failures a write can meet that the user can read as one sentence (``_common.report_failure``):
# the project's refusals and SQLite's (busy, full, read-only).
FAILURES = (ScorecardError, sqlite3.Error)
MORE_MEASURES = ["P@k", "Success@k", "nDCG@k", "AP", "Judged@k"]
COMPARE_NUMBERS = ("baseline", "candidate_mean", "difference", "p_randomization", "p_t",
                   "p_holm", "sd_difference", "detectable")
WORST_ORDERS = ["lowest value", "largest drop vs baseline"]
EVERY_SEGMENT = "(all)"
FULL_RANGE = [0, 1.05]  # y axis of charts of values in [0, 1]
# Widget keys and file name prefix of the drill-down lists, by unit.
DRILL_KEYS = {
    "chunk": ("dash_ranked", "dash_missed", ""),
    "document": ("dash_ranked_docs", "dash_missed_doc", "documents-"),
}
GRADE_COLOURS = {0: "#f8d7da", 1: "#fff3cd", 2: "#d1e7dd", 3: "#a3cfbb"}


@dataclass(frozen=True)
class View:
    """What every tab reads: the workspace, its runs, queries and grade scale, the controls,
    the segment attribute and the test split's lock row (None when unlocked)."""

    db: sqlite_utils.Database
    runs: list[str]
    queries: pd.DataFrame
    scale: list[tuple]
    controls: Controls
    segment: str
    lock: dict | None


# --- drawing helpers ------------------------------------------------------------------------


def csv_button(frame: pd.DataFrame, name: str, key: str) -> None:
    st.download_button(
        "Download CSV",
        exports.csv_bytes(frame),
        file_name=f"{uploads.safe_filename(name)}.csv",  # names hold run and query ids
        mime="text/csv",
        key=key,
    )


def number_columns(columns: tuple[str, ...], fmt: str) -> dict:
    return {c: st.column_config.NumberColumn(format=fmt) for c in columns}


@st.cache_resource(max_entries=256, show_spinner=False)
def figure(kind: str, frame: pd.DataFrame, **options: object) -> go.Figure:
    """``px.<kind>(frame, **options)``, kept across sessions: building a Plotly Express figure
    costs a few tenths of a second, and the same frame gives the same figure (the key is the
    frame's content and the options, never a connection). One figure object is shared, never
    changed: drawn as a figure, Streamlit copies it without validating it again (given a dict,
    it rebuilds and validates a figure, ~30 ms a chart on every render)."""
    return getattr(px, kind)(frame, **options)


def line_chart(place, frame: pd.DataFrame, key: str, title: str, **encoding: str) -> None:
    """A line chart with markers of ``frame`` (user text escaped) in ``place``."""
    place.plotly_chart(figure("line", escape_chart_frame(frame), markers=True, title=title,
                              **encoding), key=key)


def bar_chart(frame: pd.DataFrame, title: str, **encoding: object) -> go.Figure:
    """Grouped bars of values in [0, 1] (user text escaped)."""
    return figure("bar", escape_chart_frame(frame), barmode="group", range_y=FULL_RANGE,
                  title=title, **encoding)


def grade_badge(label: str, scale: list[tuple]) -> str:
    """Cell style of a grade label: grey when unjudged or hidden, red to green by grade."""
    if label in ("unjudged", drilldown.HIDDEN):
        return "background-color: #eeeeee; color: #555555; font-style: italic"
    grade = next((g for g, name, _ in scale if name == label), None)
    return f"background-color: {GRADE_COLOURS.get(grade, GRADE_COLOURS[2])}"


def show_ranked(frame: pd.DataFrame, key: str, scale: list[tuple]) -> None:
    """A drill-down list, labels coloured, snippets wide (user text: shown as plain cells)."""
    st.dataframe(
        frame.drop(columns=["relevant"]).style.map(lambda label: grade_badge(label, scale),
                                                   subset=["grade_name"]),
        hide_index=True,
        key=key,
        placeholder="–",  # an unjudged grade: the label column says why
        column_config={
            "grade_name": st.column_config.TextColumn("label"),
            "snippet": st.column_config.TextColumn(width="large"),
        },
    )


def show_missed(frame: pd.DataFrame, key: str, unit: str) -> None:
    """One bordered card per missed chunk or document, its text shown as plain text."""
    for item in frame.itertuples():
        with st.container(border=True, key=f"{key}_{item.Index}"):
            grade = f"grade {item.grade} {item.grade_name}"
            where = (
                f"{item.chunk_id} · {grade} · {item.where} · document {item.doc_id}"
                if unit == "chunk"
                else f"{item.doc_id} · {grade} · {item.where} · best chunk {item.chunk_id}"
            )
            st.text(f"Missed: {where}")
            st.text(item.snippet)


def show_drill_down(
    ranked: pd.DataFrame, missed: pd.DataFrame, unit: str, query_id: str, scale: list[tuple],
    k: int | None = None,
) -> None:
    """A query's ranked chunks or documents and the relevant ones the run missed in its top
    ``k``, with CSVs."""
    table_key, missed_key, prefix = DRILL_KEYS[unit]
    if not ranked.empty:
        show_ranked(ranked, table_key, scale)
    if (ranked["grade_name"] == drilldown.HIDDEN).any():
        st.caption(f"Blind judging: a {unit} marked {drilldown.HIDDEN} has grades you have not "
                   "judged yourself; they appear once you have.")
    csv_button(ranked, f"ranked-{prefix}{query_id}", f"{table_key}_csv")
    st.subheader(f"Relevant {unit}s the run missed" + (f" in its top {k}" if k else ""))
    if missed.empty:
        st.caption(f"None: the run retrieved every {unit} labeled relevant"
                   + (f" in its top {k}." if k else "."))
    else:
        show_missed(missed, missed_key, unit)
        csv_button(missed, f"missed-{prefix}{query_id}", f"{missed_key}_csv")


# --- callbacks (every write happens here) ------------------------------------------------------


def _run_write(where: str, action: Callable[[], object], success: str) -> None:
    try:
        result = action()
    except FAILURES as error:  # shown to the user as one sentence
        _common.report_failure(error, where)
        return
    _common.flash("success", success.replace("{result}", str(result)), where)


JUDGE_NONCE = "dash_judge_nonce"  # fresh judge-form widgets (no grade chosen) after each save


def judge_key(name: str, nonce: int) -> str:
    """The key of a judge-form widget: a new one after each save, so no grade carries over."""
    return name if nonce == 0 else f"{name}_{nonce}"


def judge_chunk(query_id: str) -> None:
    state = st.session_state
    nonce = state.get(JUDGE_NONCE, 0)
    chunk = state.get(judge_key(f"dash_judge_chunk:{query_id}", nonce))
    grade = state.get(judge_key("dash_judge_grade", nonce))
    if chunk is None or grade is None:
        _common.flash("warning", "Choose a chunk and a grade first.", WHERE_DRILL)
        return
    try:
        drilldown.judge(_common.get_db(), query_id, chunk, int(grade), _common.annotator(),
                        note=state.get(judge_key("dash_judge_note", nonce)) or None)
    except FAILURES as error:  # shown to the user as one sentence
        _common.report_failure(error, WHERE_DRILL)
        return
    state[JUDGE_NONCE] = nonce + 1
    _common.flash("success", f"Judged {chunk}: the numbers use the new label.", WHERE_DRILL)


def tag_query(query_id: str, run: str) -> None:
    state = st.session_state
    _run_write(
        WHERE_DRILL,
        lambda: failure_tags.tag_failure(_common.get_db(), query_id, run,
                                         state.get("dash_tags") or [], _common.annotator(),
                                         state.get("dash_tag_note") or None),
        "Recorded {result} tag(s).",
    )


def add_tag() -> None:
    name = st.session_state.get("dash_new_tag") or ""
    _run_write(
        WHERE_DRILL,
        lambda: failure_tags.add_failure_tag(_common.get_db(), name,
                                             created_by=_common.annotator()),
        "Tag added.",
    )
    st.session_state["dash_new_tag"] = ""


def send_to_queue(pairs: list[tuple[str, str]], k: int, runs: list[str]) -> None:
    _run_write(
        WHERE_COVERAGE,
        lambda: judged_coverage.send_unjudged_to_queue(_common.get_db(), pairs, k=k, runs=runs),
        "Sent {result} new pair(s) to the labeling queue.",
    )


def set_default_threshold() -> None:
    grade = st.session_state.get("dash_relevance")
    _run_write(
        WHERE, lambda: grading.set_default_relevance(_common.get_db(), grade),
        "Grade {result} is now the workspace's default relevance threshold.",
    )


def lock_test(rule: str) -> None:
    _run_write(
        WHERE_HISTORY,
        lambda: locked_splits.lock_split(_common.get_db(), _common.annotator(), rule=rule),
        "Test split locked at label snapshot {result}.",
    )


def unlock_test() -> None:
    _run_write(
        WHERE_HISTORY, lambda: locked_splits.unlock_split(_common.get_db()), "Test split unlocked."
    )


def save_history(controls: Controls) -> None:
    _run_write(
        WHERE_HISTORY,
        lambda: score_history.save_snapshot(_common.get_db(), controls,
                                            created_by=_common.annotator() or None),
        f"Saved the scores of {controls.run} on label snapshot " + "{result}.",
    )


# --- controls ---------------------------------------------------------------------------------

GUIDE_PAGE = "pages/guide.py"
HELP = {  # the scoring rules in plain words, one tooltip each
    "run": "The ranked results being scored. A run marked stale is older than the query set: "
           "labeled queries were added after it was made and it has no results for them.",
    "k": "How many results of each query count: the chunks your pipeline passes to its model. "
         "Measures written @k use it. The workspace's default comes from the Metric guide.",
    "segment": "Split the scores by a query attribute (topic, source, ...); (all) shows one "
               "row for every query together.",
    "split": "Score all queries, or only the dev or the test queries.",
    "extra": "Measures shown beside the lead ones; @k takes the k above.",
    "custom": "Any measure the engine knows, written as in the Metric guide, e.g. nDCG@5 or "
              "P(rel=2)@10.",
    "unit": "What one result is. chunk: each chunk on its own. document: a document takes its "
            "best chunk's rank and its highest chunk grade, so runs that cut documents into "
            "chunks differently stay comparable.",
    "rule": "When several people graded the same pair, how their grades become one. ",
    "relevance": "The lowest grade that counts as a hit for P, R, Success, RR and AP (as "
                 "trec_eval's -l); nDCG uses the grades themselves. Grades: ",
    "policy": "What a retrieved chunk nobody has judged yet counts as: not relevant (as "
              "trec_eval does, so scores can only rise as labels come in), or left out so "
              "only judged results are scored (trec_eval -J).",
    "missing": "Leave out labeled queries the run returned nothing for (--skip-missing). Off: "
               "they score 0 and count in the means, as trec_eval -c does.",
    "labels": "Whose labels the scores use. Machine labels count only when chosen here; "
              "people and machines never vote together. Audit a machine judge on the Machine "
              "judges page.",
    "judge": "The machine judge (model and prompt version) whose labels are used.",
}


def read_controls(
    db: sqlite_utils.Database, runs: list[str], scale: list[tuple]
) -> tuple[Controls, str]:
    """The widgets at the top, read into one ``Controls``, and the segment attribute: what a
    first visit needs (run, k, segment, split) in view, the rest under "Scoring rules". k and
    the lead measures start from the workspace's defaults (set on the Metric guide)."""
    ages = run_freshness.run_ages(db)
    defaults = score_defaults.score_defaults(db)
    with st.container(border=True, key="dash_controls"):
        row = st.columns([3, 1, 2, 1])
        run = row[0].selectbox("Run", runs, key="dash_run", format_func=lambda r: ages[r].label(),
                               help=HELP["run"])
        incomplete = live_runs.run_incompleteness(db, run)
        if incomplete:
            st.warning(f"This live run is {incomplete}: they count as returning nothing here. "
                       "Run it again (Data page, Live runs) to complete it.")
        k = row[1].number_input("k", 1, 1000, defaults.k, 1, key="dash_k", help=HELP["k"])
        segment = row[2].selectbox("Segment", segmenting.segment_options(db), index=0,
                                   key="dash_segment", help=HELP["segment"])
        split = row[3].selectbox("Split", score_controls.SPLITS, key="dash_split",
                                 help=HELP["split"])
        with st.expander("Scoring rules", key="dash_rules"):
            extra, custom, settings = scoring_rules(db, scale)
        rule_note_panel(db, run, settings)
    settings.update(run=run, k=int(k), split=split)
    measures = tuple(dict.fromkeys((*defaults.measures, *extra)))
    try:
        return Controls(measures=(*measures, custom) if custom.strip() else measures,
                        **settings), segment
    except ScorecardError as error:  # a bad custom measure name: say so, keep the others
        st.error(escape_inline(f"{type(error).__name__}: {error}"))
        return Controls(measures=measures, **settings), segment


def rule_note_panel(db: sqlite_utils.Database, run: str, settings: dict) -> None:
    """What the consensus rules change on these labels, in words: counted only while open (it
    takes the lenient and strict labels too, which a first render need not pay for)."""
    panel = st.expander("What the consensus rule changes on these labels",
                        key="dash_rule_note_open", on_change="rerun")
    if not panel.open:
        return
    probe = Controls(run=run, label_source=settings["label_source"],
                     judge=settings.get("judge", ""))
    panel.caption(escape_inline(rule_note.rule_differences(db, probe).sentence()))


def scoring_rules(db: sqlite_utils.Database, scale: list[tuple]) -> tuple[list, str, dict]:
    """The folded controls: more measures, a custom one, unit, consensus rule, relevance
    threshold, unjudged policy, queries without results, label source. Returns (extra
    measures, custom measure text, the other settings)."""
    row = st.columns([2, 2])
    extra = row[0].multiselect("More measures", MORE_MEASURES, key="dash_extra",
                               help=HELP["extra"])
    custom = row[1].text_input("Any measure", key="dash_custom", placeholder="e.g. nDCG@5",
                               help=HELP["custom"])
    row = st.columns([1, 1, 1, 2])
    default = grading.default_relevance(db)
    choices = score_controls.relevance_choices(g for g, _, _ in scale)
    settings = {
        "unit": row[0].radio("Unit", score_controls.UNITS, key="dash_unit", horizontal=True,
                             help=HELP["unit"]),
        "rule": row[1].selectbox(
            "Consensus rule", list(score_controls.CONSENSUS_RULES), key="dash_rule",
            help=HELP["rule"] + " ".join(f"{name}: {text}." for name, text in
                                         score_controls.CONSENSUS_RULES.items())
            + " With two annotators one grade apart, default's mean rounded half up is the "
            "higher grade, as lenient's."
            + " Compare strict and lenient to see how much disagreement moves the scores."),
        "relevance": row[2].selectbox(
            "Relevant from grade", choices, key="dash_relevance",
            index=choices.index(default) if default in choices else 0,
            help=HELP["relevance"] + escape_inline(", ".join(f"{g} {n}" for g, n, _ in scale))
            + f". The workspace's default is grade {default}."),
        "policy": row[3].radio("Unjudged retrieved chunks", list(score_controls.POLICIES),
                               key="dash_policy", format_func=score_controls.POLICIES.get,
                               help=HELP["policy"]),
        "missing": "skip" if st.toggle(
            "Skip queries the run returned nothing for", key="dash_skip_missing",
            help=HELP["missing"]) else "zero",
    }
    if settings["relevance"] != default:
        row[2].button(f"Make grade {settings['relevance']} the default",
                      key="dash_relevance_default", on_click=set_default_threshold,
                      disabled=not _auth.can(db, "set_relevance"),
                      help=_auth.refusal_help(db, "set_relevance"))
    settings.update(read_label_source(db))
    return extra, custom, settings


def read_label_source(db: sqlite_utils.Database) -> dict[str, str]:
    """The label source (people only by default) and, for a machine source, the judge."""
    judges = machine_judge.judges(db)
    row = st.columns([2, 2, 1])
    source = row[0].selectbox(
        "Labels", list(score_controls.LABEL_SOURCES), key="dash_label_source",
        format_func=score_controls.LABEL_SOURCES.get, help=HELP["labels"])
    if source == "people" or not judges:
        return {"label_source": source}
    judge = row[1].selectbox("Machine judge", judges, key="dash_judge", help=HELP["judge"])
    return {"label_source": source, "judge": judge}


# --- tabs -------------------------------------------------------------------------------------


def scorecard_tab(view: View) -> None:
    controls = view.controls
    note = scoring.values_note(view.db, controls.run)
    if note:
        st.caption(escape_inline(note))  # names a file: user text
    card = scoring.with_error_bars(scoring.segment_scorecard(
        view.db, controls, view.segment, queries=view.queries))
    segments = list(dict.fromkeys(card["segment"]))  # overall first, then by name
    order = {"segment": [escape_chart_text(v) for v in segments]}  # the same in every chart
    table = card.drop(columns=["err_plus", "err_minus"])
    st.dataframe(table, hide_index=True, key="dash_card",
                 column_config=number_columns(("mean", "ci_low", "ci_high"), "%.3f"))
    csv_button(table, f"scorecard-{controls.run}", "dash_card_csv")
    count = scoring.query_count(view.db, controls)
    st.caption(
        f"Mean per query, {CONFIDENCE:.0%} percentile bootstrap interval "
        f"({BOOTSTRAP_RESAMPLES} resamples, seed {SEED}), n = the queries in the mean: "
        f"{count.summary()}. {label_sources.interval_note(controls.label_source)}"
    )
    if count.returned_nothing:
        st.warning(escape_inline(f"{controls.run}: {count.sentence()}"))
    st.caption(escape_inline(score_controls.threshold_sentence(controls.relevance, view.scale)))
    label_depth_notes(view)
    left, right = st.columns(2)
    left.plotly_chart(bar_chart(card, f"Mean by segment, with {CONFIDENCE:.0%} intervals",
                                x="segment", y="mean", color="measure", error_y="err_plus",
                                error_y_minus="err_minus", category_orders=order),
                      key="dash_bars")
    matrix = scoring.scorecard_matrix(card).reindex(segments)
    heat = figure(
        "imshow", matrix.rename(index=escape_chart_text, columns=escape_chart_text),
        text_auto=".2f", zmin=0, zmax=1, aspect="auto", color_continuous_scale="RdYlGn",
        title="Segment × measure",
    )
    right.plotly_chart(heat, key="dash_heat")
    left, right = st.columns(2)
    values = scoring.per_query(view.db, controls)
    long = segmenting.segment_values(values, view.queries, view.segment)
    left.plotly_chart(figure("box", escape_chart_frame(long), x="segment", y="value",
                             color="measure", points="all", title="Per-query distribution",
                             hover_data=["query_id"], category_orders=order),
                      key="dash_box")
    ages = run_freshness.run_ages(view.db, controls.rule)
    # One choice per picked run: the curve starts at the picked run alone, never keeps another.
    curve_runs = right.multiselect("Runs on the curve", view.runs, default=[controls.run],
                                   key=f"dash_curve_runs:{controls.run}",
                                   format_func=lambda r: ages[r].label())
    curve = scoring.curves(view.db, controls.headline(), curve_runs)
    line_chart(right, curve, "dash_curve", "Measure as k grows", x="k", y="mean", color="run",
               line_dash="measure")
    csv_button(curve, "curves", "dash_curve_csv")


def label_depth_notes(view: View) -> None:
    """Beside recall-type measures: where the relevant labels come from (pool depths) and a
    warning for each one whose k reaches the depth of most labels."""
    measures = view.controls.measures
    if not any(parse_measure(m).kind in label_depth.RECALL_KINDS for m in measures):
        return
    depth = label_depth.label_depth(view.db, view.controls)
    with st.container(key="dash_label_depth"):
        st.caption(escape_inline(depth.sentence()))
    for warning in filter(None, (depth.warning(m) for m in measures)):
        st.warning(escape_inline(warning))


def run_notices(view: View) -> None:
    """Above the tabs: the chosen run flagged when it is older than the query set, and the
    outcome of a change to the default threshold."""
    age = run_freshness.run_age(view.db, view.controls.run, view.controls.rule)
    if age.stale:
        st.warning(escape_inline(age.sentence(scoring.query_count(view.db, view.controls))))
    unstated = chunk_set_labels.unstated_chunk_set(view.db, view.controls.run)
    if unstated:
        st.warning(escape_inline(unstated))
    _common.show_flash(WHERE)


COVERAGE_PARTS = {"judged": "judged", "unjudged": "unjudged chunk", "short": "empty: list < k"}
COVERAGE_COLOURS = {"judged": "#1f6fb2", "unjudged chunk": "#f0b429", "empty: list < k": "#c5ccd3"}


def coverage_tab(view: View) -> None:
    row = st.columns(3)
    ages = run_freshness.run_ages(view.db, view.controls.rule)
    runs = row[0].multiselect("Runs", view.runs, default=view.runs, key="dash_cov_runs",
                              format_func=lambda r: ages[r].label())
    k = row[1].number_input("Judged@k", 1, 1000, view.controls.k, 1, key="dash_cov_k")
    threshold = row[2].slider("Warn below", 0.0, 1.0, judged_coverage.COVERAGE_WARNING, 0.05,
                              key="dash_cov_threshold")
    controls = replace(view.controls, k=int(k))
    cov = judged_coverage.coverage(view.db, controls, runs, view.queries, view.segment,
                                   threshold=threshold)
    for _, low in cov.loc[cov["below"]].iterrows():
        st.warning(escape_inline(
            f"Coverage of {low['run']} in {low['segment']} is below {threshold:.0%}: "
            + judged_coverage.coverage_sentence(low, controls.k)
            + " Scores there count unjudged chunks as not relevant (or skip them)."
        ))
    share = st.column_config.ProgressColumn
    st.dataframe(cov, hide_index=True, key="dash_cov_table", column_config={
        "judged": share("Judged@k", min_value=0.0, max_value=1.0, format="percent"),
        "unjudged": share("unjudged chunks", min_value=0.0, max_value=1.0, format="percent"),
        "short": share("empty (list < k)", min_value=0.0, max_value=1.0, format="percent"),
    })
    csv_button(cov, "coverage", "dash_cov_csv")
    long = cov.melt(id_vars=["run", "segment"], value_vars=list(COVERAGE_PARTS),
                    var_name="slot", value_name="share")
    long["slot"] = long["slot"].map(COVERAGE_PARTS)
    chart = px.bar(escape_chart_frame(long), x="segment", y="share", color="slot",
                   facet_col="run", barmode="stack", range_y=FULL_RANGE,
                   title=f"Top-{controls.k} slots: judged, unjudged, empty",
                   color_discrete_map=COVERAGE_COLOURS, category_orders={
                       "slot": list(COVERAGE_PARTS.values()), "segment": [
                           escape_chart_text(v) for v in dict.fromkeys(cov["segment"])]})
    chart.add_hline(y=threshold, line_dash="dot", annotation_text="warn below")
    st.plotly_chart(chart, key="dash_cov_chart")
    pairs = judged_coverage.unjudged_pairs(view.db, controls, runs)
    st.caption(f"{len(pairs)} unjudged (query, chunk) pairs in the top {controls.k} of these "
               "runs: only these go to the labeling queue (recorded as a pool of depth "
               f"{controls.k}). Empty slots come from result lists shorter than {controls.k}; "
               "no label can fill them.")
    st.button("Send unjudged pairs to the labeling queue", key="dash_enqueue",
              on_click=send_to_queue, args=(pairs, controls.k, list(runs)),
              disabled=not pairs or not _auth.can(view.db, "enqueue"),
              help=_auth.refusal_help(view.db, "enqueue"))
    _common.show_flash(WHERE_COVERAGE)


def compare_tab(view: View) -> None:
    row = st.columns([1, 2, 1])
    ages = run_freshness.run_ages(view.db, view.controls.rule)
    baseline = row[0].selectbox("Baseline", view.runs, key="dash_baseline",
                                format_func=lambda r: ages[r].label())
    others = [r for r in view.runs if r != baseline]
    candidates = row[1].multiselect("Candidates", others, default=others[:1],
                                    key="dash_candidates", format_func=lambda r: ages[r].label())
    target = row[2].number_input("Difference to detect", 0.005, 1.0, 0.05, 0.005,
                                 key="dash_target", format="%.3f")
    if not candidates:
        st.info("Choose at least one candidate run.")
        return
    controls = view.controls.for_run(baseline)
    table = run_comparison.compare_runs(view.db, controls, candidates)
    # Wide: every column keeps its full name and the table scrolls sideways.
    st.dataframe(table, hide_index=True, key="dash_compare_table", width="content",
                 column_config={**number_columns(COMPARE_NUMBERS, "%.4f"),
                                "candidate": st.column_config.TextColumn(width="medium")})
    csv_button(table, f"compare-{baseline}", "dash_compare_csv")
    st.caption(f"Paired randomization test ({TEST_RESAMPLES} resamples, seed {SEED}) and "
               f"t-test on the queries both runs score; p adjusted with Holm across the "
               f"candidates; significant below {ALPHA}.")
    for _, line in table.iterrows():
        needed = run_comparison.sensitivity(line["sd_difference"], int(line["n"]), float(target))
        verdict = "significant" if line["significant"] else "not significant"
        text = (
            f"{line['candidate']} vs {baseline} on {line['measure']}: "
            f"{line['difference']:+.3f} ({verdict}, p = {line['p_holm']:.3g} after Holm). "
            f"This query set detects differences of {line['detectable']:.3f} or more "
            f"({POWER:.0%} power, {ALPHA:.0%} level); {target:.3f} would need "
            f"{needed['queries_needed']:.0f} queries."
        )
        (st.success if line["significant"] else st.info)(escape_inline(text))
    paired_scatter(view, controls, candidates)
    budget_and_decision(view, controls, candidates, float(target))


def paired_scatter(view: View, controls: Controls, candidates: list[str]) -> None:
    """Per-query values of one candidate against the baseline (``controls.run``)."""
    measure = st.selectbox("Scatter measure", controls.measures, key="dash_scatter_measure")
    candidate = st.selectbox("Scatter candidate", candidates, key="dash_scatter_run")
    pairs = run_comparison.paired_scores(view.db, controls, candidate, measure).reset_index()
    scatter = px.scatter(escape_chart_frame(pairs), x="baseline", y="candidate",
                         hover_data=["query_id"], range_x=[-0.05, 1.05], range_y=[-0.05, 1.05],
                         title=escape_chart_text(f"Per-query {measure}"))
    scatter.add_shape(type="line", x0=0, y0=0, x1=1, y1=1, line={"dash": "dot"})
    st.plotly_chart(scatter, key="dash_scatter")
    csv_button(pairs, "paired-scores", "dash_pairs_csv")


WHERE_DECIDE = "dashboard_decide"


def send_deciding(controls: Controls, candidate: str, measure: str) -> None:
    batch = int(st.session_state.get("dash_decide_batch") or deciding_pairs.DEFAULT_BATCH)
    _run_write(
        WHERE_DECIDE,
        lambda: deciding_pairs.send_deciding_pairs(_common.get_db(), controls, candidate,
                                                   measure, limit=batch),
        "Sent the most decisive pairs to the labeling queue ({result} new).",
    )


def budget_and_decision(view: View, controls: Controls, candidates: list[str],
                        target: float) -> None:
    """The judging budget for detecting ``target`` and the pairs that decide the comparison
    of ``controls.run`` with one candidate."""
    st.subheader("How many labels are enough")
    row = st.columns(4)
    measure = row[0].selectbox("Plan on", controls.measures, key="dash_plan_measure")
    candidate = row[1].selectbox("Against", candidates, key="dash_plan_candidate")
    power = row[2].number_input("Power", 0.5, 0.99, POWER, 0.05, key="dash_plan_power")
    depth = row[3].number_input("Pool depth", 1, 1000, controls.k, 1, key="dash_plan_depth",
                                help="Judge the top this many chunks of both runs per query.")
    plan = judging_budget.plan(view.db, controls, measure, target, candidate=candidate,
                               power=float(power), alpha=ALPHA, pool_depth=int(depth),
                               segment=view.segment)
    show_plan(plan)
    deciding_section(view, controls, candidate, measure)


def show_plan(plan: judging_budget.JudgingPlan) -> None:
    row = st.columns(4)
    row[0].metric("Queries needed", f"{plan.queries_needed:,}",
                  help=f"You have {plan.queries_have:,} evaluated queries.")
    row[1].metric("Judgments", f"{plan.judgments_needed:,}",
                  help=f"{plan.to_judge:,} of them are not judged yet.")
    row[2].metric("Hours", f"{plan.hours:,.1f}", help=plan.pace.source)
    row[3].metric("Machine judge calls", f"{plan.machine_calls:,}",
                  help=f"About {plan.machine_tokens:,} tokens.")
    for sentence in plan.sentences():
        st.caption(escape_inline(sentence))
    st.dataframe(plan.tradeoff, hide_index=True, key="dash_plan_tradeoff",
                 column_config={"judged": st.column_config.NumberColumn(format="percent"),
                                "empty": st.column_config.NumberColumn(format="percent"),
                                **number_columns(("sd", "pool_per_query", "hours"), "%.2f")})
    st.caption("The same question at each pool depth: the measure cut there, its spread on "
               "your labels (judged: the share of the baseline's filled top-depth slots "
               "with a label; empty: the share of slots it left empty, never unjudged), "
               "the queries it needs "
               "and the judgments at that depth. Many queries judged shallowly usually beat "
               "few judged deeply (Webber, Moffat & Zobel 2008).")
    curve = px.line(plan.curve, x="queries", y="detectable", log_x=True,
                    title=escape_chart_text(f"Detectable difference on {plan.measure}"))
    curve.add_scatter(x=[plan.queries_have], y=[plan.detectable_now], mode="markers",
                      name="you are here", marker={"size": 12})
    curve.add_scatter(x=[plan.queries_needed], y=[plan.difference], mode="markers",
                      name="planned", marker={"size": 12, "symbol": "diamond"})
    st.plotly_chart(curve, key="dash_plan_curve")
    if not plan.segments.empty:
        st.dataframe(plan.segments, hide_index=True, key="dash_plan_segments",
                     column_config=number_columns(("sd",), "%.3f"))
        st.caption("Per segment, each at level alpha divided by the number of segments, so a "
                   "small segment can be protected with Holm's correction across segments.")


def deciding_section(view: View, controls: Controls, candidate: str, measure: str) -> None:
    st.subheader("Which pairs decide the comparison")
    state, pairs = deciding_pairs.comparison(view.db, controls, candidate, measure)
    st.dataframe(pd.DataFrame([state.row()]), hide_index=True, key="dash_decide_now")
    st.caption(escape_inline(
        f"{state.measure}, {candidate} minus {controls.run} on {state.n} queries (chunk unit): "
        f"{state.difference:+.3f}, {CONFIDENCE:.0%} paired interval {state.ci_low:+.3f} to "
        f"{state.ci_high:+.3f}. The {state.in_play} unjudged pairs in either top list could "
        f"move it from {state.label_low:+.3f} to {state.label_high:+.3f}; allowing for both, "
        f"the interval is {state.low:+.3f} to {state.high:+.3f}: {state.verdict}."))
    st.dataframe(pairs.head(50), hide_index=True, key="dash_decide_pairs",
                 column_config=number_columns(("leverage",), "%.4f"))
    st.caption("Leverage: how far the mean difference moves if the pair is judged at the top "
               "grade rather than not relevant; pairs the runs rank differently near the top "
               "come first. The queue serves queued pairs in its own shuffled order.")
    row = st.columns([1, 3])
    row[0].number_input("Pairs to send", 1, 1000, deciding_pairs.DEFAULT_BATCH, 1,
                        key="dash_decide_batch")
    row[1].button("Send the most decisive pairs to the labeling queue", key="dash_decide_send",
                  on_click=send_deciding, args=(controls, candidate, measure),
                  disabled=deciding_pairs.decisive(pairs).empty
                  or not _auth.can(view.db, "enqueue"),
                  help=_auth.refusal_help(view.db, "enqueue"))
    _common.show_flash(WHERE_DECIDE)
    history = deciding_pairs.history(view.db, controls, candidate, measure)
    chart = px.line(history, x="judgments", y=["low", "high", "difference"], markers=True,
                    title="How the interval narrowed as labels came in")
    st.plotly_chart(chart, key="dash_decide_history")
    csv_button(history, f"deciding-{controls.run}-{candidate}", "dash_decide_history_csv")


def worst_queries_tab(view: View) -> None:
    controls = view.controls
    values = scoring.per_query(view.db, controls)
    row = st.columns(3)
    measure = row[0].selectbox("Sort by", controls.measures, key="dash_worst_measure")
    order = row[1].radio("Order", WORST_ORDERS, key="dash_worst_order", horizontal=True)
    chosen = row[2].selectbox(
        "Segment value",
        [EVERY_SEGMENT, *segmenting.segment_names(values, view.queries, view.segment)],
        key="dash_worst_segment")
    baseline = None
    if order != WORST_ORDERS[0]:
        base_run = st.selectbox("Baseline run", view.runs, key="dash_worst_baseline")
        baseline = scoring.per_query(view.db, controls.for_run(base_run))
    value = None if chosen == EVERY_SEGMENT else chosen
    unanswered = scoring.unanswered_queries(view.db, controls)
    worst = drilldown.worst_queries(
        values, view.queries, measure, baseline=baseline, segment=view.segment,
        segment_value=value, exclude=unanswered)
    st.subheader("Retrieved badly")
    st.caption(escape_inline(
        f"Queries the run returned something for and scored below 1 on {measure}: a query at "
        "1 lost nothing on it and is not listed."))
    st.dataframe(worst, hide_index=True, key="dash_worst_table")
    csv_button(worst, f"worst-{controls.run}", "dash_worst_csv")
    nothing = drilldown.not_retrieved(view.queries, unanswered, segment=view.segment,
                                      segment_value=value)
    st.subheader(f"Not retrieved at all ({len(nothing)})")
    if nothing.empty:
        st.caption("The run returned results for every evaluated query here.")
    else:
        st.caption("Labeled queries the run returned nothing for: "
                   + ("left out of the means." if controls.skip_missing
                      else "each scores 0 in the means."))
        st.dataframe(nothing, hide_index=True, key="dash_not_retrieved_table")
        csv_button(nothing, f"not-retrieved-{controls.run}", "dash_not_retrieved_csv")
    perfect = drilldown.lost_nothing(values, view.queries, measure, segment=view.segment,
                                     segment_value=value, exclude=unanswered)
    if perfect:
        st.caption(escape_inline(f"{len(perfect)} more queries lost nothing on {measure}: not "
                                 "listed above, they can still be opened below."))
    choices = [*worst["query_id"], *nothing["query_id"], *perfect]
    if not choices:
        st.info("No evaluated queries here.")
        return
    query_id = st.selectbox("Open query", choices, key="dash_drill_query")
    text = view.queries["text"].get(query_id)
    st.text(f"Query {query_id}: {contents.shown_text(text, query_id)}")
    if query_id in values.index:
        scores = ", ".join(f"{m} = {values.loc[query_id, m]:.3f}" for m in controls.measures)
        st.caption(f"{escape_inline(controls.run)}: {escape_inline(scores)}")
    ranked = drill_down_lists(view, query_id, measure)
    judge_form(view, query_id, ranked)
    tag_form(view, query_id)
    _common.show_flash(WHERE_DRILL)


def drill_down_lists(view: View, query_id: str, measure: str | None = None) -> pd.DataFrame:
    """The query's ranked list and the relevant items missed in the top k of ``measure``
    (its cutoff and ``rel=``, else the controls'; as the report lists them), in the controls'
    unit; returns the chunks."""
    sight = _common.sight(view.db, query_id)  # blind: grades not yet seen are hidden
    if view.controls.machine_assisted:  # a machine's grade of a pair waiting to be audited
        sight = sight.hiding_waiting()
    scoped, k = drilldown.miss_scope(view.controls, measure)
    ranked, missed = drilldown.drill_down(view.db, scoped, query_id, k=k, sight=sight)
    if ranked.empty:
        st.info("The run returned nothing for this query.")
    show_evidence(view.db, query_id, ranked, missed)
    if view.controls.unit == "chunk":
        show_drill_down(ranked, missed, "chunk", query_id, view.scale, k)
        return ranked
    docs, missed_docs = drilldown.drill_down_documents(
        view.db, scoped, query_id, k=k, chunk_lists=(ranked, missed), sight=sight)
    st.caption("Unit: document. A document is ranked where its best chunk is and graded with "
               "the highest label among its chunks, as the scores count it.")
    show_drill_down(docs, missed_docs, "document", query_id, view.scale, k)
    if not ranked.empty:
        with st.expander(f"The {len(ranked)} chunks behind these documents"):
            show_ranked(ranked, "dash_ranked", view.scale)
            csv_button(ranked, f"ranked-{query_id}", "dash_ranked_csv")
    return ranked


def show_evidence(db: sqlite_utils.Database, query_id: str, ranked: pd.DataFrame,
                  missed: pd.DataFrame) -> None:
    """The relevant chunks (retrieved or missed) whose labels say where the answer is: their
    text with the evidence marked (user text drawn through the safe subset)."""
    relevant = [*ranked.loc[ranked["relevant"].astype(bool), "chunk_id"], *missed["chunk_id"]]
    cards = evidence_marks.evidence_cards(db, query_id, relevant)
    if not cards:
        return
    with st.expander(f"Where the answer is: {len(cards)} relevant chunks with evidence",
                     expanded=True):
        for number, (chunk, spans) in enumerate(cards):
            with st.container(border=True, key=f"dash_evidence_{number}"):
                st.caption(escape_markdown(f"Chunk · {chunk.chunk_id}"))
                st.markdown(chunk_markup.render(chunk.text, chunk.marks(spans)))


def judge_form(view: View, query_id: str, ranked: pd.DataFrame) -> None:
    """Judge an unjudged chunk of the ranked list (picked by rank, title and snippet; no grade
    chosen until the person chooses one), or any chunk of the corpus found by search."""
    choices = drilldown.judge_choices(view.db, ranked)
    nonce = st.session_state.get(JUDGE_NONCE, 0)
    # A picker of its own per query: another query's chunk never stays picked.
    picker = judge_key(f"dash_judge_chunk:{query_id}", nonce)
    with st.expander(f"Judge an unjudged chunk ({len(choices)})", expanded=bool(choices)):
        row = st.columns([3, 2, 2, 1])
        row[0].selectbox("Chunk", list(choices), key=picker,
                         format_func=choices.get)
        grade_names = {g: escape_inline(f"{g} {n}") for g, n, _ in view.scale}
        row[1].radio("Grade", list(grade_names), key=judge_key("dash_judge_grade", nonce),
                     format_func=grade_names.get, horizontal=True, index=None)
        row[2].text_input("Note", key=judge_key("dash_judge_note", nonce))
        row[3].button("Save label", key="dash_judge_save", on_click=judge_chunk, args=(query_id,),
                      disabled=not choices or not _auth.can(view.db, "judge"),
                      help=_auth.refusal_help(view.db, "judge"))
    finder = st.expander("Find in the corpus: judge chunks the run did not retrieve",
                         key="dash_find_open", on_change="rerun")
    if not finder.open:  # searched only while open
        return
    with finder:
        ranks = dict(zip(ranked["chunk_id"].astype(str), ranked["rank"].astype(int),
                         strict=True))
        _search.search_panel(view.db, query_id, str(view.queries["text"].get(query_id, "")),
                             view.scale, prefix="dash_find", where="dash_find",
                             run_ranks=ranks, run_name=view.controls.run)


def tag_form(view: View, query_id: str) -> None:
    with st.expander("Why did it fail?", expanded=False):
        st.multiselect("Tags", failure_tags.failure_tag_names(view.db), key="dash_tags")
        st.text_input("Note", key="dash_tag_note")
        st.button("Record tags", key="dash_tag_save", on_click=tag_query,
                  args=(query_id, view.controls.run),
                  disabled=not _auth.can(view.db, "tag_failure"),
                  help=_auth.refusal_help(view.db, "tag_failure"))
        row = st.columns([3, 1])
        row[0].text_input("New tag", key="dash_new_tag", placeholder="e.g. date format")
        row[1].button("Add tag", key="dash_add_tag", on_click=add_tag,
                      disabled=not _auth.can(view.db, "add_tag"),
                      help=_auth.refusal_help(view.db, "add_tag"))
        reviews = failure_tags.failure_reviews(view.db, query_id)
        if not reviews.empty:
            _common.dataframe(reviews, "dash_query_reviews", hide_index=True)


def failure_tags_tab(view: View) -> None:
    counts = failure_tags.tag_counts(view.db, view.queries, view.segment)
    if counts.empty:
        st.info("No failure tags yet: open a query under Worst queries and tag why it failed.")
        return
    st.plotly_chart(px.bar(escape_chart_frame(counts), x="tag", y="queries", color="segment",
                           facet_col="run", title="Tagged queries per tag, segment and run"),
                    key="dash_tag_chart")
    st.dataframe(counts, hide_index=True, key="dash_tag_table")
    csv_button(counts, "failure-tags", "dash_tag_csv")


def history_tab(view: View) -> None:
    headline = view.controls.headline()
    version = st.selectbox("Query set", score_history.query_set_versions(view.db),
                           key="dash_history_set")
    frame, warnings = score_history.history(view.db, headline, version)
    for warning in warnings:
        st.warning(escape_inline(warning))
    if not frame.empty:
        # One point per run, in creation order, labelled with the run and when it was stored.
        axis = frame.assign(run=frame["run"] + " (" + frame["created"] + ")")
        line_chart(st, axis, "dash_history_chart", "Headline measures by run, in creation order",
                   x="run", y="now", color="measure")
    st.dataframe(frame, hide_index=True, key="dash_history_table", placeholder="not saved")
    csv_button(frame, "history", "dash_history_csv")
    st.caption(f"Now and saved under the same controls: consensus rule {headline.rule}, unit "
               f"{headline.unit}, split {headline.split}, policy {headline.policy}, queries "
               f"without results {'skipped' if headline.skip_missing else 'scored 0'}.")
    st.button(f"Save {escape_inline(headline.run)}'s scores to the history",
              key="dash_save_history", on_click=save_history, args=(headline,),
              disabled=not _auth.can(view.db, "save_scores"),
              help=_auth.refusal_help(view.db, "save_scores"))
    test_split_lock(view)
    _common.show_flash(WHERE_HISTORY)


def test_split_lock(view: View) -> None:
    st.subheader("Frozen test split")
    if view.lock:
        lock = view.lock
        current = locked_splits.split_hash(view.db, rule=lock["rule"])
        when = score_history.readable_time(lock["locked_at"])
        st.text(f"Locked by {lock['locked_by']} at {when} under consensus rule "
                f"{lock['rule']}; label snapshot {lock['snapshot_hash']} (now {current}). "
                "Test labels cannot change.")
        st.button("Unlock the test split", key="dash_unlock", on_click=unlock_test,
                  disabled=not _auth.can(view.db, "unlock"),
                  help=_auth.refusal_help(view.db, "unlock"))
        return
    st.caption("Lock the test split so its labels cannot change while you compare runs; its "
               f"hash is taken under the consensus rule chosen above ({view.controls.rule}).")
    st.button("Lock the test split", key="dash_lock", on_click=lock_test,
              args=(view.controls.rule,), disabled=not _auth.can(view.db, "lock"),
              help=_auth.refusal_help(view.db, "lock"))


TABS: dict[str, Callable[[View], None]] = {
    "Scorecard": scorecard_tab,
    "Coverage": coverage_tab,
    "Compare": compare_tab,
    "Worst queries": worst_queries_tab,
    "Failure tags": failure_tags_tab,
    "History": history_tab,
}


def _judge_escaped(text: str, controls: Controls) -> str:
    """``text`` (the controls in words; the judge's name is its only text from outside) with
    the judge's name escaped for Markdown."""
    return text.replace(controls.judge, escape_inline(controls.judge)) if controls.judge else text


def main() -> None:
    db = _common.page_setup()
    st.title("Dashboard")
    runs = contents.run_names(db)
    if not runs:
        st.info("No runs yet: import one on the Data page or with `scorecard import`.")
        st.stop()
    scale = grading.get_scale(db)
    controls, segment = read_controls(db, runs, scale)
    labels = label_sets.labels_for(db, controls)
    if labels.qrels.empty:
        st.info("No labels yet: the scorecard evaluates queries with at least one label.")
        st.stop()
    lock = locked_splits.split_lock(db)
    locked = (f" · test split locked at {lock['snapshot_hash']} (rule {lock['rule']})"
              if lock else "")
    line = st.columns([3, 1], vertical_alignment="center")
    line[0].caption(_judge_escaped(
        f"{controls.one_line()} · Label snapshot {labels.snapshot}{locked}", controls),
        help=_judge_escaped(controls.describe(), controls))
    line[1].page_link(GUIDE_PAGE, label="What these mean", icon=":material/menu_book:")
    # Counted over the labels the run is scored on, as the Scorecard's label-depth sentence.
    inferred = inferred_labels.inferred_for_run(db, controls).sentence()
    if inferred:
        with st.container(key="dash_inferred_labels"):
            st.caption(escape_inline(inferred))  # names a chunk set: user text
    view = View(db, runs, segmenting.query_table(db), scale, controls, segment, lock)
    run_notices(view)
    tabs = st.tabs(list(TABS), key="dash_tab", on_change="rerun")
    for tab, draw in zip(tabs, TABS.values(), strict=True):
        with tab:
            if tab.open:  # lazy: only the open tab computes and draws
                try:
                    draw(view)
                except ScorecardError as error:
                    st.error(escape_markdown(str(error)))


main()
