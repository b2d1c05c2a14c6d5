"""Machine judges: label pairs with a language model, measure its agreement with people, draw an
audit sample for people to verify, and see people-only, machine-only and prediction-powered
estimates side by side. Everything is computed by ``labeling``; this page reads widgets and
draws."""

from __future__ import annotations

import sqlite3

import pandas as pd
import streamlit as st

from labeling import ScorecardError, escape_inline, escape_markdown
from labeling.evaluation import Controls, score_controls, segmenting
from labeling.files import exporters as exports
from labeling.machine_judging import (
    audit_sample,
    judge_prompts,
    machine_agreement,
    machine_estimates,
    machine_judge,
    machine_pairs,
)
from labeling.model_calls import chat
from labeling.report import scorecard_report
from labeling.workspace import contents, grading, query_store
from pages import _auth, _common, _connections

WHERE = "machine_judges"
FAILURES = (ScorecardError, sqlite3.Error)
NO_FILTER = "(every query)"
DEFAULT_CAP = 500
TIMEOUT = 60.0  # seconds a whole call may take
ESTIMATE_MEASURES = ["nDCG@10", "P@10", "R@10", "RR", "AP"]


# --- labeling pairs ------------------------------------------------------------------------


def _judge_from_widgets(connection) -> machine_judge.Judge:
    state = st.session_state
    prompt = judge_prompts.load_prompt(state.get("mj_prompt", judge_prompts.DEFAULT_VERSION))
    return machine_judge.judge_on(connection, prompt, float(state.get("mj_temperature", 0.0)))


def _pairs_from_widgets(db) -> tuple[list[tuple[str, str]], str]:
    state = st.session_state
    split = None if state.get("mj_split", "all") == "all" else state["mj_split"]
    attribute, values = state.get("mj_segment_attr"), state.get("mj_segment_values") or []
    segment = (attribute, values) if attribute not in (None, NO_FILTER) and values else None
    return machine_pairs.pair_set(db, state.get("mj_pair_set", "pool"),
                                  state.get("mj_runs") or [], int(state.get("mj_k", 10)),
                                  split=split, segment=segment)


def _run(db, batch_id: int, connection) -> None:
    """Run a batch on a stored connection with a progress bar (in the page run, so the bar
    moves). What the server said in an error reply is shown to admins only."""
    bar = st.progress(0.0, text="Starting…")

    def progress(done: int, total: int, message: str) -> None:
        bar.progress(done / total if total else 1.0, text=f"{done} of {total} pairs")

    cap = min(int(st.session_state.get("mj_cap", DEFAULT_CAP)), connection.call_ceiling)
    try:
        client = chat.client_for(connection, timeout=TIMEOUT,
                                 show_error_bodies=_auth.can(db, "manage_connections"))
        result = machine_judge.run_batch(db, batch_id, client, max_calls=cap,
                                         progress=progress)
    except FAILURES as error:
        _common.report_failure(error, WHERE)
    else:
        kind = "success" if result.pending == 0 else "warning"
        _common.flash(kind, result.summary()[0].upper() + result.summary()[1:] + ".", WHERE)
        for message in result.errors[:5]:
            _common.flash("warning", message, WHERE)
    st.rerun()  # show the outcome at the top, and the batch in the table


def _pair_widgets(db, runs: list[str]) -> None:
    """Which pairs to judge: the pair set, runs, depth, split and segment."""
    row = st.columns([2, 2, 1, 1])
    row[0].radio("Pairs", list(machine_pairs.PAIR_SETS),
                 format_func=machine_pairs.PAIR_SETS.get, key="mj_pair_set")
    row[1].multiselect("Runs", runs, default=runs[:2], key="mj_runs")
    row[2].number_input("k", 1, 1000, 10, 1, key="mj_k")
    row[3].selectbox("Split", ["all", "dev", "test"], key="mj_split")
    row = st.columns([1, 3])
    attribute = row[0].selectbox("Only a segment", [NO_FILTER, *query_store.attribute_names(db)],
                                 key="mj_segment_attr")
    if attribute != NO_FILTER:
        row[1].multiselect("Values", machine_pairs.segment_values(db, attribute),
                           key="mj_segment_values")


