"""Review synthetic questions: best first by quality score, one at a time or as a table; accept,
edit, reject, batch actions; generate (with the LLM batch's cost first), settings, feedback.

Keys: A accept (the question as shown in the edit box), 1-8 choose the reject reason, X reject
with it, N next, P previous (with Shift or Caps Lock too, the keypad's digits too). Enter in the
question box hands the keys back to the card.
"""

from __future__ import annotations

import streamlit as st

from labeling import ScorecardError, chunk_markup, escape_inline
from labeling.files import exporters as exports
from labeling.judging import shortcuts
from labeling.synthetic import (
    batches,
    calibration,
    forms,
    quality_model,
    review,
    sampling,
    settings,
)
from labeling.workspace import connections
from pages import _auth, _common, _connections, _keys

WHERE = "review"
ALL = "all"
SHORTCUTS = {action: key.lower() for action, key in shortcuts.REVIEW_ACTIONS.items()}
REASON_KEYS = shortcuts.reason_keys(review.REJECT_REASONS)
SIGNAL_COLUMNS = ["id", "status", "quality", "question", "form", "chunk_id", "answer",
                  "generator", "well_formed", "critic_score", "overlap", "n_words",
                  "duplicate_of", "duplicate_similarity", "roundtrip", "source_rank",
                  "reject_reason", "reviewer", "query_id"]


def _accept(candidate_id: int, original: str) -> None:
    edited = st.session_state.get(f"edit_{candidate_id}", original)
    try:
        qid = review.accept(
            _common.get_db(), candidate_id, _common.annotator(),
            question=None if edited == original else edited,
        )
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    _common.flash("success", f"Accepted candidate {candidate_id} as query {qid}.", WHERE)


def _reject(candidate_id: int) -> None:
    try:
        review.reject(_common.get_db(), candidate_id, _common.annotator(),
                      st.session_state.get("reject_reason") or "")
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    st.session_state["reject_reason"] = None  # the next candidate's reason is chosen anew
    _common.flash("success", f"Rejected candidate {candidate_id}.", WHERE)


def _choose_reason(reason: str) -> None:
    st.session_state["reject_reason"] = reason


def _offset(value: object) -> int | None:
    """An answer offset as stored (NULL, or a float once pandas saw a NULL in the column)."""
    return None if value is None or value != value else int(value)


def _move(step: int, total: int) -> None:
    st.session_state["review_position"] = max(
        0, min(total - 1, st.session_state.get("review_position", 0) + step)
    )


def _batch(ids: list[int], action: str) -> None:
    db, who = _common.get_db(), _common.annotator()
    try:
        if action == "accept":
            done = len(review.accept_many(db, ids, who))
        else:
            done = review.reject_many(db, ids, who, st.session_state.get("batch_reason", ""))
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    _common.flash("success", f"{action.capitalize()}ed {done} candidates.", WHERE)


def _save_settings() -> None:
    state = st.session_state
    values = {
        "quality_floor": state["set_floor"] / 100,
        "form_mix": {form: state[f"set_mix_{form}"] for form in forms.FORMS},
        "llm_domain": state["set_domain"], "llm_persona": state["set_persona"],
        "llm_max_calls": state["set_max_calls"],
    }
    try:
        settings.set_settings(_common.get_db(), values, _common.annotator() or None)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    _common.flash("success", "Saved the synthetic question settings.", WHERE)


def _refit() -> None:
    db = _common.get_db()
    try:
        quality_model.refit(db, _common.annotator() or None)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    about = quality_model.current(db)[1]
    _common.flash("success", f"Learned the quality weights from {about['decisions']} decisions "
                  f"({about['accepted']} accepted as written); every candidate is rescored.",
                  WHERE)


def _finish(result: batches.BatchResult) -> None:
    for message in result.errors:
        _common.flash("warning", message, WHERE)
    if result.unmatched:
        _common.flash("warning", f"{result.unmatched} replies gave an answer that is not in "
                      "their passage; they are listed under Batches and were not queued.", WHERE)
    _common.flash("success", f"Queued {len(result.ids)} candidates for review.", WHERE)
    if result.coverage_sentence():
        _common.flash("info", result.coverage_sentence(), WHERE)


def _run_batch(db, bar) -> None:
    """Generate with a progress bar (the button's run; the page reruns after)."""
    state = st.session_state

    def progress(done: int, total: int) -> None:
        fraction, text = batches.progress_text(done, total)
        bar.progress(fraction, text=text)

    try:
        client = _llm_client(db) if state.get("gen_generator") == "llm" else None
        result = batches.run(
            db, int(state.get("gen_sample", 10)), generator=state.get("gen_generator", "offline"),
            seed=int(state.get("gen_seed", 0)), strategy=state.get("gen_strategy", "random"),
            per_chunk=int(state.get("gen_per_chunk", 2)), client=client, progress=progress,
        )
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    _finish(result)


