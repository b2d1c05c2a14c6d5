"""Dashboard: scorecard by segment, coverage, run comparison, worst queries, reviews, history."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

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
from labeling.files import exporters as exports
from labeling.files import uploads
from labeling.markdown import escape_chart_frame, escape_chart_text, escape_inline
from labeling.workspace import contents, grading
from pages import _auth, _common

WHERE = "dashboard"
WHERE_DRILL = "dashboard_drill"
WHERE_COVERAGE = "dashboard_coverage"
WHERE_HISTORY = "dashboard_history"


def csv_button(frame: pd.DataFrame, name: str, key: str) -> None:
    st.download_button(
        "Download CSV",
        exports.csv_bytes(frame),
        file_name=f"{uploads.safe_filename(name)}.csv",  # names hold run and query ids
        mime="text/csv",
        key=key,
    )


def show_ranked(frame: pd.DataFrame, key: str) -> None:
    """A drill-down list, labels coloured, snippets wide (user text: shown as plain cells)."""
    st.dataframe(
        frame.drop(columns=["relevant"]).style.map(grade_badge, subset=["grade_name"]),
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


# Widget keys and file name prefix of the drill-down lists, by unit.
DRILL_KEYS = {
    "chunk": ("dash_ranked", "dash_missed", ""),
    "document": ("dash_ranked_docs", "dash_missed_doc", "documents-"),
}


def show_drill_down(
    ranked: pd.DataFrame, missed: pd.DataFrame, unit: str, query_id: str
) -> None:
    """A query's ranked chunks or documents and the relevant ones the run missed, with CSVs."""
    table_key, missed_key, prefix = DRILL_KEYS[unit]
    if not ranked.empty:
        show_ranked(ranked, table_key)
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


def grade_badge(label: str) -> str:
    """Cell style of a grade label: grey when unjudged, red to green by grade."""
    if label in ("unjudged", drilldown.HIDDEN):
        return "background-color: #eeeeee; color: #555555; font-style: italic"
    colours = {0: "#f8d7da", 1: "#fff3cd", 2: "#d1e7dd", 3: "#a3cfbb"}
    grade = next((g for g, name, _ in SCALE if name == label), None)
    return f"background-color: {colours.get(grade, '#d1e7dd')}"


# --- callbacks (every write happens here) ------------------------------------------------------


def _run_write(where: str, action, success: str) -> None:
    try:
        result = action()
    except Exception as error:  # shown to the user as one line
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
        lambda: drilldown.judge(
            _common.get_db(),
            query_id,
            chunk,
            int(grade),
            _common.annotator(),
            note=state.get("dash_judge_note") or None,
        ),
        f"Judged {chunk}: the numbers use the new label.",
    )


def tag_query(query_id: str, run: str) -> None:
    state = st.session_state
    _run_write(
        WHERE_DRILL,
        lambda: failure_tags.tag_failure(
            _common.get_db(),
            query_id,
            run,
            state.get("dash_tags") or [],
            _common.annotator(),
            state.get("dash_tag_note") or None,
        ),
        "Recorded {result} tag(s).",
    )


def add_tag() -> None:
    name = st.session_state.get("dash_new_tag") or ""
    _run_write(
        WHERE_DRILL,
        lambda: failure_tags.add_failure_tag(
            _common.get_db(), name, created_by=_common.annotator()
        ),
        "Tag added.",
    )
    st.session_state["dash_new_tag"] = ""


def send_to_queue(pairs: list[tuple[str, str]]) -> None:
    _run_write(
        WHERE_COVERAGE,
        lambda: judged_coverage.send_unjudged_to_queue(_common.get_db(), pairs),
        "Sent {result} new pair(s) to the labeling queue.",
    )


def lock_test() -> None:
    _run_write(
        WHERE_HISTORY,
        lambda: locked_splits.lock_split(_common.get_db(), _common.annotator()),
        "Test split locked at label snapshot {result}.",
    )


def unlock_test() -> None:
    _run_write(
        WHERE_HISTORY, lambda: locked_splits.unlock_split(_common.get_db()), "Test split unlocked."
    )


def save_history(run: str, measures: list[str], controls: dict) -> None:
    _run_write(
        WHERE_HISTORY,
        lambda: score_history.save_snapshot(
            _common.get_db(), run, measures, **controls, created_by=_common.annotator() or None
        ),
        f"Saved the scores of {run} on label snapshot " + "{result}.",
    )


# --- controls ---------------------------------------------------------------------------------