def label_tab(db, runs: list[str]) -> None:
    state = st.session_state
    _connections.admin_form(db, "mj_conn", WHERE)
    versions = judge_prompts.prompt_versions()
    row = st.columns([3, 1, 1])
    with row[0]:
        connection = _connections.picker(db, "mj_connection", WHERE)
    row[1].selectbox("Prompt", versions, key="mj_prompt",
                     index=versions.index(judge_prompts.DEFAULT_VERSION)
                     if judge_prompts.DEFAULT_VERSION in versions else 0,
                     help="A template prompts/relevance\\_judge\\_VERSION.md")
    row[2].number_input("Temperature", 0.0, 2.0, 0.0, 0.1, key="mj_temperature")
    _pair_widgets(db, runs)
    ceiling = connection.call_ceiling if connection is not None else DEFAULT_CAP
    row = st.columns(3)
    row[0].number_input("Price per million prompt tokens", 0.0, 1000.0, 0.0, key="mj_price_in")
    row[1].number_input("Price per million reply tokens", 0.0, 1000.0, 0.0, key="mj_price_out")
    row[2].number_input("Call cap", 0, ceiling, min(DEFAULT_CAP, ceiling), 50, key="mj_cap",
                        help="Requests this run may send, retries included; at most the "
                        "model server's ceiling, which admins set.")
    if connection is None:
        batches_section(db)
        return
    try:
        judge = _judge_from_widgets(connection)
        pairs, described = _pairs_from_widgets(db)
        plan = machine_judge.plan(db, judge, pairs, price_prompt=state.get("mj_price_in", 0.0),
                                  price_reply=state.get("mj_price_out", 0.0))
    except FAILURES as error:
        st.info(escape_markdown(str(error)))
        judge, plan = None, None
    if plan is not None:
        st.caption(escape_inline(
            f"{judge.name} on {connection.name}, {described}: {plan.pairs} pairs, {plan.cached} "
            f"answered from the cache, {plan.locked} in a locked split, {plan.calls} to call. "
            f"Estimate: {plan.prompt_tokens:,} prompt and {plan.reply_tokens:,} reply tokens (4 "
            f"characters a token), cost {plan.cost:.4f} at the prices above."))
        may = _auth.can(db, "machine_judge")
        if st.button("Run the batch", key="mj_run", type="primary",
                     disabled=not may or plan.pairs == plan.locked,
                     help=_auth.refusal_help(db, "machine_judge")):
            try:
                batch_id = machine_judge.start_batch(
                    db, judge, pairs, described, created_by=_common.annotator() or None,
                    pool_depth=machine_pairs.pool_depth(state.get("mj_pair_set", "pool"),
                                                        int(state.get("mj_k", 10))))
            except FAILURES as error:
                _common.report_failure(error, WHERE)
                st.rerun()
            _run(db, batch_id, connection)
    batches_section(db)


def batches_section(db) -> None:
    frame = machine_judge.batches(db)
    if frame.empty:
        return
    st.subheader("Batches")
    _common.dataframe(frame, "mj_batches", hide_index=True)
    open_ids = frame.loc[frame["pending"] > 0, "id"].tolist()
    if open_ids:
        row = st.columns([1, 1, 3])
        chosen = row[0].selectbox("Batch to resume", open_ids, key="mj_resume_id")
        try:  # a batch resumes on the connection it was started on, never another address
            connection, why = machine_judge.batch_connection(db, int(chosen)), None
        except FAILURES as error:
            connection, why = None, escape_markdown(str(error))
        if row[1].button("Resume", key="mj_resume",
                         disabled=connection is None or not _auth.can(db, "machine_judge"),
                         help=why or _auth.refusal_help(db, "machine_judge")):
            _run(db, int(chosen), connection)
    failures = machine_judge.batch_failures(db)
    if not failures.empty:
        st.caption("Pairs that failed, pending or set aside after repeated failures (the raw "
                   "reply of a malformed answer is kept; scorecard judge failures lists them):")
        st.dataframe(failures, hide_index=True, key="mj_failures")