def _llm_client(db):
    """The generator's client for the model server picked on the page (None picked: a
    sentence saying an admin adds one)."""
    name = st.session_state.get("gen_connection")
    if not name:
        raise ScorecardError("pick a model server (an admin adds one)")
    connection = connections.get_connection(db, connections.MODEL_SERVER, str(name))
    client = batches.client_for(db, connection=connection)
    client.show_error_bodies = _auth.can(db, "manage_connections")  # admins only
    return client


def _resume(db, batch_id: str, bar) -> None:
    def progress(done: int, total: int) -> None:
        fraction, text = batches.progress_text(done, total)
        bar.progress(fraction, text=text)

    try:
        result = batches.resume(db, batch_id, client=_llm_client(db), progress=progress)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    _finish(result)


def generate_panel(db) -> None:
    """Sampling and generator choices, the LLM batch's cost, the run with its progress, and
    unfinished batches to resume."""
    state = st.session_state
    cols = st.columns(5)
    cols[0].number_input("Passages to sample", 1, 500, 10, key="gen_sample")
    cols[1].number_input("Seed", 0, 10**6, 0, key="gen_seed")
    cols[2].selectbox("Sampling", sampling.STRATEGIES[:2], key="gen_strategy",
                      help="random, or stratified by document")
    cols[3].number_input("Questions per passage", 1, 10, 2, key="gen_per_chunk")
    cols[4].selectbox("Generator", ("offline", "llm"), key="gen_generator",
                      help="llm sends the passages to a model server an admin set up")
    allowed = _auth.can(db, "add_candidates")
    if state.get("gen_generator") == "llm":
        _connections.admin_form(db, "gen_conn", WHERE)
        connection = _connections.picker(db, "gen_connection", WHERE)
        allowed = allowed and connection is not None
        try:
            estimate = batches.estimate(
                db, int(state.get("gen_sample", 10)), per_chunk=int(state.get("gen_per_chunk", 2)),
                seed=int(state.get("gen_seed", 0)), strategy=state.get("gen_strategy", "random"),
                connection=connection) if connection is not None else None
            if estimate is not None:
                st.caption(escape_inline(f"This batch sends {estimate.sentence()}."))
        except Exception as error:  # shown to the user as one line
            st.warning(escape_inline(_common.failure_sentence(error, WHERE)))
            allowed = False
    bar = st.empty()
    if st.button("Generate", key="gen_button", disabled=not allowed,
                 help=_auth.refusal_help(db, "add_candidates")):
        _run_batch(db, bar.progress(0.0, text="starting"))
        st.rerun()
    for batch in batches.unfinished(db):
        cols = st.columns([3, 1])
        cols[0].caption(escape_inline(
            f"Batch {batch['id']} ({batch['generator']}): {batch['done']} of "
            f"{batch['passages']} passages done, {batch['calls']} calls made."))
        if cols[1].button("Resume", key=f"resume_{batch['id']}", disabled=not allowed,
                          help=_auth.refusal_help(db, "add_candidates")):
            _resume(db, batch["id"], bar.progress(0.0, text="resuming"))
            st.rerun()


def settings_panel(db) -> None:
    """The team's floor, form mix and LLM settings; the quality model in force and its refit."""
    current = settings.get_settings(db)
    may = _auth.can(db, "synthetic_settings")
    st.slider("Quality floor (hide candidates scored below it)", 0, 100,
              round(current["quality_floor"] * 100), key="set_floor", disabled=not may)
    st.caption("Form mix (shares of a batch; they need not sum to 1)")
    cols = st.columns(len(forms.FORMS))
    for col, form in zip(cols, forms.FORMS, strict=True):
        col.number_input(forms.FORM_LABELS[form], 0.0, 1.0, float(current["form_mix"][form]),
                         0.05, key=f"set_mix_{form}", disabled=not may)
    cols = st.columns([2, 2, 1])
    cols[0].text_input("LLM domain", current["llm_domain"], key="set_domain", disabled=not may)
    cols[1].text_input("LLM persona", current["llm_persona"], key="set_persona",
                       disabled=not may)
    cols[2].number_input("LLM call cap", 2, 100_000, int(current["llm_max_calls"]),
                         key="set_max_calls", disabled=not may)
    st.button("Save settings", key="set_save", on_click=_save_settings, disabled=not may,
              help=_auth.refusal_help(db, "synthetic_settings"))
    weights, about = quality_model.current(db)
    if about["source"] == "default":
        st.caption(escape_inline(f"Quality weights: {calibration.basis(about)} (not yet "
                                 "learned from this team's decisions)."))
    else:
        st.caption(escape_inline(
            f"Quality weights: learned from {about['decisions']} decisions "
            f"({about['accepted']} accepted as written) on {about['fitted_at'][:10]}."))
    st.dataframe({"feature": list(weights), "weight": list(weights.values())},
                 key="set_weights", hide_index=True)
    st.button("Learn the weights from our decisions", key="set_refit", on_click=_refit,
              disabled=not _auth.can(db, "refit_quality"),
              help=_auth.refusal_help(db, "refit_quality"))