db = _common.page_setup()
st.title("Dashboard")
runs = contents.run_names(db)
if not runs:
    st.info("No runs yet: import one on the Data page or with `scorecard import`.")
    st.stop()

queries = segmenting.query_table(db)
SCALE = grading.get_scale(db)
with st.container(border=True):
    row = st.columns([2, 1, 2, 1, 1])
    run = row[0].selectbox("Run", runs, key="dash_run")
    k = int(
        row[1].number_input(
            "k", 1, 1000, 10, 1, key="dash_k", help="The cutoff your pipeline passes to its model."
        )
    )
    extra = row[2].multiselect(
        "More measures",
        ["P@k", "Success@k", "nDCG@k", "AP", "Judged@k"],
        key="dash_extra",
        help="@k takes the k on the left.",
    )
    custom = row[3].text_input("Any measure", key="dash_custom", placeholder="e.g. nDCG@5")
    segment = row[4].selectbox(
        "Segment", segmenting.segment_options(db), index=0, key="dash_segment"
    )
    row = st.columns([1, 1, 1, 2])
    split = row[0].selectbox("Split", score_controls.SPLITS, key="dash_split")
    unit = row[1].radio(
        "Unit",
        score_controls.UNITS,
        key="dash_unit",
        horizontal=True,
        help="document: a document takes its best chunk's rank and its highest "
        "chunk grade, so runs with different chunking stay comparable.",
    )
    rule = row[2].selectbox(
        "Consensus rule",
        list(score_controls.CONSENSUS_RULES),
        key="dash_rule",
        help="How several annotators' grades become one. "
        + " ".join(f"{name}: {text}." for name, text in score_controls.CONSENSUS_RULES.items())
        + " Compare strict and lenient to see how much disagreement moves the scores.",
    )
    policy = row[3].radio(
        "Unjudged retrieved chunks",
        list(score_controls.POLICIES),
        key="dash_policy",
        format_func=lambda p: score_controls.POLICIES[p],
    )

measures = [f"R@{k}", "RR", *[m.replace("@k", f"@{k}") for m in extra]]
if custom.strip():
    measures.append(custom.strip())
measures = list(dict.fromkeys(measures))
controls = {"unit": unit, "policy": policy, "split": split}
try:
    values = scoring.per_query(db, run, measures, **controls, rule=rule)
except Exception as error:  # a bad custom measure name: say so, keep the defaults
    st.error(escape_inline(f"{type(error).__name__}: {error}"))
    measures = measures[:2]
    values = scoring.per_query(db, run, measures, **controls, rule=rule)

labels = label_sets.label_snapshot(db, rule)
if labels.qrels.empty:
    st.info("No labels yet: the scorecard evaluates queries with at least one label.")
    st.stop()
lock = locked_splits.split_lock(db)
st.caption(
    f"Policy: {score_controls.POLICIES[policy]}. Unit: {unit}. Split: {split}. "
    f"Consensus rule {rule}: {score_controls.CONSENSUS_RULES[rule]}. "
    "Recall is measured against the labeled set, not the whole corpus. "
    f"Label snapshot {labels.snapshot}"
    + (f" · test split locked at {lock['snapshot_hash']}" if lock else "")
)

tabs = st.tabs(
    ["Scorecard", "Coverage", "Compare", "Worst queries", "Failure tags", "History"],
    key="dash_tab",
    on_change="rerun",
)