# --- agreement ----------------------------------------------------------------------------


def agreement_tab(db, runs: list[str], judges: list[str]) -> None:
    row = st.columns([2, 1, 1])
    judge = row[0].selectbox("Judge", judges, key="mj_agree_judge")
    weights = row[1].radio("Weighted kappa", ["quadratic", "linear"], key="mj_agree_weights",
                           horizontal=True)
    segment = row[2].selectbox("Segment", segmenting.segment_options(db), key="mj_agree_segment")
    found = machine_agreement.agreement(db, judge, segment=segment, weights=weights)
    if found.pairs == 0:
        st.info("People and this judge have no pair in common yet: draw an audit sample.")
        return
    columns = st.columns(3)
    columns[0].metric("Pairs graded by both", found.pairs)
    columns[1].metric("Cohen's kappa", f"{found.kappa.kappa:.2f}",
                      help=f"95% bootstrap interval {found.kappa.low:.2f} to "
                      f"{found.kappa.high:.2f}")
    columns[2].metric(f"{weights.capitalize()}-weighted kappa", f"{found.weighted.kappa:.2f}",
                      help=f"95% bootstrap interval {found.weighted.low:.2f} to "
                      f"{found.weighted.high:.2f}")
    over = "queries" if found.sample_id is not None else "pairs"
    st.caption(escape_inline(
        f"Kappa {found.kappa.kappa:.2f} [{found.kappa.low:.2f}, {found.kappa.high:.2f}], "
        f"{weights}-weighted {found.weighted.kappa:.2f} [{found.weighted.low:.2f}, "
        f"{found.weighted.high:.2f}] (95% bootstrap over {over}): {found.scope}. Confusion: "
        "counts of the pairs both graded, rows people, columns the machine."))
    st.dataframe(found.confusion, key="mj_confusion")
    st.dataframe(found.by_grade, hide_index=True, key="mj_by_grade")
    if not found.by_segment.empty:
        st.dataframe(found.by_segment, hide_index=True, key="mj_by_segment")
    ranking_section(db, runs, judge)
    others = [j for j in judges if j != judge]
    if others:
        other = st.selectbox("Compare with another judge on the same pairs", others,
                             key="mj_compare")
        diff = machine_agreement.compare_judges(db, judge, other, weights=weights)
        if diff.n:
            verdict = "real" if diff.low > 0 or diff.high < 0 else "not clear"
            st.write(escape_inline(
                f"{other} − {judge}: {weights}-weighted kappa {diff.second:.2f} vs "
                f"{diff.first:.2f}, difference {diff.difference:+.2f} [{diff.low:+.2f}, "
                f"{diff.high:+.2f}] on the {diff.n} pairs people and both judges graded "
                f"(unweighted: a figure of these pairs); the difference is {verdict}."))
    disagreements_section(db, judge)


def ranking_section(db, runs: list[str], judge: str) -> None:
    if len(runs) < 2:
        return
    row = st.columns([3, 1])
    chosen = row[0].multiselect("Runs to rank", runs, default=runs, key="mj_rank_runs")
    measure = row[1].selectbox("Ranked by", ESTIMATE_MEASURES, key="mj_rank_measure")
    if len(chosen) < 2:
        return
    try:
        ranking = machine_agreement.ranking_agreement(
            db, Controls(chosen[0], measures=(measure,)), judge, chosen)
    except ScorecardError as error:
        st.info(escape_markdown(str(error)))
        return
    st.write(escape_inline(
        f"Kendall's tau between the run rankings by the prediction-powered estimates (audit "
        f"sample {ranking.sample_id}: the mean people would give) and by {judge}'s labels "
        f"alone ({measure}): {ranking.tau:.2f}."))
    st.dataframe(ranking.table, hide_index=True, key="mj_rank_table")
    if ranking.swaps:
        swaps = pd.DataFrame(ranking.swaps, columns=["above for people", "above for the machine",
                                                     "size"])
        st.dataframe(swaps, hide_index=True, key="mj_rank_swaps")