def feedback_panel(db) -> None:
    """Reject reasons, edits and accept rates by form, passage source and generator."""
    report = review.feedback(db)
    st.caption("Reject reasons (share of rejections)")
    st.dataframe(report["reasons"], key="feedback_reasons", hide_index=True)
    st.caption("Questions accepted after an edit")
    st.dataframe(report["edits"], key="feedback_edits", hide_index=True)
    st.caption("Accept rates by form, passage source and generator (of decided candidates; "
               "as written = accepted without an edit)")
    for name in ("by_form", "by_source", "by_generator"):
        st.dataframe(report[name], key=f"feedback_{name}", hide_index=True)


def card(db, row, position: int, total: int) -> None:
    """One candidate: question, passage, answer span, quality score and what it is made of."""
    cid = int(row["id"])
    st.caption(f"Candidate {position + 1} of {total} · id {cid} · "
               + escape_inline(f"{row['status']} · {row['generator']} · {row['form'] or '-'}"))
    st.metric("Quality score", review.quality_label(row["quality"]),
              help="The predicted chance that a reviewer accepts the question as written.")
    st.text_input("Question (edit before accepting if needed)", value=row["question"],
                  key=f"edit_{cid}")
    title, text = review.chunk_text(db, row["chunk_id"])
    left, right = st.columns([3, 2])
    with left:
        st.caption(f"Source passage: {escape_inline(row['chunk_id'])}"
                   + (f" · {escape_inline(title)}" if title else "")
                   + " · the answer span is marked")
        with st.container(border=True, key="review_passage"):
            st.markdown(chunk_markup.render(text, chunk_markup.answer_marks(
                text, row["answer"], _offset(row["answer_start"]),
                _offset(row["answer_end"]))))
        st.caption("Answer span")
        st.code(row["answer"] or "(none given)", language=None, wrap_lines=True)
    with right:
        if row["features"]:
            st.dataframe(review.explain(row["features"], quality_model.current(db)[0]),
                         key="review_quality", hide_index=True)
        signals = row[["well_formed", "overlap", "n_words", "duplicate_of",
                       "duplicate_similarity", "roundtrip", "source_rank", "critic_score"]]
        st.dataframe(signals.astype(str).rename("value").to_frame(), key="review_signals")
        if row["rubric_problems"]:
            st.caption("Rubric: " + escape_inline(
                row["rubric_problems"].replace("*", "").replace("_", " ")))
        if row["outranking"]:
            st.caption("Chunks BM25 ranks above the source (queued for labeling on accept)")
            st.dataframe(
                {"chunk_id": row["outranking"],
                 "title": [review.chunk_text(db, c)[0] or "" for c in row["outranking"]]},
                key="review_outranking", hide_index=True,
            )
    pending = row["status"] == "pending"
    cols = st.columns([1, 2.2, 1, 1, 1])
    cols[0].button("Accept", key="review_accept", type="primary", on_click=_accept,
                   args=(cid, row["question"]),
                   disabled=not pending or not _auth.can(db, "accept"),
                   help=_auth.refusal_help(db, "accept"), shortcut=SHORTCUTS["accept"])
    cols[1].selectbox("Reject reason", review.REJECT_REASONS, key="reject_reason",
                      label_visibility="collapsed", index=None,
                      placeholder=f"Reject reason: keys 1-{len(REASON_KEYS)}",
                      format_func=lambda r: f"{REASON_KEYS.get(r, '')} · {r}")
    cols[2].button("Reject", key="review_reject", on_click=_reject, args=(cid,),
                   disabled=not pending or not _auth.can(db, "reject"),
                   help=_auth.refusal_help(db, "reject"), shortcut=SHORTCUTS["reject"])
    cols[3].button("Previous", key="review_previous", on_click=_move, args=(-1, total),
                   shortcut=SHORTCUTS["previous"])
    cols[4].button("Next", key="review_next", on_click=_move, args=(1, total),
                   shortcut=SHORTCUTS["next"])
    reasons = st.columns(4)
    for i, (reason, key) in enumerate(REASON_KEYS.items()):
        reasons[i % 4].button(
            escape_inline(f"{key} · {reason}"), key=f"review_reason_{key}",
            on_click=_choose_reason, args=(reason,), shortcut=key, width="stretch",
            type="primary" if st.session_state.get("reject_reason") == reason else "secondary",
            disabled=not pending or not _auth.can(db, "reject"),
            help=_auth.refusal_help(db, "reject"))
    if not _common.annotator():
        st.warning("Type your name in the sidebar (Annotator) to accept or reject.")
    bindings = {key: f"review_reason_{key}" for key in REASON_KEYS.values()}
    bindings |= {key: f"review_{action}" for action, key in SHORTCUTS.items()}
    _keys.keyboard(bindings)