# --- scorecard --------------------------------------------------------------------------------
with tabs[0]:
    if tabs[0].open:  # lazy: only the open tab computes and draws
        card = scoring.with_error_bars(
            scoring.segment_scorecard(
                db, run, measures, segment, queries=queries, **controls, rule=rule
            )
        )
        st.dataframe(
            card.drop(columns=["err_plus", "err_minus"]),
            hide_index=True,
            key="dash_card",
            column_config={
                c: st.column_config.NumberColumn(format="%.3f")
                for c in ("mean", "ci_low", "ci_high")
            },
        )
        csv_button(
            card.drop(columns=["err_plus", "err_minus"]), f"scorecard-{run}", "dash_card_csv"
        )
        st.caption(
            "Mean per query, 95% percentile bootstrap interval (1000 resamples, seed 0), "
            "n = evaluated queries (those with at least one label)."
        )
        left, right = st.columns(2)
        bars = px.bar(
            escape_chart_frame(card),
            x="segment",
            y="mean",
            color="measure",
            barmode="group",
            error_y="err_plus",
            error_y_minus="err_minus",
            range_y=[0, 1.05],
            title="Mean by segment, with 95% intervals",
        )
        left.plotly_chart(bars, key="dash_bars")
        matrix = scoring.scorecard_matrix(card)
        heat = px.imshow(
            matrix.rename(index=escape_chart_text, columns=escape_chart_text),
            text_auto=".2f",
            zmin=0,
            zmax=1,
            aspect="auto",
            color_continuous_scale="RdYlGn",
            title="Segment × measure",
        )
        right.plotly_chart(heat, key="dash_heat")
        left, right = st.columns(2)
        long = segmenting.segment_values(values, queries, segment)
        box = px.box(
            escape_chart_frame(long),
            x="segment",
            y="value",
            color="measure",
            points="all",
            title="Per-query distribution",
            hover_data=["query_id"],
        )
        left.plotly_chart(box, key="dash_box")
        curve_runs = right.multiselect(
            "Runs on the curve", runs, default=[run], key="dash_curve_runs"
        )
        curve = scoring.curves(db, curve_runs, measures[:2], **controls)
        right.plotly_chart(
            px.line(
                escape_chart_frame(curve),
                x="k",
                y="mean",
                color="run",
                line_dash="measure",
                markers=True,
                title="Measure as k grows",
            ),
            key="dash_curve",
        )
        csv_button(curve, "curves", "dash_curve_csv")

# --- coverage ---------------------------------------------------------------------------------
with tabs[1]:
    if tabs[1].open:  # lazy: only the open tab computes and draws
        row = st.columns(3)
        cov_runs = row[0].multiselect("Runs", runs, default=runs, key="dash_cov_runs")
        cov_k = int(row[1].number_input("Judged@k", 1, 1000, k, 1, key="dash_cov_k"))
        threshold = row[2].slider("Warn below", 0.0, 1.0, 0.8, 0.05, key="dash_cov_threshold")
        cov = judged_coverage.coverage(
            db, cov_runs, cov_k, queries, segment, unit=unit, split=split, threshold=threshold
        )
        for _, low in cov.loc[cov["below"]].iterrows():
            st.warning(
                f"Coverage of {escape_inline(low['run'])} in "
                f"{escape_inline(low['segment'])} is {low['judged']:.0%} at {cov_k}: "
                "scores there count unjudged chunks as not relevant (or skip them)."
            )
        st.dataframe(
            cov,
            hide_index=True,
            key="dash_cov_table",
            column_config={
                "judged": st.column_config.ProgressColumn(
                    "Judged@k", min_value=0.0, max_value=1.0, format="percent"
                )
            },
        )
        csv_button(cov, "coverage", "dash_cov_csv")
        coverage_chart = px.bar(
            escape_chart_frame(cov),
            x="segment",
            y="judged",
            color="run",
            barmode="group",
            range_y=[0, 1.05],
            title=f"Judged@{cov_k}",
        )
        coverage_chart.add_hline(y=threshold, line_dash="dot", annotation_text="warn below")
        st.plotly_chart(coverage_chart, key="dash_cov_chart")
        pairs = judged_coverage.unjudged_pairs(db, cov_runs, cov_k, split=split)
        st.caption(f"{len(pairs)} unjudged (query, chunk) pairs in the top {cov_k} of these runs.")
        st.button(
            "Send unjudged pairs to the labeling queue",
            key="dash_enqueue",
            on_click=send_to_queue,
            args=(pairs,),
            disabled=not pairs or not _auth.can(db, "enqueue"),
            help=_auth.refusal_help(db, "enqueue"),
        )
        _common.show_flash(WHERE_COVERAGE)

