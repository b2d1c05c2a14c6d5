"""Label: the judging card. One pair at a time, blind (no run, rank or score), keyboard first."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from labeling.files import exporters as exports
from labeling.judging import pooling, queue, shortcuts, visibility
from labeling.markdown import escape_inline, escape_markdown
from labeling.workspace import contents, grading, query_store
from pages import _auth, _common, _highlight

WHERE = "label"
CURRENT, TRAIL, SAVED, NONCE = "label_current", "label_trail", "label_saved", "label_nonce"
ALL = "(all)"


def _state() -> dict:
    state = st.session_state
    state.setdefault(TRAIL, [])
    state.setdefault(SAVED, [])
    state.setdefault(NONCE, 0)
    return state


def _advance(exclude: tuple[str, str] | None) -> None:
    """Show the next card at once (the rerun after this callback draws it)."""
    state = _state()
    card = queue.next_card(_common.get_db(), _common.annotator(),
                           exclude=[exclude] if exclude else ())
    state[CURRENT] = card.pair if card else None
    state[NONCE] += 1  # fresh note and reason fields for the new card


def _note() -> str:
    state = _state()
    return str(state.get(f"label_note_{state[NONCE]}") or "")


def _record(write) -> None:
    """Save a judgment of the current pair with ``write(db, query_id, chunk_id)``, then move on."""
    state = _state()
    pair = state.get(CURRENT)
    if not pair:
        return
    try:
        judgment_id = write(_common.get_db(), pair[0], pair[1])
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    state[SAVED].append(judgment_id)
    state[TRAIL].append(pair)
    _advance(pair)


def grade(value: int) -> None:
    _record(lambda db, query_id, chunk_id: queue.save_judgment(
        db, query_id, chunk_id, value, _common.annotator(), note=_note()
    ))


def cant_judge() -> None:
    state = _state()
    reason = str(state.get(f"label_reason_{state[NONCE]}") or "").strip()
    _record(lambda db, query_id, chunk_id: queue.cant_judge(
        db, query_id, chunk_id, _common.annotator(), reason
    ))


def skip() -> None:
    state = _state()
    pair = state.get(CURRENT)
    if not pair:
        return
    try:
        queue.skip(_common.get_db(), pair[0], pair[1], _common.annotator())
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    state[TRAIL].append(pair)
    _advance(pair)


def back() -> None:
    state = _state()
    if not state[TRAIL]:
        _common.flash("warning", "Nothing to go back to in this session.", WHERE)
        return
    state[CURRENT] = state[TRAIL].pop()
    state[NONCE] += 1


def undo() -> None:
    state = _state()
    if not state[SAVED]:
        _common.flash("warning", "Nothing to undo in this session.", WHERE)
        return
    judgment_id = state[SAVED].pop()
    db = _common.get_db()
    try:
        queue.undo(db, judgment_id, _common.annotator())
        pair = queue.judgment_pair(db, judgment_id)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, WHERE)
        return
    if pair in state[TRAIL]:
        state[TRAIL].remove(pair)
    state[CURRENT] = pair
    state[NONCE] += 1
    _common.flash("success", "Undone: the pair is back on the card.", WHERE)


def build_pool(runs_key: str) -> None:
    state = st.session_state
    split = state.get("pool_split")
    attribute = state.get("pool_segment_attr")
    values = state.get("pool_segment_values") or []
    segment = (attribute, values) if attribute and attribute != ALL and values else None
    try:
        result = pooling.build_pool(
            _common.get_db(), state.get(runs_key) or [], int(state.get("pool_k") or 10),
            split=None if split in (None, ALL) else split, segment=segment,
        )
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, "label_pool")
        return
    _common.flash("success", f"Pooled {result.pooled} pairs; {result.new} new in the queue.",
                  "label_pool")
    if state.get(CURRENT) is None:
        _advance(None)


def save_overlap() -> None:
    share = float(st.session_state.get("overlap_share_input") or 0) / 100
    try:
        pairs = queue.set_overlap_share(_common.get_db(), share)
    except Exception as error:  # shown to the user as one line
        _common.report_failure(error, "label_pool")
        return
    _common.flash("success", f"Overlap set to {share:.0%}: {pairs} queued pairs need two people.",
                  "label_pool")


# ---------------------------------------------------------------------------------------------

db = _common.page_setup()
st.title("Label")
name = _common.annotator()
scale = grading.get_scale(db)
grades = [g for g, _, _ in scale]
keys = shortcuts.grade_keys(grades)
may_judge = _auth.can(db, "judge")

with st.expander("Build the queue", expanded=False):
    runs = contents.run_names(db)
    st.caption("Pooling: the union of the top k of the chosen runs goes to the queue. Run names "
               "are used here only; judging stays blind.")
    columns = st.columns([3, 1, 1])
    columns[0].multiselect("Runs to pool", runs, default=runs[:2], key="pool_runs")
    columns[1].number_input("k", 1, 1000, pooling.DEFAULT_K, 1, key="pool_k")
    columns[2].selectbox("Split", [ALL, *query_store.SPLITS], key="pool_split")
    attributes = query_store.attribute_names(db)
    columns = st.columns([1, 3])
    attribute = columns[0].selectbox("Segment attribute", [ALL, *attributes],
                                     key="pool_segment_attr")
    if attribute and attribute != ALL:
        values = sorted({v for v in contents.query_segments(db, attribute).values() if v})
        columns[1].multiselect("Only these segments", values, key="pool_segment_values")
    st.button("Add pooled pairs to the queue", key="pool_build", on_click=build_pool,
              args=("pool_runs",), disabled=not _auth.can(db, "enqueue"), type="primary",
              help=_auth.refusal_help(db, "enqueue"))
    st.number_input(
        "Overlap: share of pairs judged by at least two people (%)", 0, 100,
        int(round(queue.overlap_share(db) * 100)), 5, key="overlap_share_input",
        help="Those pairs are served to a second annotator; agreement is measured on them.",
    )
    st.button("Save overlap", key="overlap_save", on_click=save_overlap,
              disabled=not _auth.can(db, "set_overlap"),
              help=_auth.refusal_help(db, "set_overlap"))
    _common.show_flash("label_pool")

if not name:
    st.info("Type your name in the sidebar to start judging. Every judgment records it.")
    st.stop()

state = _state()
if CURRENT not in state:
    card = queue.next_card(db, name, lease=may_judge)
    state[CURRENT] = card.pair if card else None


def draw_progress() -> None:
    """Fill the progress bars: drawn last (counting a large queue takes a moment) into a slot
    at the top, so the next card reaches the browser first."""
    done = queue.progress(db, name)
    columns = bars.columns(2)
    columns[0].progress(done.my_share,
                        text=f"You: {done.mine} judged · {done.left_for_me} left for you")
    columns[1].progress(done.team_share,
                        text=f"Team: {done.complete} of {done.pooled} pooled pairs complete")


bars = st.container(key="label_progress")
_common.show_flash(WHERE)

pair = state.get(CURRENT)
if pair is None:
    st.success("Nothing left in the queue for you. Pool more runs above, or come back later.")
    columns = st.columns(6)
    columns[0].button(shortcuts.LABELS["back"], key="label_back", on_click=back,
                      shortcut=shortcuts.key("back"))
    columns[1].button(shortcuts.LABELS["undo"], key="label_undo", on_click=undo,
                      shortcut=shortcuts.key("undo"), disabled=not _auth.can(db, "undo"),
                      help=_auth.refusal_help(db, "undo"))
    draw_progress()
    st.stop()

card = queue.card_for(db, *pair)
mine = queue.current_grade(db, card.query_id, card.chunk_id, name)
history = queue.pair_history(db, card.query_id, card.chunk_id)

with st.container(border=True, key="label_card"):
    st.caption(f"Query · {escape_markdown(card.query_id)}")
    st.markdown(f"#### {escape_markdown(card.query_text)}")
    st.caption(f"Chunk · {escape_markdown(card.chunk_id)}"
               + (f" · {escape_markdown(card.title)}" if card.title else ""))
    with st.container(key="label_chunk"):
        st.markdown(_highlight.highlighted_markdown(card.chunk_text, card.query_text))
    if mine is not None:
        st.info(f"Your current grade: {mine}. A new grade is appended as a correction.")

columns = st.columns(len(scale))
for column, (value, grade_name, _) in zip(columns, scale, strict=True):
    column.button(
        escape_inline(f"{keys.get(value, '')} · {grade_name}" if value in keys else grade_name),
        key=f"label_grade_{value}", on_click=grade, args=(value,), shortcut=keys.get(value),
        width="stretch", disabled=not may_judge, help=_auth.refusal_help(db, "judge"),
        type="primary" if value == mine else "secondary",
    )
for column, (_, _, guideline) in zip(columns, scale, strict=True):
    if guideline:
        column.caption(escape_markdown(guideline))

nonce = state[NONCE]
columns = st.columns(2)
columns[0].text_input("Note (optional)", key=f"label_note_{nonce}",
                      placeholder="saved with the grade")
columns[1].text_input("Can't judge: why?", key=f"label_reason_{nonce}",
                      placeholder="e.g. needs legal knowledge")
action_buttons = [
    ("cant_judge", cant_judge), ("skip", skip), ("back", back), ("undo", undo),
]
columns = st.columns(len(action_buttons))
for column, (action, callback) in zip(columns, action_buttons, strict=True):
    column.button(
        shortcuts.LABELS[action], key=f"label_{action}",
        on_click=callback, shortcut=shortcuts.key(action), width="stretch",
        disabled=action != "back"
        and not _auth.can(db, "judge" if action == "cant_judge" else action),
        help=None if action == "back"
        else _auth.refusal_help(db, "judge" if action == "cant_judge" else action),
    )
st.caption("Keys: " + escape_markdown(shortcuts.legend(grades, [n for _, n, _ in scale]))
           + ". Keys do nothing while the cursor is in a text field (press Tab or click "
           "outside it).")

plural = "" if len(history) == 1 else "s"
with st.expander(f"History of this pair ({len(history)} judgment{plural})", expanded=False):
    shown = visibility.visible_judgments(history, _common.sight(db, card.query_id))
    if len(shown) < len(history):
        st.caption("Other people's grades appear after you judge the pair, so yours stays "
                   "independent.")
    history = shown
    frame = pd.DataFrame(history, columns=["id", "annotator", "grade", "created_at", "note",
                                           "flags"])
    frame["flags"] = frame["flags"].map(lambda f: ", ".join(sorted(f)) if f else "")
    st.dataframe(frame, hide_index=True, key="label_history")
    st.download_button("Download CSV", exports.csv_bytes(frame), "pair_history.csv",
                       "text/csv", key="label_history_csv")

draw_progress()