def disagreements_section(db, judge: str) -> None:
    far = machine_agreement.disagreements(db, judge)
    sight = _common.sight(db)
    if sight.blind_to_some:  # blind: only pairs whose grades this person may see
        far = far.loc[sight.pair_mask(far)].reset_index(drop=True)
    st.subheader(f"Where the judge fails ({len(far)} pairs two or more grades apart)")
    st.dataframe(far, hide_index=True, key="mj_disagreements",
                 column_config={"chunk": st.column_config.TextColumn(width="large")})
    st.download_button("Download CSV", exports.csv_bytes(far), "disagreements.csv", "text/csv",
                       key="mj_disagreements_csv")


# --- audit ---------------------------------------------------------------------------------


def _draw() -> None:
    state = st.session_state
    judge, runs = state.get("mj_audit_judge"), state.get("mj_audit_runs") or []
    segment = state.get("mj_audit_segment")
    try:
        draw = audit_sample.draw_audit(
            _common.get_db(), judge, int(state.get("mj_budget", 20)), runs=runs,
            relevance=int(state.get("mj_audit_relevance", 1)),
            segment=None if segment in (None, score_controls.NO_SEGMENT) else segment,
            seed=int(state.get("mj_seed", 0)), created_by=_common.annotator() or None)
    except FAILURES as error:
        _common.report_failure(error, WHERE)
        return
    _common.flash("success", f"Drew {draw.summary()}. They wait in the audit queue (Label or "
                  "Judge by query: Audit of machine judges); the machine's grades stay hidden "
                  "there.", WHERE)


def audit_tab(db, runs: list[str], judges: list[str], scale: list[tuple]) -> None:
    row = st.columns([2, 1, 1, 1, 1])
    judge = row[0].selectbox("Judge", judges, key="mj_audit_judge")
    row[1].number_input("Budget (pairs)", 1, 1_000_000, 20, 5, key="mj_budget",
                        help="The number of pairs people verify: exactly this many.")
    row[2].selectbox("Relevant from grade", score_controls.relevance_choices(
        g for g, _, _ in scale), key="mj_audit_relevance")
    row[3].selectbox("Stratify by", segmenting.segment_options(db), key="mj_audit_segment")
    row[4].number_input("Seed", 0, 1_000_000, 0, 1, key="mj_seed")
    chosen = st.multiselect("Runs whose ranks weigh the pairs", runs, default=runs,
                            key="mj_audit_runs")
    st.caption("Pairs in the top ranks and those the machine graded at the relevance threshold "
               "or one below are sampled more often; every probability is stored, so the "
               "estimates stay unbiased. Pairs people already graded are not sampled again.")
    st.button("Draw the audit sample", key="mj_draw", on_click=_draw,
              disabled=not judge or not chosen or not _auth.can(db, "audit"),
              help=_auth.refusal_help(db, "audit"))
    samples = audit_sample.samples(db)
    if samples.empty:
        return
    _common.dataframe(samples, "mj_samples", hide_index=True)
    waiting = int(samples["waiting"].sum())
    if waiting:
        st.info(f"{waiting} audited pair(s) wait for people in the audit queue (Label or Judge "
                "by query: Audit of machine judges).")


# --- estimates -----------------------------------------------------------------------------