# --- comparison -------------------------------------------------------------------------------
with tabs[2]:
    if tabs[2].open:  # lazy: only the open tab computes and draws
        row = st.columns([1, 2, 1])
        baseline = row[0].selectbox("Baseline", runs, key="dash_baseline")
        others = [r for r in runs if r != baseline]
        candidates = row[1].multiselect(
            "Candidates", others, default=others[:1], key="dash_candidates"
        )
        target = row[2].number_input(
            "Difference to detect", 0.005, 1.0, 0.05, 0.005, key="dash_target", format="%.3f"
        )
        if candidates:
            table = run_comparison.compare_runs(db, baseline, candidates, measures, **controls)
            st.dataframe(
                table,
                hide_index=True,
                key="dash_compare_table",
                column_config={
                    c: st.column_config.NumberColumn(format="%.4f")
                    for c in (
                        "baseline",
                        "candidate_mean",
                        "difference",
                        "p_randomization",
                        "p_t",
                        "p_holm",
                        "sd_difference",
                        "detectable",
                    )
                },
            )
            csv_button(table, f"compare-{baseline}", "dash_compare_csv")
            for _, line in table.iterrows():
                verdict = "significant" if line["significant"] else "not significant"
                needed = run_comparison.sensitivity(
                    line["sd_difference"], int(line["n"]), float(target)
                )
                text = (
                    f"{line['candidate']} vs {baseline} on {line['measure']}: "
                    f"{line['difference']:+.3f} ({verdict}, p = {line['p_holm']:.3g} after Holm). "
                    f"This query set detects differences of {line['detectable']:.3f} or more "
                    f"(80% power, 5% level); {target:.3f} would need "
                    f"{needed['queries_needed']:.0f} queries."
                )
                (st.success if line["significant"] else st.info)(escape_inline(text))
            scatter_measure = st.selectbox("Scatter measure", measures, key="dash_scatter_measure")
            scatter_run = st.selectbox("Scatter candidate", candidates, key="dash_scatter_run")
            pairs_frame = run_comparison.paired_scores(
                db, baseline, scatter_run, scatter_measure, **controls
            )
            scatter = px.scatter(
                escape_chart_frame(pairs_frame.reset_index()),
                x="baseline",
                y="candidate",
                hover_data=["query_id"],
                range_x=[-0.05, 1.05],
                range_y=[-0.05, 1.05],
                title=escape_chart_text(f"Per-query {scatter_measure}"),
            )
            scatter.add_shape(type="line", x0=0, y0=0, x1=1, y1=1, line={"dash": "dot"})
            st.plotly_chart(scatter, key="dash_scatter")
            csv_button(pairs_frame.reset_index(), "paired-scores", "dash_pairs_csv")
        else:
            st.info("Choose at least one candidate run.")

# --- worst queries and drill-down -------------------------------------------------------------
with tabs[3]:
    if tabs[3].open:  # lazy: only the open tab computes and draws
        row = st.columns(3)
        worst_measure = row[0].selectbox("Sort by", measures, key="dash_worst_measure")
        order = row[1].radio(
            "Order",
            ["lowest value", "largest drop vs baseline"],
            key="dash_worst_order",
            horizontal=True,
        )
        segment_values = ["(all)"]
        if segment != score_controls.NO_SEGMENT:
            segment_values += sorted(
                segmenting.segment_values(values, queries, segment)["segment"].unique()
            )
        chosen_segment = row[2].selectbox("Segment value", segment_values, key="dash_worst_segment")
        base_values = None
        if order != "lowest value":
            worst_base = st.selectbox("Baseline run", runs, key="dash_worst_baseline")
            base_values = scoring.per_query(db, worst_base, measures, **controls)
        worst = drilldown.worst_queries(
            values,
            queries,
            worst_measure,
            baseline=base_values,
            segment=segment,
            segment_value=None if chosen_segment == "(all)" else chosen_segment,
        )
        st.dataframe(worst, hide_index=True, key="dash_worst_table")
        csv_button(worst, f"worst-{run}", "dash_worst_csv")
        if worst.empty:
            st.info("No evaluated queries here.")
        else:
            query_id = st.selectbox(
                "Open query", worst["query_id"].tolist(), key="dash_drill_query"
            )
            st.text(f"Query {query_id}: {queries['text'].get(query_id, '')}")
            scores = ", ".join(f"{m} = {values.loc[query_id, m]:.3f}" for m in measures)
            st.caption(f"{escape_inline(run)}: {escape_inline(scores)}")
            # blind: grades this person may not see yet are hidden
            sight = _common.sight(db, query_id)
            ranked, missed = drilldown.drill_down(db, run, query_id, sight=sight)
            if ranked.empty:
                st.info("The run returned nothing for this query.")
            if unit == "document":
                docs, missed_docs = drilldown.drill_down_documents(
                    db, run, query_id, chunk_lists=(ranked, missed), sight=sight
                )
                st.caption(
                    "Unit: document. A document is ranked where its best chunk is and graded "
                    "with the highest label among its chunks, as the scores count it."
                )
                show_drill_down(docs, missed_docs, "document", query_id)
                if not ranked.empty:
                    with st.expander(f"The {len(ranked)} chunks behind these documents"):
                        show_ranked(ranked, "dash_ranked")
                        csv_button(ranked, f"ranked-{query_id}", "dash_ranked_csv")
            else:
                show_drill_down(ranked, missed, "chunk", query_id)
            unjudged = ranked.loc[ranked["grade"].isna(), "chunk_id"].tolist()
            with st.expander(f"Judge an unjudged chunk ({len(unjudged)})", expanded=bool(unjudged)):
                scale = grading.get_scale(db)
                row = st.columns([2, 2, 2, 1])
                row[0].selectbox("Chunk", unjudged, key="dash_judge_chunk")
                row[1].radio(
                    "Grade",
                    [g for g, _, _ in scale],
                    key="dash_judge_grade",
                    format_func=dict((g, escape_inline(f"{g} {n}")) for g, n, _ in scale).get,
                    horizontal=True,
                    index=None,
                )
                row[2].text_input("Note", key="dash_judge_note")
                row[3].button(
                    "Save label",
                    key="dash_judge_save",
                    on_click=judge_chunk,
                    args=(query_id,),
                    disabled=not unjudged or not _auth.can(db, "judge"),
                    help=_auth.refusal_help(db, "judge"),
                )
            with st.expander("Why did it fail?", expanded=False):
                st.multiselect("Tags", failure_tags.failure_tag_names(db), key="dash_tags")
                st.text_input("Note", key="dash_tag_note")
                st.button(
                    "Record tags", key="dash_tag_save", on_click=tag_query, args=(query_id, run),
                    disabled=not _auth.can(db, "tag_failure"),
                    help=_auth.refusal_help(db, "tag_failure"),
                )
                row = st.columns([3, 1])
                row[0].text_input("New tag", key="dash_new_tag", placeholder="e.g. date format")
                row[1].button("Add tag", key="dash_add_tag", on_click=add_tag,
                              disabled=not _auth.can(db, "add_tag"),
                              help=_auth.refusal_help(db, "add_tag"))
                reviews = failure_tags.failure_reviews(db, query_id)
                if not reviews.empty:
                    st.dataframe(reviews, hide_index=True, key="dash_query_reviews")
            _common.show_flash(WHERE_DRILL)

