"""Dashboard: scorecard by segment, coverage, run comparison, worst queries, reviews, history.

The widgets at the top are read into one ``labeling.evaluation.score_controls.Controls``; every
tab draws what ``labeling.evaluation`` computes under it, so all tabs use the same run, measures,
unit, policy, split, consensus rule and relevance threshold. One function per tab; only the open
tab runs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, replace

import pandas as pd
import plotly.express as px
import sqlite_utils
import streamlit as st

from labeling.errors import ScorecardError
from labeling.evaluation import (
    drilldown,
    failure_tags,
    judged_coverage,
    label_sets,
    locked_splits,
    run_comparison,
    score_controls,
    score_history,
    scoring,
    segmenting,
)
from labeling.evaluation.score_controls import (
    ALPHA,
    BOOTSTRAP_RESAMPLES,
    CONFIDENCE,
    POWER,
    SEED,
    TEST_RESAMPLES,
    Controls,
)
from labeling.files import exporters as exports
from labeling.files import uploads
from labeling.markdown import escape_chart_frame, escape_chart_text, escape_inline, escape_markdown
from labeling.workspace import contents, grading
from pages import _auth, _common

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


def line_chart(place, frame: pd.DataFrame, key: str, title: str, **encoding: str) -> None:
    """A line chart with markers of ``frame`` (user text escaped) in ``place``."""
    figure = px.line(escape_chart_frame(frame), markers=True, title=title, **encoding)
    place.plotly_chart(figure, key=key)


def bar_chart(frame: pd.DataFrame, title: str, **encoding: object):
    """Grouped bars of values in [0, 1] (user text escaped)."""
    return px.bar(escape_chart_frame(frame), barmode="group", range_y=FULL_RANGE, title=title,
                  **encoding)


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
                f"{item.chunk_id} · {grade} · document {item.doc_id}"
                if unit == "chunk"
                else f"{item.doc_id} · {grade} · best chunk {item.chunk_id}"
            )
            st.text(f"Missed: {where}")
            st.text(item.snippet)


def show_drill_down(
    ranked: pd.DataFrame, missed: pd.DataFrame, unit: str, query_id: str, scale: list[tuple]
) -> None:
    """A query's ranked chunks or documents and the relevant ones the run missed, with CSVs."""
    table_key, missed_key, prefix = DRILL_KEYS[unit]
    if not ranked.empty:
        show_ranked(ranked, table_key, scale)
    if (ranked["grade_name"] == drilldown.HIDDEN).any():
        st.caption(f"Blind judging: a {unit} marked {drilldown.HIDDEN} has grades you have not "
                   "judged yourself; they appear once you have.")
    csv_button(ranked, f"ranked-{prefix}{query_id}", f"{table_key}_csv")
    st.subheader(f"Relevant {unit}s the run missed")
    if missed.empty:
        st.caption(f"None: the run retrieved every {unit} labeled relevant.")
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


def judge_chunk(query_id: str) -> None:
    state = st.session_state
    chunk, grade = state.get("dash_judge_chunk"), state.get("dash_judge_grade")
    if chunk is None or grade is None:
        _common.flash("warning", "Choose a chunk and a grade first.", WHERE_DRILL)
        return
    _run_write(
        WHERE_DRILL,
        lambda: drilldown.judge(_common.get_db(), query_id, chunk, int(grade),
                                _common.annotator(), note=state.get("dash_judge_note") or None),
        f"Judged {chunk}: the numbers use the new label.",
    )


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