def estimates_tab(db, runs: list[str], scale: list[tuple]) -> None:
    samples = audit_sample.samples(db)
    if samples.empty:
        st.info("Draw an audit sample first: the estimates correct the machine's labels with "
                "the people's grades of its pairs.")
        return
    row = st.columns([1, 2, 2, 2])
    sample_id = row[0].selectbox("Audit sample", samples["id"].tolist(), key="mj_sample")
    run = row[1].selectbox("Run", runs, key="mj_est_run")
    baseline = row[2].selectbox("Minus baseline", ["(none)", *[r for r in runs if r != run]],
                                key="mj_est_baseline")
    segment = row[3].selectbox("Segment", segmenting.segment_options(db), key="mj_est_segment")
    row = st.columns([3, 1])
    measures = row[0].multiselect("Measures", ESTIMATE_MEASURES, default=ESTIMATE_MEASURES[:2],
                                  key="mj_est_measures")
    relevance = row[1].selectbox("Relevant from grade", score_controls.relevance_choices(
        g for g, _, _ in scale), key="mj_est_relevance")
    if not measures:
        st.info("Choose at least one measure.")
        return
    controls = Controls(run, measures=tuple(measures), relevance=int(relevance))
    table, state = machine_estimates.estimates(
        db, controls, int(sample_id), segment=segment,
        baseline=None if baseline == "(none)" else baseline)
    if state.provisional:
        st.warning(f"Provisional: {state.waiting} audited pair(s) still wait for a person; each "
                   "query's audit stops at its first waiting pair.")
    st.dataframe(machine_estimates.side_by_side(table), hide_index=True, key="mj_estimates")
    what = f"{run} − {baseline}" if baseline != "(none)" else run
    meaning = machine_estimates.interval_meaning
    st.caption(escape_inline(
        f"{what}, mean [interval] over {table['queries'].iloc[0]} queries, judge "
        f"{state.sample['judge']}, audit sample {sample_id} ({state.human_labels} people's "
        "labels used). Prediction-powered: the machine's score corrected by the audit, "
        f"{meaning('prediction-powered')}. People only: the people's labels alone, weighted by "
        f"their sampling probabilities, {meaning('people only')}. "
        f"{machine_estimates.WORTH_MEANING.capitalize()}."))
    st.markdown("**Machine only — not comparable with the estimates above**")
    st.caption(escape_inline(f"The judge's labels alone, {meaning('machine only')}: with a "
                             "biased judge it almost never covers the people's mean."))
    st.dataframe(machine_estimates.machine_only(table), hide_index=True,
                 key="mj_machine_only")
    st.download_button("Download CSV", exports.csv_bytes(table), "estimates.csv", "text/csv",
                       key="mj_estimates_csv")
    report_section(db, run, state.sample["judge"])


def report_section(db, run: str, judge: str) -> None:
    st.subheader("Scorecard")
    row = st.columns([2, 1])
    source = row[0].selectbox("Label source", list(score_controls.LABEL_SOURCES),
                              format_func=score_controls.LABEL_SOURCES.get,
                              key="mj_report_source")
    fmt = row[1].radio("Format", ["markdown", "html"], key="mj_report_format", horizontal=True)
    controls = scorecard_report.report_controls(
        run, label_source=source, judge=judge if source != "people" else "")
    card = scorecard_report.build_scorecard(db, controls)
    for line in [*card.headline(), *card.source_lines()]:
        st.caption(escape_inline(line))
    data, name, mime = scorecard_report.download(card, fmt)
    st.download_button("Download the scorecard", data, name, mime, key="mj_report")


# --- page ----------------------------------------------------------------------------------

TABS = ("Label pairs", "Agreement", "Audit", "Estimates")


def main() -> None:
    db = _common.page_setup()
    st.title("Machine judges")
    st.caption("A language model grades pairs on the workspace's scale; its labels count only "
               "where you choose them (the dashboard's label source), people verify an audit "
               "sample blind, and the estimates say how far the machine's scores can be trusted.")
    _common.show_flash(WHERE)
    runs = contents.run_names(db)
    scale = grading.get_scale(db)
    judges = machine_judge.judges(db)
    tabs = st.tabs(list(TABS), key="mj_tab", on_change="rerun")
    for tab, name in zip(tabs, TABS, strict=True):
        with tab:
            if not tab.open:
                continue
            try:
                if name == "Label pairs":
                    label_tab(db, runs)
                elif not judges:
                    st.info("No machine labels yet: run a batch under Label pairs.")
                elif name == "Agreement":
                    agreement_tab(db, runs, judges)
                elif name == "Audit":
                    audit_tab(db, runs, judges, scale)
                else:
                    estimates_tab(db, runs, scale)
            except ScorecardError as error:
                st.error(escape_markdown(str(error)))


main()