# --- failure tags -----------------------------------------------------------------------------
with tabs[4]:
    if tabs[4].open:  # lazy: only the open tab computes and draws
        counts = failure_tags.tag_counts(db, queries, segment)
        if counts.empty:
            st.info("No failure tags yet: open a query under Worst queries and tag why it failed.")
        else:
            st.plotly_chart(
                px.bar(
                    escape_chart_frame(counts),
                    x="tag",
                    y="queries",
                    color="segment",
                    facet_col="run",
                    title="Tagged queries per tag, segment and run",
                ),
                key="dash_tag_chart",
            )
            st.dataframe(counts, hide_index=True, key="dash_tag_table")
            csv_button(counts, "failure-tags", "dash_tag_csv")

# --- history and frozen test split ------------------------------------------------------------
with tabs[5]:
    if tabs[5].open:  # lazy: only the open tab computes and draws
        versions = score_history.query_set_versions(db)
        version = st.selectbox("Query set", versions, key="dash_history_set")
        frame, warnings = score_history.history(db, version, measures[:2], **controls)
        for warning in warnings:
            st.warning(escape_inline(warning))
        if not frame.empty:
            st.plotly_chart(
                px.line(
                    escape_chart_frame(frame),
                    x="run",
                    y="now",
                    color="measure",
                    markers=True,
                    title="Headline measures by run, in creation order",
                ),
                key="dash_history_chart",
            )
        st.dataframe(frame, hide_index=True, key="dash_history_table")
        csv_button(frame, "history", "dash_history_csv")
        st.button(
            f"Save {escape_inline(run)}'s scores to the history",
            key="dash_save_history",
            on_click=save_history,
            args=(run, measures[:2], controls),
            disabled=not _auth.can(db, "save_scores"),
            help=_auth.refusal_help(db, "save_scores"),
        )
        st.subheader("Frozen test split")
        if lock:
            current = locked_splits.split_hash(db)
            st.text(
                f"Locked by {lock['locked_by']} at {lock['locked_at']}; label snapshot "
                f"{lock['snapshot_hash']} (now {current}). Test labels cannot change."
            )
            st.button("Unlock the test split", key="dash_unlock", on_click=unlock_test,
                      disabled=not _auth.can(db, "unlock"),
                      help=_auth.refusal_help(db, "unlock"))
        else:
            st.caption("Lock the test split so its labels cannot change while you compare runs.")
            st.button("Lock the test split", key="dash_lock", on_click=lock_test,
                      disabled=not _auth.can(db, "lock"), help=_auth.refusal_help(db, "lock"))
        _common.show_flash(WHERE_HISTORY)