def send_to_queue(pairs: list[tuple[str, str]]) -> None:
    _run_write(
        WHERE_COVERAGE,
        lambda: judged_coverage.send_unjudged_to_queue(_common.get_db(), pairs),
        "Sent {result} new pair(s) to the labeling queue.",
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

GUIDE_DEFAULTS_KEY = "dashboard_default_measures"  # set by the Metric guide page


def read_controls(
    db: sqlite_utils.Database, runs: list[str], scale: list[tuple]
) -> tuple[Controls, str]:
    """The widgets at the top, read into one ``Controls``, and the segment attribute."""
    with st.container(border=True):
        row = st.columns([2, 1, 2, 1, 1])
        run = row[0].selectbox("Run", runs, key="dash_run")
        k = row[1].number_input("k", 1, 1000, score_controls.DEFAULT_K, 1, key="dash_k",
                                help="The cutoff your pipeline passes to its model.")
        extra = row[2].multiselect("More measures", MORE_MEASURES, key="dash_extra",
                                   help="@k takes the k on the left.")
        custom = row[3].text_input("Any measure", key="dash_custom", placeholder="e.g. nDCG@5")
        segment = row[4].selectbox("Segment", segmenting.segment_options(db), index=0,
                                   key="dash_segment")
        row = st.columns([1, 1, 1, 1, 2])
        settings = {
            "run": run, "k": int(k),
            "split": row[0].selectbox("Split", score_controls.SPLITS, key="dash_split"),
            "unit": row[1].radio(
                "Unit", score_controls.UNITS, key="dash_unit", horizontal=True,
                help="document: a document takes its best chunk's rank and its highest chunk "
                "grade, so runs with different chunking stay comparable."),
            "rule": row[2].selectbox(
                "Consensus rule", list(score_controls.CONSENSUS_RULES), key="dash_rule",
                help="How several annotators' grades become one. "
                + " ".join(f"{name}: {text}." for name, text in
                           score_controls.CONSENSUS_RULES.items())
                + " Compare strict and lenient to see how much disagreement moves the scores."),
            "relevance": row[3].selectbox(
                "Relevant from grade",
                score_controls.relevance_choices(g for g, _, _ in scale), key="dash_relevance",
                help="The lowest grade binary measures (P, R, Success, RR, AP) count as "
                "relevant, as trec_eval's -l; nDCG uses the grades themselves. Grades: "
                + escape_inline(", ".join(f"{g} {n}" for g, n, _ in scale)) + "."),
            "policy": row[4].radio("Unjudged retrieved chunks", list(score_controls.POLICIES),
                                   key="dash_policy", format_func=score_controls.POLICIES.get),
        }
    # The Metric guide's chooser may have set the lead measures for this session.
    lead = st.session_state.get(GUIDE_DEFAULTS_KEY) or score_controls.DEFAULT_MEASURES
    measures = tuple(dict.fromkeys((*lead, *extra)))
    try:
        return Controls(measures=(*measures, custom) if custom.strip() else measures,
                        **settings), segment
    except ScorecardError as error:  # a bad custom measure name: say so, keep the others
        st.error(escape_inline(f"{type(error).__name__}: {error}"))
        return Controls(measures=measures, **settings), segment


# --- tabs -------------------------------------------------------------------------------------


def scorecard_tab(view: View) -> None:
    note = scoring.values_note(view.db, view.controls.run)
    if note:
        st.caption(escape_markdown(note))  # names a file: user text
    card = scoring.with_error_bars(scoring.segment_scorecard(
        view.db, view.controls, view.segment, queries=view.queries))
    table = card.drop(columns=["err_plus", "err_minus"])
    st.dataframe(table, hide_index=True, key="dash_card",
                 column_config=number_columns(("mean", "ci_low", "ci_high"), "%.3f"))
    csv_button(table, f"scorecard-{view.controls.run}", "dash_card_csv")
    st.caption(
        f"Mean per query, {CONFIDENCE:.0%} percentile bootstrap interval "
        f"({BOOTSTRAP_RESAMPLES} resamples, seed {SEED}), "
        "n = evaluated queries (those with at least one label)."
    )
    left, right = st.columns(2)
    left.plotly_chart(bar_chart(card, f"Mean by segment, with {CONFIDENCE:.0%} intervals",
                                x="segment", y="mean", color="measure", error_y="err_plus",
                                error_y_minus="err_minus"), key="dash_bars")
    heat = px.imshow(
        scoring.scorecard_matrix(card).rename(index=escape_chart_text, columns=escape_chart_text),
        text_auto=".2f", zmin=0, zmax=1, aspect="auto", color_continuous_scale="RdYlGn",
        title="Segment × measure",
    )
    right.plotly_chart(heat, key="dash_heat")
    left, right = st.columns(2)
    values = scoring.per_query(view.db, view.controls)
    long = segmenting.segment_values(values, view.queries, view.segment)
    left.plotly_chart(px.box(escape_chart_frame(long), x="segment", y="value", color="measure",
                             points="all", title="Per-query distribution",
                             hover_data=["query_id"]), key="dash_box")
    curve_runs = right.multiselect("Runs on the curve", view.runs, default=[view.controls.run],
                                   key="dash_curve_runs")
    curve = scoring.curves(view.db, view.controls.headline(), curve_runs)
    line_chart(right, curve, "dash_curve", "Measure as k grows", x="k", y="mean", color="run",
               line_dash="measure")
    csv_button(curve, "curves", "dash_curve_csv")


def coverage_tab(view: View) -> None:
    row = st.columns(3)
    runs = row[0].multiselect("Runs", view.runs, default=view.runs, key="dash_cov_runs")
    k = row[1].number_input("Judged@k", 1, 1000, view.controls.k, 1, key="dash_cov_k")
    threshold = row[2].slider("Warn below", 0.0, 1.0, judged_coverage.COVERAGE_WARNING, 0.05,
                              key="dash_cov_threshold")
    controls = replace(view.controls, k=int(k))
    cov = judged_coverage.coverage(view.db, controls, runs, view.queries, view.segment,
                                   threshold=threshold)
    for _, low in cov.loc[cov["below"]].iterrows():
        st.warning(
            f"Coverage of {escape_inline(low['run'])} in {escape_inline(low['segment'])} is "
            f"{low['judged']:.0%} at {controls.k}: scores there count unjudged chunks as not "
            "relevant (or skip them)."
        )
    st.dataframe(cov, hide_index=True, key="dash_cov_table", column_config={
        "judged": st.column_config.ProgressColumn("Judged@k", min_value=0.0, max_value=1.0,
                                                  format="percent")})
    csv_button(cov, "coverage", "dash_cov_csv")
    chart = bar_chart(cov, f"Judged@{controls.k}", x="segment", y="judged", color="run")
    chart.add_hline(y=threshold, line_dash="dot", annotation_text="warn below")
    st.plotly_chart(chart, key="dash_cov_chart")
    pairs = judged_coverage.unjudged_pairs(view.db, controls, runs)
    st.caption(f"{len(pairs)} unjudged (query, chunk) pairs in the top {controls.k} of these "
               "runs.")
    st.button("Send unjudged pairs to the labeling queue", key="dash_enqueue",
              on_click=send_to_queue, args=(pairs,),
              disabled=not pairs or not _auth.can(view.db, "enqueue"),
              help=_auth.refusal_help(view.db, "enqueue"))
    _common.show_flash(WHERE_COVERAGE)


def compare_tab(view: View) -> None:
    row = st.columns([1, 2, 1])
    baseline = row[0].selectbox("Baseline", view.runs, key="dash_baseline")
    others = [r for r in view.runs if r != baseline]
    candidates = row[1].multiselect("Candidates", others, default=others[:1],
                                    key="dash_candidates")
    target = row[2].number_input("Difference to detect", 0.005, 1.0, 0.05, 0.005,
                                 key="dash_target", format="%.3f")
    if not candidates:
        st.info("Choose at least one candidate run.")
        return
    controls = view.controls.for_run(baseline)
    table = run_comparison.compare_runs(view.db, controls, candidates)
    st.dataframe(table, hide_index=True, key="dash_compare_table",
                 column_config=number_columns(COMPARE_NUMBERS, "%.4f"))
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
    worst = drilldown.worst_queries(
        values, view.queries, measure, baseline=baseline, segment=view.segment,
        segment_value=None if chosen == EVERY_SEGMENT else chosen)
    st.dataframe(worst, hide_index=True, key="dash_worst_table")
    csv_button(worst, f"worst-{controls.run}", "dash_worst_csv")
    if worst.empty:
        st.info("No evaluated queries here.")
        return
    query_id = st.selectbox("Open query", worst["query_id"].tolist(), key="dash_drill_query")
    st.text(f"Query {query_id}: {view.queries['text'].get(query_id, '')}")
    scores = ", ".join(f"{m} = {values.loc[query_id, m]:.3f}" for m in controls.measures)
    st.caption(f"{escape_inline(controls.run)}: {escape_inline(scores)}")
    ranked = drill_down_lists(view, query_id)
    judge_form(view, query_id, drilldown.unjudged_chunks(ranked))
    tag_form(view, query_id)
    _common.show_flash(WHERE_DRILL)


def drill_down_lists(view: View, query_id: str) -> pd.DataFrame:
    """The query's ranked list and missed items in the controls' unit; returns the chunks."""
    sight = _common.sight(view.db, query_id)  # blind: grades not yet seen are hidden
    ranked, missed = drilldown.drill_down(view.db, view.controls, query_id, sight=sight)
    if ranked.empty:
        st.info("The run returned nothing for this query.")
    if view.controls.unit == "chunk":
        show_drill_down(ranked, missed, "chunk", query_id, view.scale)
        return ranked
    docs, missed_docs = drilldown.drill_down_documents(
        view.db, view.controls, query_id, chunk_lists=(ranked, missed), sight=sight)
    st.caption("Unit: document. A document is ranked where its best chunk is and graded with "
               "the highest label among its chunks, as the scores count it.")
    show_drill_down(docs, missed_docs, "document", query_id, view.scale)
    if not ranked.empty:
        with st.expander(f"The {len(ranked)} chunks behind these documents"):
            show_ranked(ranked, "dash_ranked", view.scale)
            csv_button(ranked, f"ranked-{query_id}", "dash_ranked_csv")
    return ranked


def judge_form(view: View, query_id: str, unjudged: list[str]) -> None:
    with st.expander(f"Judge an unjudged chunk ({len(unjudged)})", expanded=bool(unjudged)):
        row = st.columns([2, 2, 2, 1])
        row[0].selectbox("Chunk", unjudged, key="dash_judge_chunk")
        row[1].radio("Grade", [g for g, _, _ in view.scale], key="dash_judge_grade",
                     format_func=dict((g, escape_inline(f"{g} {n}")) for g, n, _ in view.scale).get,
                     horizontal=True, index=None)
        row[2].text_input("Note", key="dash_judge_note")
        row[3].button("Save label", key="dash_judge_save", on_click=judge_chunk, args=(query_id,),
                      disabled=not unjudged or not _auth.can(view.db, "judge"),
                      help=_auth.refusal_help(view.db, "judge"))


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
            st.dataframe(reviews, hide_index=True, key="dash_query_reviews")


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
        line_chart(st, frame, "dash_history_chart", "Headline measures by run, in creation order",
                   x="run", y="now", color="measure")
    st.dataframe(frame, hide_index=True, key="dash_history_table")
    csv_button(frame, "history", "dash_history_csv")
    st.caption(f"Now and saved under the same controls: consensus rule {headline.rule}, unit "
               f"{headline.unit}, split {headline.split}, policy {headline.policy}.")
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
        st.text(f"Locked by {lock['locked_by']} at {lock['locked_at']} under consensus rule "
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


def main() -> None:
    db = _common.page_setup()
    st.title("Dashboard")
    runs = contents.run_names(db)
    if not runs:
        st.info("No runs yet: import one on the Data page or with `scorecard import`.")
        st.stop()
    scale = grading.get_scale(db)
    controls, segment = read_controls(db, runs, scale)
    labels = label_sets.label_snapshot(db, controls.rule)
    if labels.qrels.empty:
        st.info("No labels yet: the scorecard evaluates queries with at least one label.")
        st.stop()
    lock = locked_splits.split_lock(db)
    locked = (f" · test split locked at {lock['snapshot_hash']} (rule {lock['rule']})"
              if lock else "")
    st.caption(f"{controls.describe()} Label snapshot {labels.snapshot}{locked}")
    view = View(db, runs, segmenting.query_table(db), scale, controls, segment, lock)
    tabs = st.tabs(list(TABS), key="dash_tab", on_change="rerun")
    for tab, draw in zip(tabs, TABS.values(), strict=True):
        with tab:
            if tab.open:  # lazy: only the open tab computes and draws
                try:
                    draw(view)
                except ScorecardError as error:
                    st.error(escape_markdown(str(error)))


main()
