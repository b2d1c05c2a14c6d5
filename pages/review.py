"""Review synthetic questions: one at a time or as a table; accept, edit, reject, batch actions.

Keys: A accept (the question as shown in the edit box), 1-8 choose the reject reason, X reject
with it, N next, P previous (with Shift or Caps Lock too, the keypad's digits too). Enter in the
question box hands the keys back to the card.
"""

from __future__ import annotations

import streamlit as st

from labeling import chunk_markup
from labeling.files import exporters as exports
from labeling.judging import shortcuts
from labeling.markdown import escape_inline
from labeling.synthetic import review, sampling
from pages import _auth, _common, _keys

WHERE = "review"
ALL = "all"
SHORTCUTS = {action: key.lower() for action, key in shortcuts.REVIEW_ACTIONS.items()}
REASON_KEYS = shortcuts.reason_keys(review.REJECT_REASONS)
SIGNAL_COLUMNS = ["id", "status", "question", "chunk_id", "answer", "generator", "well_formed",
                  "overlap", "n_words", "duplicate_of", "duplicate_similarity", "roundtrip",
                  "source_rank", "reject_reason", "reviewer", "query_id"]


def _generate() -> None:
    state = st.session_state
    try:
        ids, errors = review.generate(
            _common.get_db(), int(state.get("gen_sample", 10)),
            generator=state.get("gen_generator", "offline"), seed=int(state.get("gen_seed", 0)),
            strategy=state.get("gen_strategy", "random"),
        )
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    for message in errors:
        _common.flash("warning", message, WHERE)
    _common.flash("success", f"Queued {len(ids)} candidates for review.", WHERE)


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


db = _common.page_setup()
st.title("Review synthetic questions")
st.caption(
    "Generated questions become queries only when a reviewer accepts them. Accepted ones are "
    "stored as source = synthetic, with a top-grade label of their passage by 'generator' that "
    "the labeling queue asks a person to confirm."
)
_common.show_flash(WHERE)

with st.expander("Generate candidates", expanded=False):
    cols = st.columns(4)
    cols[0].number_input("Passages to sample", 1, 500, 10, key="gen_sample")
    cols[1].number_input("Seed", 0, 10**6, 0, key="gen_seed")
    cols[2].selectbox("Sampling", sampling.STRATEGIES[:2], key="gen_strategy",
                      help="random, or stratified by document")
    cols[3].selectbox("Generator", ("offline", "llm"), key="gen_generator",
                      help="llm needs SCORECARD_LLM_BASE_URL and SCORECARD_LLM_MODEL")
    st.button("Generate", key="gen_button", on_click=_generate,
              disabled=not _auth.can(db, "add_candidates"),
              help=_auth.refusal_help(db, "add_candidates"))

frame = review.candidates_frame(db)
if frame.empty:
    st.info("No candidates yet: generate some above or run `scorecard generate`.")
    st.stop()

# --- filters ----------------------------------------------------------------------------------
cols = st.columns(5)
status = cols[0].selectbox("Status", [*review.STATUSES, ALL], key="filter_status")
generators = sorted(frame["generator"].unique())
chosen = cols[1].multiselect("Generator", generators, default=generators, key="filter_generator")
trip = cols[2].selectbox("Round trip", [ALL, "source in top k", "source not in top k"],
                         key="filter_roundtrip")
max_overlap = cols[3].slider("Max word overlap", 0.0, 1.0, 1.0, 0.05, key="filter_overlap")
hide_dupes = cols[4].checkbox("Hide near-duplicates", key="filter_dupes")
view = frame[frame["generator"].isin(chosen) & (frame["overlap"].fillna(0) <= max_overlap)]
if status != ALL:
    view = view[view["status"] == status]
if trip != ALL:
    view = view[view["roundtrip"] == (trip == "source in top k")]
if hide_dupes:
    view = view[view["duplicate_of"].isna()]
st.caption(f"{len(view)} of {len(frame)} candidates match the filters.")

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
else:
    if view.empty:
        st.info("Nothing matches the filters.")
    else:
        position = min(st.session_state.get("review_position", 0), len(view) - 1)
        st.session_state["review_position"] = position
        row = view.iloc[position]
        cid = int(row["id"])
        st.caption(f"Candidate {position + 1} of {len(view)} · id {cid} · "
                   + escape_inline(f"{row['status']} · {row['generator']}"))
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
            signals = row[["well_formed", "overlap", "n_words", "duplicate_of",
                           "duplicate_similarity", "roundtrip", "source_rank"]]
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
                          placeholder="Reject reason: keys 1-8",
                          format_func=lambda r: f"{REASON_KEYS.get(r, '')} · {r}")
        cols[2].button("Reject", key="review_reject", on_click=_reject, args=(cid,),
                       disabled=not pending or not _auth.can(db, "reject"),
                       help=_auth.refusal_help(db, "reject"), shortcut=SHORTCUTS["reject"])
        cols[3].button("Previous", key="review_previous", on_click=_move, args=(-1, len(view)),
                       shortcut=SHORTCUTS["previous"])
        cols[4].button("Next", key="review_next", on_click=_move, args=(1, len(view)),
                       shortcut=SHORTCUTS["next"])
        reasons = st.columns(4)
        for i, (reason, key) in enumerate(REASON_KEYS.items()):
            reasons[i % 4].button(
                escape_inline(f"{key} · {reason}"), key=f"review_reason_{key}",
                on_click=_choose_reason, args=(reason,), shortcut=key, width="stretch",
                type="primary" if st.session_state.get("reject_reason") == reason
                else "secondary",
                disabled=not pending or not _auth.can(db, "reject"),
                help=_auth.refusal_help(db, "reject"))
        if not _common.annotator():
            st.warning("Type your name in the sidebar (Annotator) to accept or reject.")
        bindings = {key: f"review_reason_{key}" for key in REASON_KEYS.values()}
        bindings |= {key: f"review_{action}" for action, key in SHORTCUTS.items()}
        _keys.keyboard(bindings)

with st.expander("Review statistics", expanded=False):
    stats = review.review_statistics(db)
    st.dataframe(stats, key="review_stats", hide_index=True)
    st.download_button("Download CSV", exports.csv_bytes(stats), "synthetic_review_stats.csv",
                       "text/csv", key="review_stats_download")