db = _common.page_setup()
st.title("Review synthetic questions")
st.caption(
    "Generated questions become queries only when a reviewer accepts them. The queue shows the "
    "best first by quality score. Accepted ones are stored as source = synthetic, with a "
    "top-grade label of their passage by 'generator' that the labeling queue asks a person to "
    "confirm."
)
_common.show_flash(WHERE)

with st.expander("Generate candidates", expanded=False):
    generate_panel(db)
with st.expander("Settings and quality weights", expanded=False):
    settings_panel(db)

frame = review.candidates_frame(db)
if frame.empty:
    st.info("No candidates yet: generate some above or run `scorecard generate`.")
    st.stop()

# --- filters ----------------------------------------------------------------------------------
cols = st.columns(5)
status = cols[0].selectbox("Status", [*review.STATUSES, ALL], key="filter_status")
generators = sorted(frame["generator"].unique())
chosen = cols[1].multiselect("Generator", generators, default=generators, key="filter_generator")
form_choice = cols[2].multiselect("Form", list(forms.FORMS), default=list(forms.FORMS),
                                  key="filter_form")
trip = cols[3].selectbox("Round trip", [ALL, "source in top k", "source not in top k"],
                         key="filter_roundtrip")
hide_dupes = cols[4].checkbox("Hide near-duplicates", key="filter_dupes")
view = frame[frame["generator"].isin(chosen)
             & (frame["form"].isin(form_choice) | (frame["form"] == ""))]
if status != ALL:
    view = view[view["status"] == status]
if trip != ALL:
    view = view[view["roundtrip"] == (trip == "source in top k")]
if hide_dupes:
    view = view[view["duplicate_of"].isna()]
view, hidden = review.review_queue(db, view)
st.caption(f"{len(view)} of {len(frame)} candidates match the filters, best quality first.")
floor_note = review.floor_sentence(hidden, settings.get_settings(db)["quality_floor"])
if floor_note:
    st.caption(escape_inline(floor_note))
expected_note = review.expected_sentence(view, db)
if expected_note:
    st.caption(escape_inline(expected_note))

mode = st.segmented_control("View", ["One at a time", "Table"], default="One at a time",
                            key="review_mode")
if mode == "Table":
    st.dataframe(view[SIGNAL_COLUMNS], key="review_table", hide_index=True)
    st.download_button("Download CSV", exports.csv_bytes(view[SIGNAL_COLUMNS]),
                       "synthetic_candidates.csv", "text/csv", key="review_download")
    pending = [int(i) for i in view.loc[view["status"] == "pending", "id"]]
    cols = st.columns(3)
    cols[0].button(f"Accept {len(pending)} pending", key="batch_accept", on_click=_batch,
                   args=(pending, "accept"), disabled=not pending or not _auth.can(db, "accept"),
                   help=_auth.refusal_help(db, "accept"))
    cols[1].selectbox("Reason", review.REJECT_REASONS, key="batch_reason")
    cols[2].button(f"Reject {len(pending)} pending", key="batch_reject", on_click=_batch,
                   args=(pending, "reject"), disabled=not pending or not _auth.can(db, "reject"),
                   help=_auth.refusal_help(db, "reject"))
elif view.empty:
    st.info("Nothing matches the filters.")
else:
    position = min(st.session_state.get("review_position", 0), len(view) - 1)
    st.session_state["review_position"] = position
    card(db, view.iloc[position], position, len(view))

with st.expander("Reviewer feedback", expanded=False):
    feedback_panel(db)

with st.expander("Batches", expanded=False):
    runs = batches.batches_frame(db)
    _common.dataframe(runs, "review_batches", hide_index=True)
    unmatched = batches.unmatched_frame(db)
    st.caption(f"{len(unmatched)} replies gave an answer not found in their passage "
               "(not queued):")
    _common.dataframe(unmatched, "review_unmatched", hide_index=True)

with st.expander("Review statistics", expanded=False):
    stats = review.review_statistics(db)
    st.dataframe(stats, key="review_stats", hide_index=True)
    st.download_button("Download CSV", exports.csv_bytes(stats), "synthetic_review_stats.csv",
                       "text/csv", key="review_stats_download")
